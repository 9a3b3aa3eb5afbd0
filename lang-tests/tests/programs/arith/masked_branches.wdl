// Branches on `x % 2^k == 0` and `x & m != 0` (the interpreter tests the low
// bits with one op), on negative values and the ends of the int range.
// Expected output from an independent Python version.
fn classify(x: int) -> int {
    var r = 0;
    if x % 2 == 0 { r += 1; }
    if x % 8 != 0 { r += 10; }
    if 0 == x % 1073741824 { r += 100; }
    if x & 6 != 0 { r += 1000; }
    if 0 != x & -8 { r += 10000; }
    let m = x % 4;
    if m == 0 { r += 100000 + m; }
    return r;
}

let min = -9223372036854775807 - 1;
let max = 9223372036854775807;
let values = [0, 1, -1, 2, -2, 6, -6, 8, -8, 12, -12, 1073741824, -1073741824, min, max, min + 1, max - 1];
var total = 0;
for i in 0..len(values) {
    let c = classify(values[i]);
    print(c);
    total += c;
}
var evens = 0;
var x = -1000;
while x < 1000 {
    if x % 2 == 0 { evens += 1; }
    if x & 3 == 0 { evens += 100; }
    x += 3;
}
print(total);
print(evens);
