// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/div_zero_inlined_chain.wdl:6:44
// A division by zero two inlined calls deep, inside a loop: located at
// the operator in the innermost function on every tier.
fn ratio(a: int, b: int) -> int { return a / b; }
fn step(i: int, d: int) -> int { return ratio(i * 10, d) + 1; }
fn walk(n: int) -> int {
    var s = 0;
    for i in 0..n { s += step(i, 5 - i); }
    return s;
}
print(walk(4));
print(walk(8));
