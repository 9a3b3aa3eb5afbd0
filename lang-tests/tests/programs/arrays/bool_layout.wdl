// Bool arrays (one byte per element in every tier): lengths around the
// word size, neighbours that must not be disturbed, push/pop across
// growth, nesting, repeat copies, globals, and survival across collections.
fn checksum(a: [bool]) -> int {
    var s = 0;
    for i in 0..len(a) {
        if a[i] { s = s * 3 + i + 1; } else { s = s * 2 % 1000003; }
        s = s % 1000003;
    }
    return s;
}

fn flip(a: [bool], i: int) {
    a[i] = !a[i];
}

fn make(n: int, every: int) -> [bool] {
    let a = [false; n];
    for i in 0..n {
        if i % every == 0 { a[i] = true; }
    }
    return a;
}

var g: [bool] = [];

let sizes = [0, 1, 7, 8, 9, 15, 16, 17, 1000];
for k in 0..len(sizes) {
    let n = sizes[k];
    let t = [true; n];
    let f = [false; n];
    let m = make(n, 3);
    var trues = 0;
    for i in 0..n {
        if t[i] { trues += 1; }
        if f[i] { trues += 100000; }
    }
    print(str(n) + " " + str(len(t)) + " " + str(len(f)) + " " + str(trues) + " " + str(checksum(m)));
}

// Writing one element leaves its neighbours alone.
let w = [false; 9];
w[0] = true;
w[8] = true;
w[4] = true;
print(w);
flip(w, 4);
flip(w, 3);
print(w);
w[3] = false;
print(w);

// Literals, printing, str().
let lit = [true, false, true, true, false, false, false, true, true];
print(lit);
print(str(lit));
print(len(lit));
print([true]);
let none: [bool] = [];
print(none);

// push and pop across capacity growth.
let p: [bool] = [];
for i in 0..37 { push(p, i % 5 == 1 || i % 7 == 0); }
print(len(p));
print(p);
var popped = "";
while len(p) > 30 {
    if pop(p) { popped = popped + "T"; } else { popped = popped + "F"; }
}
print(popped);
print(p);
push(p, true);
print(p[30]);

// Nested bool arrays: repeat copies are deep, rows are independent.
let grid = [[false; 9]; 3];
grid[1][8] = true;
grid[2][0] = true;
print(grid);
let rows = [[true, false], [false], []];
push(rows[2], true);
push(rows, [false, false, true]);
print(rows);
print(len(rows[3]));
let cube = [[[false; 2]; 2]; 2];
cube[1][1][1] = true;
print(cube);

// A global bool array.
for i in 0..10 { push(g, i % 3 == 0); }
g[9] = true;
print(g);

// Bool arrays stay intact while garbage is collected around them.
let keep = make(1000, 7);
let before = checksum(keep);
var junk = 0;
for r in 0..300 {
    let tmp = [r % 2 == 0; 5000];
    let tmp2 = [[true; 10]; 50];
    junk = junk + len(tmp) + len(tmp2[r % 50]);
    keep[r] = !keep[r];
    keep[r] = !keep[r];
}
print(junk);
print(checksum(keep) == before);
print(checksum(keep));
