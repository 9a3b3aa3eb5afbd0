// Small functions calling small functions, in a loop and outside it, and
// a small function around one with a loop: the optimizer inlines them
// through every level (callees first); every tier prints the same.
fn sq(x: int) -> int { return x * x; }
fn sum_sq(a: int, b: int) -> int { return sq(a) + sq(b); }
fn dist(a: int, b: int, c: int) -> int { return sum_sq(a, b) + sq(c) % 7; }
fn total(n: int) -> int {
    var s = 0;
    for i in 0..n { s += dist(i, i + 1, i + 2); }
    return s;
}
fn count_to(n: int) -> int { var k = 0; while k < n { k += 1; } return k; }
fn wrapped(n: int) -> int { return count_to(n) + count_to(n / 2); }
print(total(10));
print(wrapped(9));
print(dist(-3, 4, 5));
