// exit: 1
// stderr: integer literal is too large
// stderr: compile-errors/min_literal_overflow.wdl:5:10
// `-9223372036854775808` is `-(9223372036854775808)`: the literal overflows.
let m = -9223372036854775808;
