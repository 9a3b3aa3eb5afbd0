// exit: 1
// stderr: comparison operators cannot be chained
// stderr: compile-errors/chained_equality.wdl:5:
let a = true;
if a == a == true { print(1); }
