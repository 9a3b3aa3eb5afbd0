// exit: 1
// stderr: unexpected character
// stderr: compile-errors/unexpected_character.wdl:4:11
let x = 1 @ 2;
