// exit: 1
// stderr: cannot assign to immutable binding
// stderr: compile-errors/assign_to_let.wdl:5:
let x = 1;
x = 2;
