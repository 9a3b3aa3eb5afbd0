// `x op= e` reads x before evaluating e (docs/language.md "Evaluation order").
var x = 10;
fn bump() -> int { x = 1000; return 1; }
x += bump();
print(x);
var s = "a";
fn grow() -> str { s = "zzz"; return "b"; }
s += grow();
print(s);
let a = [5];
fn clobber() -> int { a[0] = 500; return 2; }
a[0] *= clobber();
print(a);
