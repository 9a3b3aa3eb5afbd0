// exit: 1
// stderr: mismatched types
// stderr: compile-errors/mixed_array_literal.wdl:4:
let a = [1, 2.0];
