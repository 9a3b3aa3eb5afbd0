// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/div_assign_zero.wdl:8:3
var x = 100;
var z = 5;
x /= z;
print(x);
z /= 0;
print(z);
