#include <stdio.h>
#include <stdlib.h>

static long classify(long i, long k) {
    long a = i * 7 + k;
    long heavy = (a * a + 13) % 1009;
    long light = a % 17;
    if ((i % 3 == 0 || i % 5 == 0) && a % 7 != 1) {
        return heavy + light;
    }
    if (i % 4 == 1 && (light > 8 || a % 11 == 0)) {
        return heavy + 17 - light;
    }
    return light;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 13000000;
    long acc = 0, hits = 0;
    for (long i = 0; i < n; i++) {
        long c = classify(i, hits % 5);
        acc = (acc + c) % 1000000007;
        if (c > 500 && (i % 2 == 0 || c % 3 == 0)) {
            hits += 1;
        }
    }
    printf("%ld\n%ld\n", acc, hits);
    return 0;
}
