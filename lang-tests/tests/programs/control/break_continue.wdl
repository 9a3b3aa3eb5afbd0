// break and continue act on the innermost loop.
for i in 0..10 {
    if i == 2 { continue; }
    if i == 5 { break; }
    print(i);
}
var out = "";
for i in 0..4 {
    for j in 0..4 {
        if j > i { break; }
        if j == 1 { continue; }
        out += str(i) + str(j) + " ";
    }
}
print(out);
var n = 0;
var evens = 0;
while n < 20 {
    n += 1;
    if n % 2 == 1 { continue; }
    evens += 1;
}
print(evens);
var w = 0;
while true {
    w += 1;
    var inner = 0;
    while true {
        inner += 1;
        if inner == 3 { break; }
    }
    if w == 4 { break; }
}
print(w);
