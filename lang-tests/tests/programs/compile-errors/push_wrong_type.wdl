// exit: 1
// stderr: mismatched types
// stderr: compile-errors/push_wrong_type.wdl:5:
var xs = [1, 2];
push(xs, "three");
