// One hot `while` loop run once: under `auto` it starts on the
// interpreter and continues in compiled code by on-stack replacement
// (the typical case: a program's top-level loop, a kernel called once).
// bench: quick=100000
fn main(n: int) {
    var i = 0;
    var t = 0;
    while i < n {
        t = t + (i ^ (i >> 3)) % 7;
        i += 1;
    }
    print(t);
}

main(200_000_000);
