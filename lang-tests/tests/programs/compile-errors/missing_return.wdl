// exit: 1
// stderr: must return a value on every path
// stderr: compile-errors/missing_return.wdl:4:
fn sign(n: int) -> int {
    if n < 0 { return -1; } else if n > 0 { return 1; }
}
