// exit: 1
// stderr: function `f` is already defined
// stderr: compile-errors/duplicate_function.wdl:5:
fn f() -> int { return 1; }
fn f() -> int { return 2; }
