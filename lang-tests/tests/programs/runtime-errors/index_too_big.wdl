// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_too_big.wdl:5:14
fn get(xs: [int], i: int) -> int {
    return xs[i];
}
let xs = [1, 2, 3];
print(get(xs, 2));
print(get(xs, len(xs)));
