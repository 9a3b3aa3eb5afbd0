// exit: 1
// stderr: undefined variable `y`
// stderr: compile-errors/own_initializer.wdl:6:13
// A new binding is visible only after its initializer.
fn f() {
    let y = y + 1;
}
