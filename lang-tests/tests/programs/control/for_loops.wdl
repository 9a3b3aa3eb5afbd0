// for NAME in LO..HI: LO and HI evaluated once, in order, before the loop.
for i in 0..3 { print(i); }
for i in 5..5 { print("never"); }
for i in 5..2 { print("never"); }
for i in -2..1 { print(i); }
var hi = 3;
var iters = 0;
for i in 0..hi {
    hi += 10;
    iters += 1;
}
print(iters);
print(hi);
var order = "";
fn lo() -> int { order += "L"; return 1; }
fn h() -> int { order += "H"; return 4; }
var sum = 0;
for i in lo()..h() { sum += i; }
print(sum);
print(order);
var total = 0;
for i in 0..10 {
    for j in i..10 {
        total += 1;
    }
}
print(total);
