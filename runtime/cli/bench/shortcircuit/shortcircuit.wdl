// Short-circuit conditions guarding values that only some paths need
// (branch-heavy; the VSDG tier's lazy sequentialization computes each
// value only on the paths that use it and tests each condition at most
// once). Prints two checksums.
// bench: quick=1000
fn classify(i: int, k: int) -> int {
    let a = i * 7 + k;
    let heavy = (a * a + 13) % 1009;
    let light = a % 17;
    if (i % 3 == 0 || i % 5 == 0) && a % 7 != 1 {
        return heavy + light;
    }
    if i % 4 == 1 && (light > 8 || a % 11 == 0) {
        return heavy + 17 - light;
    }
    return light;
}

fn main(n: int) {
    var acc = 0;
    var hits = 0;
    for i in 0..n {
        let c = classify(i, hits % 5);
        acc = (acc + c) % 1000000007;
        if c > 500 && (i % 2 == 0 || c % 3 == 0) {
            hits += 1;
        }
    }
    print(acc);
    print(hits);
}

main(13_000_000);
