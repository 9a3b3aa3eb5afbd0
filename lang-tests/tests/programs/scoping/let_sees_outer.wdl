// A new binding is visible only after its initializer.
var total = 10;
fn f() -> int {
    let total = total + 1;
    return total;
}
print(f());
{
    let total = total * 2;
    print(total);
}
let s = "ab";
{
    let s = s + s;
    {
        let s = s + "!";
        print(s);
    }
    print(s);
}
print(s);
