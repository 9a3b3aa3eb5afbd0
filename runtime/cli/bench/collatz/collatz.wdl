// Collatz trajectories of 1..n: a data-dependent branch per step
// (branch-heavy). Prints the total number of steps and the longest
// trajectory's start and length.
// bench: quick=1000
fn main(n: int) {
    var total = 0;
    var best = 0;
    var best_start = 0;
    for start in 1..n {
        var x = start;
        var steps = 0;
        while x != 1 {
            if x % 2 == 0 {
                x = x / 2;
            } else {
                x = 3 * x + 1;
            }
            steps += 1;
        }
        total += steps;
        if steps > best {
            best = steps;
            best_start = start;
        }
    }
    print(total);
    print(best_start);
    print(best);
}

main(1_000_000);
