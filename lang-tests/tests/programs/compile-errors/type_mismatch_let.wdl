// exit: 1
// stderr: mismatched types
// stderr: compile-errors/type_mismatch_let.wdl:4:
let x: int = 1.5;
