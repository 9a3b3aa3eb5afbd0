// Recursive functions.
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
fn fact(n: int) -> int {
    if n <= 1 { return 1; }
    return n * fact(n - 1);
}
fn ack(m: int, n: int) -> int {
    if m == 0 { return n + 1; }
    if n == 0 { return ack(m - 1, 1); }
    return ack(m - 1, ack(m, n - 1));
}
print(fib(20));
print(fact(20));
print(fact(21));
print(ack(2, 3));
print(ack(3, 3));
