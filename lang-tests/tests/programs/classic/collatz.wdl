// Longest Collatz chain below a bound.
fn steps(start: int) -> int {
    var n = start;
    var s = 0;
    while n != 1 {
        if n % 2 == 0 { n /= 2; } else { n = 3 * n + 1; }
        s += 1;
    }
    return s;
}
var best = 0;
var best_n = 0;
for n in 1..10000 {
    let s = steps(n);
    if s > best { best = s; best_n = n; }
}
print(best_n);
print(best);
print(steps(27));
