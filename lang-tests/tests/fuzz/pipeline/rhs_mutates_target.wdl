// `a[i] op= e`, `push(a, e)` and `x = x + e` where `e` changes the target
// through an alias: evaluation is left to right (LANGUAGE.md detail 2), and
// a store that is still in bounds after `e` lands where `e` left the array.
fn grow(a: [int]) -> int { push(a, 7); push(a, 8); return 100; }
fn pop2(a: [int]) -> int { let x = pop(a); let y = pop(a); return x + y; }
var a = [1, 2, 3, 4];
a[0] += grow(a);
print(a);
a[1] += pop2(a);
print(a);
push(a, pop2(a));
print(a);
var s = "x";
fn bump(t: str) -> str { s = s + t; return t; }
s = s + bump("y");
print(s);
var b: [[int]] = [[1], [2]];
fn swap_rows(m: [[int]]) -> int { let r = pop(m); push(m, [9, 9, 9]); return len(r); }
let old = b[1];
b[1][0] += swap_rows(b);
print(b);
print(old);
