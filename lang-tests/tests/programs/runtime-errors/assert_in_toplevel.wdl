// exit: 2
// stderr: runtime error: assertion failed
// stderr: runtime-errors/assert_in_toplevel.wdl:6:11
let xs = [3, 1, 2];
print("checking");
if true { assert(xs[0] < xs[1]); }
