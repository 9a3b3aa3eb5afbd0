// exit: 1
// stderr: comparison operators cannot be chained
// stderr: compile-errors/chained_comparison.wdl:5:
let a = 1; let b = 2; let c = 3;
print(a < b < c);
