// Order pricing by rules: three flags, each tested by several rules, and
// terms (divisions, remainders) that only the orders a rule applies to need
// (branch-heavy; the VSDG tier's lazy sequentialization computes each term
// only on the paths that use it and tests each flag once per order where T2
// tests it again in every rule). Prints the total and the number of
// discounted orders.
// bench: quick=1000
fn price(q: int, day: int, seed: int) -> int {
    let bulk = q > 40;
    let weekend = day % 7 >= 5;
    let member = seed % 10 < 3;
    let base = q * 100 + seed % 50;
    let bulk_cut = base / 8;
    let weekend_fee = (q * 37 + day * 11) % 97 + 15;
    let member_pts = (base / 3 + day) % 251;
    var p = base;
    if bulk {
        p -= bulk_cut;
    }
    if weekend {
        p += weekend_fee;
    }
    if member {
        p -= member_pts;
    }
    if bulk && weekend {
        p += bulk_cut % 13;
    }
    if member || bulk {
        p -= 1;
    }
    if !member && !weekend {
        p += base % 7;
    }
    return p;
}

fn main(n: int) {
    var seed = 1;
    var total = 0;
    var discounted = 0;
    for i in 0..n {
        seed = (seed * 75 + 74) % 65537;
        let q = seed % 80 + 1;
        let p = price(q, i % 365, seed);
        total = (total + p + 1000) % 1000000007;
        if p < q * 100 {
            discounted += 1;
        }
    }
    print(total);
    print(discounted);
}

main(15_000_000);
