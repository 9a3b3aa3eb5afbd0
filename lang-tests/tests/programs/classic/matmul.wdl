// Matrix multiplication with nested arrays.
fn matgen(n: int, seed: float) -> [[float]] {
    let tmp = seed / float(n) / float(n);
    var m = [[0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = tmp * float(i - j) * float(i + j);
        }
    }
    return m;
}
fn matmul(a: [[float]], b: [[float]]) -> [[float]] {
    let n = len(a);
    let p = len(b[0]);
    var c = [[0.0; p]; n];
    for i in 0..n {
        for k in 0..len(b) {
            let aik = a[i][k];
            for j in 0..p { c[i][j] += aik * b[k][j]; }
        }
    }
    return c;
}
let n = 30;
let a = matgen(n, 1.0);
let b = matgen(n, 2.0);
let c = matmul(a, b);
print(c[n / 2][n / 2]);
print(c[0][n - 1]);
let ia = [[1, 2], [3, 4]];
var ic = [[0; 2]; 2];
for i in 0..2 { for j in 0..2 { for k in 0..2 { ic[i][j] += ia[i][k] * ia[k][j]; } } }
print(ic);
