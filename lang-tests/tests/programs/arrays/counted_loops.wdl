// Counted loops over arrays whose bound is not the array's length: the
// bounds checks are dropped only in the copy of the loop that runs when
// every index fits.
fn axpy(c: [float], b: [float], x: float, n: int) {
    for j in 0..n {
        c[j] += x * b[j];
    }
}

fn matmul(a: [[float]], b: [[float]], n: int) -> [[float]] {
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
    return c;
}

fn prefix_sum(v: [int], m: int) -> int {
    var s = 0;
    for i in 2..m {
        s += v[i] * i;
    }
    return s;
}

fn copy_into(dst: [int], src: [int], n: int) {
    for i in 0..n {
        if src[i] % 2 == 0 {
            dst[i] = src[i];
        } else {
            dst[i] = -src[i];
        }
    }
}

var c = [1.0; 5];
let b = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5];
axpy(c, b, 2.0, 5);
print(c);
axpy(c, b, 1.0, 2);
print(c);

let n = 4;
var a = [[0.0; n]; n];
var m = [[0.0; n]; n];
for i in 0..n {
    for j in 0..n {
        a[i][j] = float(i + j);
        m[i][j] = float(i * j + 1);
    }
}
print(matmul(a, m, n));
print(matmul(a, m, 2));

var v: [int] = [];
for i in 0..10 {
    push(v, i * i);
}
print(prefix_sum(v, 10));
print(prefix_sum(v, 5));
print(prefix_sum(v, 1));

var d = [0; 8];
copy_into(d, v, 8);
print(d);
copy_into(d, [7, 8, 9], 3);
print(d);
