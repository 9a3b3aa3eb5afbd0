// exit: 2
// stderr: runtime error: out of memory
// stderr: runtime-errors/out_of_memory.wdl:6:9
// An allocation the host cannot satisfy is a runtime error, not a crash.
print("allocating");
let a = [0; 1000000000000];
print(len(a));
