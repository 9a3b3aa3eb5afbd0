/* Takeuchi function, repeated (reference for tak.wdl). Usage: tak N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static int64_t tak(int64_t x, int64_t y, int64_t z) {
    if (y < x) return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
    return z;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 4000;
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) sum += tak(18, 12, 6 + i % 3);
    printf("%lld\n", (long long)sum);
    return 0;
}
