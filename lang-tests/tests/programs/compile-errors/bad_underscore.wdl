// exit: 1
// stderr: error
// stderr: compile-errors/bad_underscore.wdl:5:9
// `_` may stand only between digits.
let a = 1_;
