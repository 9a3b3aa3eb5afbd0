// Arrays are reference values: assignment and passing share, not copy.
let a = [1, 2, 3];
let b = a;
push(b, 4);
b[0] = 100;
print(a);
fn fill(xs: [int], v: int) {
    for i in 0..len(xs) { xs[i] = v; }
}
fill(a, 9);
print(b);
var m = [[0, 0], [0, 0]];
let row = m[1];
row[0] = 5;
print(m);
var c = [1];
let d = c;
c = [2];
print(d);
print(c);
let outer = [a, a];
outer[0][1] = 7;
print(outer);
print(a);
