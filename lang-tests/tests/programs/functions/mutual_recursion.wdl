// Mutually recursive functions, declared in either order.
fn is_even(n: int) -> bool {
    if n == 0 { return true; }
    return is_odd(n - 1);
}
fn is_odd(n: int) -> bool {
    if n == 0 { return false; }
    return is_even(n - 1);
}
print(is_even(10));
print(is_odd(7));
print(is_even(7));
fn hofstadter_f(n: int) -> int {
    if n == 0 { return 1; }
    return n - hofstadter_m(hofstadter_f(n - 1));
}
fn hofstadter_m(n: int) -> int {
    if n == 0 { return 0; }
    return n - hofstadter_f(hofstadter_m(n - 1));
}
var fs = "";
for i in 0..15 { fs += str(hofstadter_f(i)) + " "; }
print(fs);
