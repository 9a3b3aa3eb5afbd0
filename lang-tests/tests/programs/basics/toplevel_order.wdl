// Top-level statements run in order, interleaved with declarations.
print("first");
fn f() { print("in f"); }
print("second");
f();
var x = 1;
print(x);
x = 2;
f();
print(x);
