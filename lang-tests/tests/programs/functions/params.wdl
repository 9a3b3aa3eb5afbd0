// Parameters of every type; arrays passed by reference; many parameters.
fn describe(i: int, f: float, b: bool, s: str, a: [int], m: [[str]]) -> str {
    return str(i) + " " + str(f) + " " + str(b) + " " + s + " " + str(a) + " " + str(m);
}
print(describe(1, 2.5, true, "s", [3, 4], [["x"], []]));
fn sum8(a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int) -> int {
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}
print(sum8(1, 1, 1, 1, 1, 1, 1, 1));
print(sum8(8, 7, 6, 5, 4, 3, 2, 1));
fn fmix(a: float, b: int, c: float, d: int, e: float) -> float {
    return a * float(b) + c * float(d) + e;
}
print(fmix(1.5, 2, 0.25, 4, 0.125));
fn push_twice(xs: [int], v: int) {
    push(xs, v);
    push(xs, v);
}
let xs = [0];
push_twice(xs, 9);
print(xs);
