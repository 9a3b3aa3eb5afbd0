/* Nested integer loops (reference for loops.wdl). Usage: loops N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 15000;
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            total += ((i * j) ^ (i + j)) % 7;
    printf("%lld\n", (long long)total);
    return 0;
}
