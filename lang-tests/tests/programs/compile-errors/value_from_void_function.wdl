// exit: 1
// stderr: has no result type but returns a value
// stderr: compile-errors/value_from_void_function.wdl:5:
fn f() {
    return 1;
}
