// Spectral norm (benchmarks game), n = 50.
fn a(i: int, j: int) -> float {
    return 1.0 / float((i + j) * (i + j + 1) / 2 + i + 1);
}
fn mul_av(v: [float], out: [float]) {
    let n = len(v);
    for i in 0..n {
        var s = 0.0;
        for j in 0..n { s += a(i, j) * v[j]; }
        out[i] = s;
    }
}
fn mul_atv(v: [float], out: [float]) {
    let n = len(v);
    for i in 0..n {
        var s = 0.0;
        for j in 0..n { s += a(j, i) * v[j]; }
        out[i] = s;
    }
}
fn mul_atav(v: [float], out: [float], tmp: [float]) {
    mul_av(v, tmp);
    mul_atv(tmp, out);
}
let n = 50;
let u = [1.0; n];
let v = [0.0; n];
let tmp = [0.0; n];
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
print(sqrt(vbv / vv));
