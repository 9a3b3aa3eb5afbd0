// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_nested.wdl:6:11
let m = [[1, 2], [3]];
print(m[0][1]);
print(m[1][1]);
