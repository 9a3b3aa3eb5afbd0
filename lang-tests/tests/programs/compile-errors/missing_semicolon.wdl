// exit: 1
// stderr: error
// stderr: compile-errors/missing_semicolon.wdl:
let x = 1
print(x);
