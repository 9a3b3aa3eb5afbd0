/* Spectral norm (reference for spectral_norm.wdl). Usage: spectral_norm N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static double a(int64_t i, int64_t j) {
    return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1);
}

static void mul_av(int64_t n, const double *v, double *av) {
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int64_t j = 0; j < n; j++) sum += a(i, j) * v[j];
        av[i] = sum;
    }
}

static void mul_atv(int64_t n, const double *v, double *atv) {
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int64_t j = 0; j < n; j++) sum += a(j, i) * v[j];
        atv[i] = sum;
    }
}

static void mul_atav(int64_t n, const double *v, double *out, double *tmp) {
    mul_av(n, v, tmp);
    mul_atv(n, tmp, out);
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1900;
    double *u = malloc(sizeof(double) * (size_t)n);
    double *v = malloc(sizeof(double) * (size_t)n);
    double *tmp = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) { u[i] = 1.0; v[i] = 0.0; tmp[i] = 0.0; }
    for (int i = 0; i < 10; i++) {
        mul_atav(n, u, v, tmp);
        mul_atav(n, v, u, tmp);
    }
    double vbv = 0.0, vv = 0.0;
    for (int64_t i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%lld\n", (long long)(sqrt(vbv / vv) * 1e9));
    free(u); free(v); free(tmp);
    return 0;
}
