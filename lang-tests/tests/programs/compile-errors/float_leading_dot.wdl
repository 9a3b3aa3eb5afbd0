// exit: 1
// stderr: error
// stderr: compile-errors/float_leading_dot.wdl:5:9
// `.5` is not a literal.
let a = .5;
