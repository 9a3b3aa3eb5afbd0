// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_compound_order.wdl:10:2
// `a[i] op= e` checks bounds before evaluating e.
fn e() -> int { print("e evaluated"); return 1; }
fn i(k: int) -> int { print("i evaluated"); return k; }
var a = [10];
a[i(0)] += e();
print(a);
a[i(1)] += e();
