// exit: 1
// stderr: cannot define a function named `len`: it is a builtin function
// stderr: compile-errors/builtin_redefined.wdl:4:
fn len(x: int) -> int { return x; }
