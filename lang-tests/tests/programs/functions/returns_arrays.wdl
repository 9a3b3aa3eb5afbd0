// Functions that create and return arrays and strings.
fn range(lo: int, hi: int) -> [int] {
    var out: [int] = [];
    for i in lo..hi { push(out, i); }
    return out;
}
fn map_sq(xs: [int]) -> [int] {
    var out = [0; len(xs)];
    for i in 0..len(xs) { out[i] = xs[i] * xs[i]; }
    return out;
}
fn reverse(xs: [int]) -> [int] {
    var out: [int] = [];
    var i = len(xs) - 1;
    while i >= 0 { push(out, xs[i]); i -= 1; }
    return out;
}
fn identity(m: [[int]]) -> [[int]] {
    return m;
}
print(map_sq(range(1, 6)));
print(reverse(range(0, 5)));
let m = [[1]];
let m2 = identity(m);
m2[0][0] = 2;
print(m);
fn join(xs: [str], sep: str) -> str {
    var out = "";
    for i in 0..len(xs) {
        if i > 0 { out += sep; }
        out += xs[i];
    }
    return out;
}
print(join(["a", "b", "c"], "-"));
print(join([], "-") == "");
