// exit: 1
// stderr: `void` is not a value
// stderr: compile-errors/void_passed_or_stored.wdl:7:
// stderr: compile-errors/void_passed_or_stored.wdl:8:
fn nothing() {}
fn take(x: int) {}
take(nothing());
let xs = [nothing()];
