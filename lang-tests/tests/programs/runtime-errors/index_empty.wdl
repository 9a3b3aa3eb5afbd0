// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_empty.wdl:5:14
let e: [int] = [];
let v = 1 + e[0];
