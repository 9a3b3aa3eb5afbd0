// Small self-recursive functions of the shapes the optimizing tier inlines
// one level into themselves: several self calls, calls as arguments of
// calls, void recursion with side effects, arrays and strings passed down,
// and a recursive function with a loop.
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
fn tak(x: int, y: int, z: int) -> int {
    if y >= x { return z; }
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}
fn count(n: int, acc: [int]) {
    if n == 0 { return; }
    push(acc, n);
    count(n - 1, acc);
    acc[0] += 1;
}
fn path(n: int) -> str {
    if n == 0 { return "."; }
    return str(n) + path(n - 1);
}
fn fsum(x: float, n: int) -> float {
    if n == 0 { return x; }
    return fsum(x * 0.5, n - 1) + x;
}
fn depth_sum(n: int) -> int {
    var s = 0;
    for i in 0..n { s += depth_sum(i); }
    return s + 1;
}
fn ackermann(m: int, n: int) -> int {
    if m == 0 { return n + 1; }
    if n == 0 { return ackermann(m - 1, 1); }
    return ackermann(m - 1, ackermann(m, n - 1));
}
for n in 0..12 { print(fib(n)); }
print(tak(12, 8, 4));
print(tak(18, 12, 6));
var acc = [0];
count(9, acc);
print(acc);
print(path(12));
print(fsum(1.0, 10));
print(depth_sum(10));
print(ackermann(2, 3));
print(ackermann(3, 3));
