// Allocates a 100 000-element array 20 000 times (16 GB in total);
// garbage collection must keep memory bounded.
var total = 0;
for i in 0..20000 {
    let a = [0; 100000];
    a[i % 100000] = i;
    a[99999] = 1;
    total += a[i % 100000] + a[99999];
}
print(total);
var s = "";
for i in 0..20000 {
    s = str(i) + "-" + str(i);
}
print(s);
