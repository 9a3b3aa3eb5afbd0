// exit: 2
// stderr: runtime error: stack overflow
// stderr: runtime-errors/stack_overflow_inlined_copy.wdl:10:12
// Unbounded recursion in a fib-shaped function, whose first call the
// optimizing tiers run as an inlined copy inside the loop its tail call
// becomes: the overflow is located at that call on every tier, after the
// output before it.
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
print(fib(20));
print(fib(100000));
