// if / else if / else chains.
fn classify(n: int) -> str {
    if n < 0 {
        return "negative";
    } else if n == 0 {
        return "zero";
    } else if n < 10 {
        return "small";
    } else {
        return "large";
    }
}
print(classify(-5));
print(classify(0));
print(classify(7));
print(classify(100));
var x = 3;
if x > 2 { x = 10; }
print(x);
if x > 100 { x = 0; } else { x += 1; }
print(x);
if false { print("no"); }
if true { print("yes"); } else { print("no"); }
let b = x == 11;
if b { print("b"); }
if !b { print("not b"); } else if b && x > 5 { print("b and big"); }
