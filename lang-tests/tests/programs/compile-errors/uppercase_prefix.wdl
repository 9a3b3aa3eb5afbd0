// exit: 1
// stderr: error
// stderr: compile-errors/uppercase_prefix.wdl:5:9
// Only lowercase `0x` and `0b` prefixes exist.
let a = 0XFF;
