// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/div_zero_unused_arm.wdl:8:15
// A quotient only one arm returns: sinking may move it into that arm only
// when the divisor is a non-zero constant; by a variable it may trap, so it
// stays where it is and traps on the path that does not use it too.
fn f(x: int, d: int, p: bool) -> int {
    let q = x / d;
    let r = x / 7;
    if p { return q + r; }
    return 0;
}
print(f(10, 2, true));
print(f(10, 5, false));
print(f(10, 0, false));
print("after");
