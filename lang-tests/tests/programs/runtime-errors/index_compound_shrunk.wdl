// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_compound_shrunk.wdl:17:6
// `a[i] op= e` where `e` empties the array: the store is checked again
// after `e` (docs/language.md "Evaluation order"), so it is an error at the `[`, and no
// tier stores past the length.
fn shrink(a: [int]) -> int {
    while len(a) > 0 { let x = pop(a); }
    return 5;
}
fn main0() {
    var c = [1, 2, 3];
    c[1] += len(c);
    print(c);
    push(c, 4);
    print(len(c));
    c[2] += shrink(c);
    print(c);
}
main0();
