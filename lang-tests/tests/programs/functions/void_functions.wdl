// Functions without a result type, `-> void`, and bare `return;`.
fn greet(name: str) {
    print("hi " + name);
}
fn greet2(name: str) -> void {
    if name == "" { return; }
    print("hello " + name);
    return;
}
fn nothing() {}
greet("a");
greet2("");
greet2("b");
nothing();
var counter = 0;
fn inc() { counter += 1; }
for i in 0..5 { inc(); }
print(counter);
