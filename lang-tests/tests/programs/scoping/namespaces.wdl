// Functions and variables live in separate namespaces.
let a = [1, 2, 3];
let len = 3;
print(len(a) + len);
let print = "p";
print(print);
fn value() -> int { return 7; }
let value = 5;
print(value() + value);
var sqrt = 2.0;
sqrt = sqrt(sqrt);
print(sqrt);
fn scale(min: int, max: int) -> int { return max(min, max) - min(min, max); }
print(scale(3, 10));
