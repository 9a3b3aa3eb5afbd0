// exit: 1
// stderr: error
// stderr: compile-errors/wrong_arg_count.wdl:5:
fn add(a: int, b: int) -> int { return a + b; }
print(add(1));
