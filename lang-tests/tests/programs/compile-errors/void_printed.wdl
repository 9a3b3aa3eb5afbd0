// exit: 1
// stderr: `void` is not a value
// stderr: compile-errors/void_printed.wdl:5:
fn nothing() -> void {}
print(nothing());
