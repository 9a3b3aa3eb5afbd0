// Euclid's gcd (recursive and iterative) and lcm.
fn gcd(a: int, b: int) -> int {
    if b == 0 { return abs(a); }
    return gcd(b, a % b);
}
fn gcd_iter(a: int, b: int) -> int {
    var x = a;
    var y = b;
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    return abs(x);
}
fn lcm(a: int, b: int) -> int { return a / gcd(a, b) * b; }
print(gcd(48, 18));
print(gcd(-48, 18));
print(gcd_iter(1071, 462));
print(gcd(17, 5));
print(gcd(0, 9));
print(lcm(4, 6));
var l = 1;
for i in 1..21 { l = lcm(l, i); }
print(l);
