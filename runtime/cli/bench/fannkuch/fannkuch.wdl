// Fannkuch-redux (Computer Language Benchmarks Game): permutations and
// prefix reversals of small int arrays. Prints the checksum and the
// maximum number of flips.
// bench: quick=6
fn fannkuch(n: int) {
    var perm1 = [0; n];
    for i in 0..n {
        perm1[i] = i;
    }
    var perm = [0; n];
    var count = [0; n];
    var max_flips = 0;
    var checksum = 0;
    var perm_count = 0;
    var r = n;
    while true {
        while r != 1 {
            count[r - 1] = r;
            r -= 1;
        }
        for i in 0..n {
            perm[i] = perm1[i];
        }
        var flips = 0;
        var k = perm[0];
        while k != 0 {
            var i = 0;
            var j = k;
            while i < j {
                let t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
                i += 1;
                j -= 1;
            }
            flips += 1;
            k = perm[0];
        }
        if flips > max_flips {
            max_flips = flips;
        }
        if perm_count % 2 == 0 {
            checksum += flips;
        } else {
            checksum -= flips;
        }
        while true {
            if r == n {
                print(checksum);
                print(max_flips);
                return;
            }
            let perm0 = perm1[0];
            for i in 0..r {
                perm1[i] = perm1[i + 1];
            }
            perm1[r] = perm0;
            count[r] -= 1;
            if count[r] > 0 {
                break;
            }
            r += 1;
        }
        perm_count += 1;
    }
}

fn main(n: int) {
    fannkuch(n);
}

main(10);
