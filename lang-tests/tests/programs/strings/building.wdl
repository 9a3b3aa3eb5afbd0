// Building strings in loops.
var line = "";
for i in 1..11 {
    if i > 1 { line += ","; }
    line += str(i * i);
}
print(line);
fn repeat(s: str, n: int) -> str {
    var out = "";
    for i in 0..n { out += s; }
    return out;
}
print(repeat("ab", 5));
print(len(repeat("xyz", 1000)));
var tri = "";
for row in 1..5 {
    tri += repeat("*", row) + "\n";
}
print(tri);
