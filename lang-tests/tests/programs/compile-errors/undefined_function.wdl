// exit: 1
// stderr: undefined function `frobnicate`
// stderr: compile-errors/undefined_function.wdl:4:7
print(frobnicate(1));
