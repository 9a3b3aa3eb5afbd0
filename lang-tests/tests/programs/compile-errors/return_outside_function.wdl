// exit: 1
// stderr: `return` outside of a function
// stderr: compile-errors/return_outside_function.wdl:5:
print(1);
return;
