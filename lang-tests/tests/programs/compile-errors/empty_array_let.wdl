// exit: 1
// stderr: cannot infer the type of an empty array literal
// stderr: compile-errors/empty_array_let.wdl:4:9
let x = [];
