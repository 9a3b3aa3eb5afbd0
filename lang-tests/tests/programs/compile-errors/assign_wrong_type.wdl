// exit: 1
// stderr: mismatched types
// stderr: compile-errors/assign_wrong_type.wdl:5:
var a = 1;
a = "one";
