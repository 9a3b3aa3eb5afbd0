// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_write.wdl:9:2
// `a[i] = e` evaluates a, i and e before checking bounds.
fn e() -> int { print("e evaluated"); return 5; }
var a = [0, 0];
a[1] = e();
print(a);
a[2] = e();
print("unreachable");
