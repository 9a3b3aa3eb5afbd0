// A hot top-level loop: under `auto` it starts on the interpreter and
// continues in compiled code at its header (on-stack replacement) with
// live values of every type, loop-carried and defined before the loop.
let words = ["ab", "cd", "ef"];
let step = 0.25;
let limit = 3000;
var rows: [[int]] = [];
for r in 0..5 { push(rows, [r, r * r]); }
var i = 0;
var f = 1.0;
var on = true;
var s = "";
var picked: [int] = [];
var inner = 0;
while i < limit {
    f = f * 0.999 + step;
    on = !on;
    if on && i % 500 == 1 { s = s + words[i % 3]; }
    if i % 401 == 0 { push(picked, rows[i % 5][1] + i); }
    for j in 0..(i % 4) { inner += j; }
    i += 1;
}
print(i);
print(f);
print(on);
print(s);
print(picked);
print(inner);
print(len(rows));
// A loop nested in a hot outer loop, where the entry happens at the next
// outer back edge.
var total = 0;
for a in 0..40 {
    for b in 0..200 {
        total += (a * b) % 13;
    }
}
print(total);
