// exit: 1
// stderr: mismatched types: expected `int`
// stderr: compile-errors/non_int_repeat_count.wdl:4:
let a = [0; 2.0];
