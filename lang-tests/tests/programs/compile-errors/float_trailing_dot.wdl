// exit: 1
// stderr: error
// stderr: compile-errors/float_trailing_dot.wdl:5:9
// `1.` is not a literal.
let a = 1.;
