// N-body simulation (benchmarks game), 1000 steps.
let PI = 3.141592653589793;
let SOLAR_MASS = 4.0 * PI * PI;
let DAYS = 365.24;
var xs = [0.0, 4.84143144246472090e+00, 8.34336671824457987e+00, 1.28943695621391310e+01, 1.53796971148509165e+01];
var ys = [0.0, -1.16032004402742839e+00, 4.12479856412430479e+00, -1.51111514016986312e+01, -2.59193146099879641e+01];
var zs = [0.0, -1.03622044471123109e-01, -4.03523417114321381e-01, -2.23307578892655734e-01, 1.79258772950371181e-01];
var vxs = [0.0, 1.66007664274403694e-03 * DAYS, -2.76742510726862411e-03 * DAYS, 2.96460137564761618e-03 * DAYS, 2.68067772490389322e-03 * DAYS];
var vys = [0.0, 7.69901118419740425e-03 * DAYS, 4.99852801234917238e-03 * DAYS, 2.37847173959480950e-03 * DAYS, 1.62824170038242295e-03 * DAYS];
var vzs = [0.0, -6.90460016972063023e-05 * DAYS, 2.30417297573763929e-05 * DAYS, -2.96589568540237556e-05 * DAYS, -9.51592254519715870e-05 * DAYS];
var ms = [SOLAR_MASS, 9.54791938424326609e-04 * SOLAR_MASS, 2.85885980666130812e-04 * SOLAR_MASS, 4.36624404335156298e-05 * SOLAR_MASS, 5.15138902046611451e-05 * SOLAR_MASS];

fn offset_momentum() {
    var px = 0.0;
    var py = 0.0;
    var pz = 0.0;
    for i in 0..len(ms) {
        px += vxs[i] * ms[i];
        py += vys[i] * ms[i];
        pz += vzs[i] * ms[i];
    }
    vxs[0] = -px / SOLAR_MASS;
    vys[0] = -py / SOLAR_MASS;
    vzs[0] = -pz / SOLAR_MASS;
}

fn energy() -> float {
    var e = 0.0;
    let n = len(ms);
    for i in 0..n {
        e += 0.5 * ms[i] * (vxs[i] * vxs[i] + vys[i] * vys[i] + vzs[i] * vzs[i]);
        for j in i + 1..n {
            let dx = xs[i] - xs[j];
            let dy = ys[i] - ys[j];
            let dz = zs[i] - zs[j];
            e -= ms[i] * ms[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

fn advance(dt: float) {
    let n = len(ms);
    for i in 0..n {
        for j in i + 1..n {
            let dx = xs[i] - xs[j];
            let dy = ys[i] - ys[j];
            let dz = zs[i] - zs[j];
            let d2 = dx * dx + dy * dy + dz * dz;
            let mag = dt / (d2 * sqrt(d2));
            vxs[i] -= dx * ms[j] * mag;
            vys[i] -= dy * ms[j] * mag;
            vzs[i] -= dz * ms[j] * mag;
            vxs[j] += dx * ms[i] * mag;
            vys[j] += dy * ms[i] * mag;
            vzs[j] += dz * ms[i] * mag;
        }
    }
    for i in 0..n {
        xs[i] += dt * vxs[i];
        ys[i] += dt * vys[i];
        zs[i] += dt * vzs[i];
    }
}

offset_momentum();
print(energy());
for step in 0..1000 { advance(0.01); }
print(energy());
