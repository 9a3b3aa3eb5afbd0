/* N-body simulation (reference for nbody.wdl). Usage: nbody N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define NB 5

static double energy(double *x, double *y, double *z, double *vx, double *vy, double *vz, double *m) {
    double e = 0.0;
    for (int i = 0; i < NB; i++) {
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        for (int j = i + 1; j < NB; j++) {
            double dx = x[i] - x[j];
            double dy = y[i] - y[j];
            double dz = z[i] - z[j];
            e -= m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

static void advance(double *x, double *y, double *z, double *vx, double *vy, double *vz, double *m, double dt) {
    for (int i = 0; i < NB; i++) {
        for (int j = i + 1; j < NB; j++) {
            double dx = x[i] - x[j];
            double dy = y[i] - y[j];
            double dz = z[i] - z[j];
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            double mj = m[j] * mag;
            vx[i] -= dx * mj;
            vy[i] -= dy * mj;
            vz[i] -= dz * mj;
            double mi = m[i] * mag;
            vx[j] += dx * mi;
            vy[j] += dy * mi;
            vz[j] += dz * mi;
        }
    }
    for (int i = 0; i < NB; i++) {
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
    }
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 3000000;
    double pi = 3.141592653589793;
    double solar_mass = 4.0 * pi * pi;
    double dpy = 365.24;
    double x[NB] = {0.0, 4.84143144246472090e+00, 8.34336671824457987e+00, 1.28943695621391310e+01, 1.53796971148509165e+01};
    double y[NB] = {0.0, -1.16032004402742839e+00, 4.12479856412430479e+00, -1.51111514016986312e+01, -2.59193146099879641e+01};
    double z[NB] = {0.0, -1.03622044471123109e-01, -4.03523417114321381e-01, -2.23307578892655734e-01, 1.79258772950371181e-01};
    double vx[NB] = {0.0, 1.66007664274403694e-03 * dpy, -2.76742510726862411e-03 * dpy, 2.96460137564761618e-03 * dpy, 2.68067772490389322e-03 * dpy};
    double vy[NB] = {0.0, 7.69901118419740425e-03 * dpy, 4.99852801234917238e-03 * dpy, 2.37847173959480950e-03 * dpy, 1.62824170038242295e-03 * dpy};
    double vz[NB] = {0.0, -6.90460016972063023e-05 * dpy, 2.30417297573763929e-05 * dpy, -2.96589568540237556e-05 * dpy, -9.51592254519715870e-05 * dpy};
    double m[NB] = {solar_mass, 9.54791938424326609e-04 * solar_mass, 2.85885980666130812e-04 * solar_mass, 4.36624404335156298e-05 * solar_mass, 5.15138902046611451e-05 * solar_mass};
    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < NB; i++) {
        px += vx[i] * m[i];
        py += vy[i] * m[i];
        pz += vz[i] * m[i];
    }
    vx[0] = -px / solar_mass;
    vy[0] = -py / solar_mass;
    vz[0] = -pz / solar_mass;
    printf("%lld\n", (long long)(energy(x, y, z, vx, vy, vz, m) * 1e9));
    for (int64_t step = 0; step < n; step++) advance(x, y, z, vx, vy, vz, m, 0.01);
    printf("%lld\n", (long long)(energy(x, y, z, vx, vy, vz, m) * 1e9));
    return 0;
}
