// A repeat literal evaluates VALUE once, before COUNT, even when COUNT is 0.
var log = "";
fn v() -> int { log += "v"; return 7; }
fn c(k: int) -> int { log += "c"; return k; }
let a = [v(); c(3)];
print(a);
print(log);
log = "";
let b = [v(); c(0)];
print(len(b));
print(log);
fn row() -> [int] { log += "r"; return [1, 2]; }
log = "";
let m = [row(); c(2)];
m[0][0] = 5;
print(m);
print(log);
