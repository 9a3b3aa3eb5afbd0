// `+ - *`, unary `-` and `<<` wrap on overflow.
let max = 9223372036854775807;
let min = -max - 1;
print(max + 1);
print(min - 1);
print(max * 2);
print(max * max);
print(min * -1);
print(-min);
print(min + min);
print(1 << 63);
print(3 << 62);
print(0x4000_0000_0000_0000 * 4);
var x = max;
x += 10;
print(x);
x -= 20;
print(x);
x *= 3;
print(x);
var f = 1;
for i in 0..25 { f *= 21; }
print(f);
