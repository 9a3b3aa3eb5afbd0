/* Sieve of Eratosthenes, repeated (reference for sieve.wdl). Usage: sieve N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>

static int64_t sieve(int64_t n) {
    bool *flags = malloc((size_t)(n + 1));
    for (int64_t i = 0; i <= n; i++) flags[i] = true;
    int64_t count = 0;
    for (int64_t i = 2; i <= n; i++) {
        if (flags[i]) {
            count++;
            for (int64_t k = i + i; k <= n; k += i) flags[k] = false;
        }
    }
    free(flags);
    return count;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 3000000;
    int64_t total = 0;
    for (int64_t r = 0; r < 10; r++) total += sieve(n + r);
    printf("%lld\n", (long long)total);
    return 0;
}
