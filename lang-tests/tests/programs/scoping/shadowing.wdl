// Blocks open scopes; shadowing with a new let/var is allowed.
let x = 1;
{
    let x = x + 1;
    print(x);
    {
        let x = x * 10;
        print(x);
    }
    print(x);
}
print(x);
var y = "outer";
{
    var y = 5;
    y += 1;
    print(y);
}
print(y);
fn f(p: int) -> int {
    let p = p * 2;
    {
        let p = p + 1;
        return p;
    }
}
print(f(10));
fn g(p: int) -> int {
    var p = p;
    p += 100;
    return p;
}
print(g(1));
if true {
    let x = "in if";
    print(x);
} else {
    let x = 0;
    print(x);
}
print(x);
