// exit: 1
// stderr: undefined variable `f`
// stderr: compile-errors/function_as_value.wdl:6:9
// Functions and variables live in separate namespaces.
fn f() -> int { return 1; }
let g = f;
