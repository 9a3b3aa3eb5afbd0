// Dense n×n float matrix multiplication (i-k-j order) on nested arrays.
// Entries are small integers, so every sum is exact; prints the trace
// and a weighted sum of the product.
// bench: quick=12
fn main(n: int) {
    var a = [[0.0; n]; n];
    var b = [[0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            a[i][j] = float((i * j) % 7 - 3);
            b[i][j] = float((i + 2 * j) % 5 - 2);
        }
    }
    var c = [[0.0; n]; n];
    for i in 0..n {
        let ai = a[i];
        let ci = c[i];
        for k in 0..n {
            let aik = ai[k];
            let bk = b[k];
            for j in 0..n {
                ci[j] += aik * bk[j];
            }
        }
    }
    var trace = 0.0;
    var sum = 0.0;
    for i in 0..n {
        trace += c[i][i];
        for j in 0..n {
            sum += c[i][j] * float(j % 3 + 1);
        }
    }
    print(int(trace));
    print(int(sum));
}

main(748);
