// exit: 1
// stderr: must return a value on every path
// stderr: compile-errors/missing_return_loops.wdl:6:
// stderr: compile-errors/missing_return_loops.wdl:9:
// stderr: compile-errors/missing_return_loops.wdl:12:
fn a(n: int) -> int {
    for i in 0..n { return i; }
}
fn b(n: int) -> int {
    while n > 0 { return n; }
}
fn c(n: int) -> int {
    while true {
        if n > 3 { break; }
        return n;
    }
}
