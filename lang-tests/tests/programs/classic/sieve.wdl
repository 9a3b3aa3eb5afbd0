// Sieve of Eratosthenes.
fn sieve(n: int) -> [bool] {
    var is_prime = [true; n + 1];
    is_prime[0] = false;
    is_prime[1] = false;
    var i = 2;
    while i * i <= n {
        if is_prime[i] {
            var j = i * i;
            while j <= n { is_prime[j] = false; j += i; }
        }
        i += 1;
    }
    return is_prime;
}
let p = sieve(10000);
var count = 0;
var last = 0;
for k in 0..len(p) {
    if p[k] { count += 1; last = k; }
}
print(count);
print(last);
var first: [int] = [];
for k in 0..50 { if p[k] { push(first, k); } }
print(first);
