// exit: 1
// stderr: cannot be applied to type
// stderr: compile-errors/unary_wrong_type.wdl:4:
print(!5);
