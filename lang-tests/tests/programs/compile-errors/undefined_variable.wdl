// exit: 1
// stderr: undefined variable `y`
// stderr: compile-errors/undefined_variable.wdl:5:11
let x = 1;
print(x + y);
