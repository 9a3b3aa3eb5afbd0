// Values that only some paths use (the `sink` pass moves them to those
// paths, with a copy per arm): every tier must print the same as computing
// them eagerly. Expected output from an independent Python version.
fn pick(i: int, k: int) -> int {
    let a = i * 7 + k;
    let heavy = (a * a + 13) % 1009;
    let light = a % 17;
    if (i % 3 == 0 || i % 5 == 0) && a % 7 != 1 {
        return heavy + light;
    }
    if i % 4 == 1 && (light > 8 || a % 11 == 0) {
        return heavy + 17 - light;
    }
    return light;
}

fn in_loop(n: int, c: int) -> int {
    let sq = c * c + 1;
    var s = 0;
    for i in 0..n {
        if i % 2 == 0 {
            s += sq / 3;
        } else {
            s -= i;
        }
    }
    return s;
}

fn joined(x: int, p: bool, q: bool) -> int {
    let m = x * x - 3;
    var t = x;
    if p {
        t = m + 1;
        if q {
            return t;
        }
    }
    return t + m;
}

var acc = 0;
for i in -20..40 {
    acc = (acc * 31 + pick(i, i % 5)) % 1000003;
}
print(acc);
print(in_loop(10, 5));
print(in_loop(0, 4));
print(joined(5, true, true));
print(joined(5, true, false));
print(joined(5, false, false));
