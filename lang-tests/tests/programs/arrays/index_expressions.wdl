// Index expressions can be any int expression; arrays can be returned and indexed.
fn make(n: int) -> [int] {
    var out: [int] = [];
    for i in 0..n { push(out, i * 10); }
    return out;
}
print(make(5)[3]);
let a = make(6);
print(a[a[1] / 10 + 1]);
print(a[len(a) - 1]);
let m = [make(2), make(3)];
print(m[1][2]);
print([[1, 2], [3, 4]][1][0]);
print([5; 3][2]);
