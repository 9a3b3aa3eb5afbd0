// exit: 1
// stderr: invalid suffix
// stderr: compile-errors/bad_suffix.wdl:4:9
let a = 12abc;
