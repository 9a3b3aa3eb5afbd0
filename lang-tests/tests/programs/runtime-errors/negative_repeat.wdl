// exit: 2
// stderr: runtime error: negative array length
// stderr: runtime-errors/negative_repeat.wdl:7:9
fn v() -> int { print("value first"); return 0; }
let n = 2 - 3;
print([v(); 0]);
let a = [v(); n];
