// exit: 2
// stderr: runtime error: index out of bounds
// stderr: runtime-errors/index_versioned_loop.wdl:11:22
// A counted loop whose bound passes the length of one of its arrays: the
// optimizer's check-free copy of the loop must not run, and the trap comes
// at the same iteration, after the same output, on every tier.
fn axpy(c: [float], b: [float], x: float, n: int) {
    for j in 0..n {
        print(j);
        c[j] += x;
        c[j] += x * b[j];
    }
}
var c = [1.0, 2.0, 3.0, 4.0];
var b = [1.0, 1.0, 1.0];
axpy(c, b, 2.0, 3);
print(c);
axpy(c, b, 2.0, 0);
axpy(c, b, 2.0, -5);
print(c);
axpy(c, b, 2.0, 4);
print("not reached");
