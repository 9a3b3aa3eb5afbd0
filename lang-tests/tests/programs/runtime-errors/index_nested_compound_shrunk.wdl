// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_nested_compound_shrunk.wdl:15:5
// `m[i][j] op= e` where `e` pops the row `m[i]`: the row is loaded and
// checked first, then `e` runs, then the store into the row is checked
// again at its `[`.
var m = [[1, 2], [3, 4, 5]];
fn take(r: [int]) -> int {
    let x = pop(r);
    print(x);
    return x;
}
m[1][1] *= take(m[1]);
print(m);
m[1][1] -= take(m[1]);
print(m);
