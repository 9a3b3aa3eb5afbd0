// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_bool_at_len.wdl:6:22
// One-byte bool elements: the last index reads, index len traps.
fn set_all(a: [bool], n: int) {
    for i in 0..n { a[i] = true; }
}
let a = [false; 9];
set_all(a, 9);
print(a[8]);
set_all(a, 10);
print(a);
