// Fibonacci: recursive, iterative, and wrapping past i64.
fn fib_rec(n: int) -> int {
    if n < 2 { return n; }
    return fib_rec(n - 1) + fib_rec(n - 2);
}
fn fib_iter(n: int) -> int {
    var a = 0;
    var b = 1;
    for i in 0..n {
        let t = a + b;
        a = b;
        b = t;
    }
    return a;
}
print(fib_rec(24));
print(fib_iter(24));
print(fib_iter(90));
print(fib_iter(92));
print(fib_iter(93));
print(fib_iter(100));
var fs: [int] = [];
for i in 0..15 { push(fs, fib_iter(i)); }
print(fs);
