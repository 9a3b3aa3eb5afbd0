// exit: 1
// stderr: integer literal is too large
// stderr: compile-errors/hex_literal_overflow.wdl:4:9
let h = 0x8000_0000_0000_0000;
