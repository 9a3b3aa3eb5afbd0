// exit: 2
// stderr: runtime error: stack overflow
// stderr: runtime-errors/stack_overflow_void.wdl:8:5
// Unbounded recursion through a void function with an array argument.
var calls = 0;
fn forever(xs: [int]) {
    calls += 1;
    forever(xs);
}
print("go");
forever([1, 2, 3]);
