// Spectral norm of the infinite matrix A(i,j) = 1/((i+j)(i+j+1)/2 + i + 1)
// (Computer Language Benchmarks Game): nested float loops and calls.
// Prints the norm scaled by 1e9 and truncated.
// bench: quick=20
fn a(i: int, j: int) -> float {
    return 1.0 / float((i + j) * (i + j + 1) / 2 + i + 1);
}

fn mul_av(v: [float], av: [float]) {
    let n = len(v);
    for i in 0..n {
        var sum = 0.0;
        for j in 0..n {
            sum += a(i, j) * v[j];
        }
        av[i] = sum;
    }
}

fn mul_atv(v: [float], atv: [float]) {
    let n = len(v);
    for i in 0..n {
        var sum = 0.0;
        for j in 0..n {
            sum += a(j, i) * v[j];
        }
        atv[i] = sum;
    }
}

fn mul_atav(v: [float], out: [float], tmp: [float]) {
    mul_av(v, tmp);
    mul_atv(tmp, out);
}

fn main(n: int) {
    var u = [1.0; n];
    var v = [0.0; n];
    var tmp = [0.0; n];
    for i in 0..10 {
        mul_atav(u, v, tmp);
        mul_atav(v, u, tmp);
    }
    var vbv = 0.0;
    var vv = 0.0;
    for i in 0..n {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    print(int(sqrt(vbv / vv) * 1e9));
}

main(1900);
