// exit: 1
// stderr: cannot infer the type of global
// stderr: compile-errors/cyclic_global.wdl:
let a = b;
let b = a;
