// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/trap_in_self_recursion.wdl:13:18
// A runtime error raised deep in a small self-recursive function (which
// the optimizing tier inlines one level into itself), after a run that
// returns normally: the output before it and its location are the same on
// every tier.
fn walk(xs: [int], k: int, stop: int) -> int {
    print(k);
    if k == stop {
        print("at " + str(k));
        print(xs[0]);
        return xs[k + 100];
    }
    if k > 6 { return 0; }
    return walk(xs, k + 1, stop) + walk(xs, k + 3, stop);
}
print(walk([1, 2, 3], 0, 30));
print(walk([1, 2, 3], 0, 5));
