/* Dense matrix multiplication (reference for matmul.wdl). Usage: matmul N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static double **matrix(int64_t n) {
    double **m = malloc(sizeof(double *) * (size_t)n);
    for (int64_t i = 0; i < n; i++) m[i] = calloc((size_t)n, sizeof(double));
    return m;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 748;
    double **a = matrix(n), **b = matrix(n), **c = matrix(n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            a[i][j] = (double)((i * j) % 7 - 3);
            b[i][j] = (double)((i + 2 * j) % 5 - 2);
        }
    for (int64_t i = 0; i < n; i++) {
        double *ai = a[i], *ci = c[i];
        for (int64_t k = 0; k < n; k++) {
            double aik = ai[k];
            double *bk = b[k];
            for (int64_t j = 0; j < n; j++) ci[j] += aik * bk[j];
        }
    }
    double trace = 0.0, sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        trace += c[i][i];
        for (int64_t j = 0; j < n; j++) sum += c[i][j] * (double)(j % 3 + 1);
    }
    printf("%lld\n%lld\n", (long long)trace, (long long)sum);
    return 0;
}
