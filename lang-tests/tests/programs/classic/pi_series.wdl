// Leibniz series for pi and a float accumulation.
var sum = 0.0;
var sign = 1.0;
for k in 0..100000 {
    sum += sign / float(2 * k + 1);
    sign = -sign;
}
print(4.0 * sum);
var h = 0.0;
for k in 1..1001 { h += 1.0 / float(k); }
print(h);
print(floor(h * 1000.0) / 1000.0);
