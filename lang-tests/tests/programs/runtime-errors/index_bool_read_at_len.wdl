// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_bool_read_at_len.wdl:12:8
// Reading a bool array at its length traps, also after growth by push.
let a = [true; 8];
push(a, false);
var s = 0;
for i in 0..9 {
    if a[i] { s += 1; }
}
print(s);
print(a[len(a)]);
