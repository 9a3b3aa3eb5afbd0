// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/error_in_nested_call.wdl:5:40
fn inner(xs: [int], k: int) -> int {
    print("inner " + str(k)); return xs[k * 2];
}
fn middle(xs: [int], k: int) -> int { return inner(xs, k) + 1; }
fn outer(xs: [int]) -> int {
    var s = 0;
    for k in 0..3 { s += middle(xs, k); }
    return s;
}
print(outer([1, 2, 3, 4]));
