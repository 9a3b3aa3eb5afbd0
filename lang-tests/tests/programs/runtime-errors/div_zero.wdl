// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/div_zero.wdl:7:13
print("before");
let d = 0;
let n = 10;
print(n + n / d);
print("after");
