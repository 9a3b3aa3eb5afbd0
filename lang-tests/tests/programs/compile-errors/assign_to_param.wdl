// exit: 1
// stderr: cannot assign to immutable binding
// stderr: compile-errors/assign_to_param.wdl:5:
fn f(n: int) -> int {
    n = n + 1;
    return n;
}
