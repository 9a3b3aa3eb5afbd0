// Chains of small functions that inline into chains of constant additions
// (the `reassoc` pass folds them into one per value), wrapping at the ends
// of the int range; a link that another expression also reads keeps its
// value. Expected output from an independent Python version.
fn f0(x: int) -> int { return x; }
fn f1(x: int) -> int { return f0(x) + 1; }
fn f2(x: int) -> int { return f1(x) - 3; }
fn f3(x: int) -> int { return f2(x) + 9223372036854775807; }
fn f4(x: int) -> int { return f3(x) + 5; }
fn f5(x: int) -> int { return 2 + f4(x); }
fn shared(x: int) -> int {
    let a = x + 7;
    let b = a - 2;
    return a * 3 + b;
}

let min = -9223372036854775807 - 1;
let max = 9223372036854775807;
let xs = [0, 1, -1, 100, min, max, min + 3, max - 3];
for i in 0..len(xs) {
    let x = xs[i];
    print(f1(x));
    print(f2(x));
    print(f5(x));
    print(shared(x));
}
