// exit: 1
// stderr: cannot be applied to type `float`
// stderr: compile-errors/shift_float.wdl:4:
print(1.5 << 2);
