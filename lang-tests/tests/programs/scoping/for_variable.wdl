// A for variable lives in a scope around the loop body.
let i = 99;
for i in 0..3 {
    let i = i * 10;
    print(i);
}
print(i);
for k in 0..2 {
    for k in 5..7 {
        print(k);
    }
    print(k);
}
var n = 0;
for j in 0..3 { n += j; }
let j = "after";
print(j);
print(n);
