// while loops, including ones that never run.
var i = 0;
while i < 5 {
    print(i);
    i += 1;
}
while false { print("never"); }
var n = 27;
var steps = 0;
while n != 1 {
    if n % 2 == 0 { n = n / 2; } else { n = 3 * n + 1; }
    steps += 1;
}
print(steps);
var k = 10;
while true {
    k -= 3;
    if k < 0 { break; }
}
print(k);
