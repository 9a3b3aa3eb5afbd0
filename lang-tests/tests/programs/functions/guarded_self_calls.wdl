// Self calls the optimizing tiers guard: the callee's quiet entry region
// (tests, arithmetic, loads, no effects) runs inline and the real call is
// made only when the region is left. Effects after the region happen once
// per call, regions of several blocks, loops, void, float, bool and array
// recursion, and a global read in the region.
var calls = 0;
var limit = 2;
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
fn tak(x: int, y: int, z: int) -> int {
    if y >= x { return z; }
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}
fn noisy(n: int) -> int {
    if n < 1 { return 0; }
    print(n);
    calls += 1;
    return noisy(n - 1) + noisy(n - 2) + 1;
}
fn multi(n: int, m: int) -> int {
    if n < 0 { return -1; }
    if m > n { return m - n; }
    if n % 3 == 0 { return n / 3 + multi(n - 1, m); }
    return multi(n - 2, m + 1) * 2;
}
fn looped(n: int) -> int {
    if n < 4 {
        var s = 0;
        for i in 0..n + 1 { s += i * i; }
        return s;
    }
    return looped(n - 1) + looped(n - 3);
}
fn count(n: int, acc: [int]) {
    if n <= 0 { return; }
    push(acc, n);
    count(n - 1, acc);
    count(n - 2, acc);
}
fn half(x: float, n: int) -> float {
    if n == 0 { return x; }
    return half(x * 0.5, n - 1) + half(x, n - 1) * 0.25;
}
fn parity(n: int) -> bool {
    if n <= 1 { return n == 1; }
    return !parity(n - 1);
}
fn total(a: [int], i: int) -> int {
    if i >= len(a) { return 0; }
    if a[i] < 0 { return a[i]; }
    return a[i] + total(a, i + 1) + total(a, i + 2);
}
fn capped(n: int) -> int {
    if n < limit { return n * 10; }
    return capped(n - 1) + capped(n - 2);
}
print(fib(20));
print(tak(18, 12, 6));
print(noisy(5));
print(calls);
print(multi(30, 0));
print(multi(7, 9));
print(looped(12));
var acc = [0];
count(6, acc);
print(acc);
print(half(1.0, 6));
print(parity(101));
print(parity(50));
print(total([1, 2, 3, 4, 5, 6, 7], 0));
print(total([1, 2, -3, 4], 0));
print(capped(10));
limit = 5;
print(capped(10));
