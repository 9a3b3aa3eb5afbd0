// exit: 2
// stderr: runtime error: stack overflow
// stderr: runtime-errors/stack_overflow.wdl:7:16
// Unbounded recursion is a runtime error, never a crash.
fn down(n: int) -> int {
    if n < 0 { return 0; }
    return 1 + down(n + 1);
}
print("start");
print(down(0));
