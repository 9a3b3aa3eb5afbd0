// FizzBuzz and a string-reversal, built in strings and arrays.
var out = "";
for i in 1..31 {
    if i % 15 == 0 { out += "FizzBuzz"; }
    else if i % 3 == 0 { out += "Fizz"; }
    else if i % 5 == 0 { out += "Buzz"; }
    else { out += str(i); }
    out += " ";
}
print(out);
fn digits(n: int) -> [int] {
    var ds: [int] = [];
    var m = n;
    if m == 0 { push(ds, 0); }
    while m > 0 { push(ds, m % 10); m /= 10; }
    return ds;
}
fn rev_digits(n: int) -> str {
    let ds = digits(n);
    var s = "";
    for i in 0..len(ds) { s += str(ds[i]); }
    return s;
}
print(rev_digits(1234567890));
print(rev_digits(0));
var table: [str] = [];
for i in 1..4 {
    var row = "";
    for j in 1..4 { row += str(i * j) + "\t"; }
    push(table, row);
}
print(table);
