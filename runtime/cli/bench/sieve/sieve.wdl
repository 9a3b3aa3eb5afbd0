// Sieve of Eratosthenes, repeated: bool array stores and bounds checks.
// bench: quick=1000
fn sieve(n: int) -> int {
    var flags = [true; n + 1];
    var count = 0;
    var i = 2;
    while i <= n {
        if flags[i] {
            count += 1;
            var k = i + i;
            while k <= n {
                flags[k] = false;
                k += i;
            }
        }
        i += 1;
    }
    return count;
}

fn main(n: int) {
    var total = 0;
    for r in 0..10 {
        total += sieve(n + r);
    }
    print(total);
}

main(3_000_000);
