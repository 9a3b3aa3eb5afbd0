// An empty array literal takes its type from context.
var a: [int] = [];
print(a);
a = [];
print(len(a));
fn count(xs: [str]) -> int { return len(xs); }
print(count([]));
fn fresh() -> [float] { return []; }
print(fresh());
var nested: [[bool]] = [];
push(nested, []);
push(nested, [true]);
print(nested);
print([[1], []]);
print([[], [[2.5]]]);
let e: [[int]] = [[]; 2];
print(e);
