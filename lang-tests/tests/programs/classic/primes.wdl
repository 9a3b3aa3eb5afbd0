// Trial-division primes, prime factorization, and a prime count.
fn is_prime(n: int) -> bool {
    if n < 2 { return false; }
    if n % 2 == 0 { return n == 2; }
    var d = 3;
    while d * d <= n {
        if n % d == 0 { return false; }
        d += 2;
    }
    return true;
}
fn factor(n: int) -> [int] {
    var out: [int] = [];
    var m = n;
    var d = 2;
    while d * d <= m {
        while m % d == 0 { push(out, d); m /= d; }
        d += 1;
    }
    if m > 1 { push(out, m); }
    return out;
}
var count = 0;
for n in 0..5000 { if is_prime(n) { count += 1; } }
print(count);
print(factor(360));
print(factor(9999991));
print(factor(600851475143));
print(is_prime(2147483647));
