// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_negative.wdl:7:9
let xs = [1, 2, 3];
print(xs[0]);
let i = -1;
print(xs[i]);
