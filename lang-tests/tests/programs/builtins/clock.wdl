// clock() returns a float (its value is not deterministic).
let t0 = clock();
var acc = 0;
for i in 0..1000 { acc += i; }
let t1: float = clock();
print(t1 >= t0);
print(t0 == t0);
print(acc);
