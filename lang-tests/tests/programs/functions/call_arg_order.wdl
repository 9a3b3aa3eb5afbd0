// Call arguments are evaluated left to right (also for builtins).
var trace = "";
fn t(k: int) -> int { trace += str(k); return k; }
fn three(a: int, b: int, c: int) -> int { return a * 100 + b * 10 + c; }
print(three(t(1), t(2), t(3)));
print(trace);
trace = "";
print(min(t(5), t(4)));
print(trace);
trace = "";
print([t(7), t(8), t(9)]);
print(trace);
trace = "";
print(t(1) - t(2) * t(3));
print(trace);
trace = "";
let xs = [10, 20, 30];
print(xs[t(2)] + xs[t(0)]);
print(trace);
