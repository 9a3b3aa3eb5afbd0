// exit: 1
// stderr: error
// stderr: compile-errors/void_parameter.wdl:4:
fn f(x: void) {}
