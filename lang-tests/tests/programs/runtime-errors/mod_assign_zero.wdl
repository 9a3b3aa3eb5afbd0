// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/mod_assign_zero.wdl:6:16
let a = [7, 8];
a[0] %= 3;
print(a); a[1] %= a[0] - 1;
