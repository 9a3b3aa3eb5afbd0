// exit: 1
// stderr: `void` is not a value
// stderr: compile-errors/void_bound.wdl:5:
fn nothing() {}
let v = nothing();
