// exit: 1
// stderr: error
// stderr: compile-errors/bad_underscore_prefix.wdl:4:9
let a = 0x_1;
