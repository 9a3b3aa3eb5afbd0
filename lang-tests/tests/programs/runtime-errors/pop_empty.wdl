// exit: 2
// stderr: runtime error: pop from empty array
// stderr: runtime-errors/pop_empty.wdl:8:9
var xs = [1];
print(pop(xs));
print(xs);
let y =
    1 + pop(xs);
