// let/var inside a top-level block or loop are locals, not globals.
var x = 1;
fn read_x() -> int { return x; }
{
    let x = 100;
    print(x);
    print(read_x());
}
for i in 0..2 {
    var x = i + 50;
    x += 1;
    print(x);
    print(read_x());
}
while x < 3 {
    let y = x * 1000;
    print(y);
    x += 1;
}
print(read_x());
