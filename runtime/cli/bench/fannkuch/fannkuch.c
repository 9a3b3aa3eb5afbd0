/* Fannkuch-redux (reference for fannkuch.wdl). Usage: fannkuch N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static void fannkuch(int64_t n) {
    int64_t *perm1 = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *count = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) { perm1[i] = i; perm[i] = 0; count[i] = 0; }
    int64_t max_flips = 0, checksum = 0, perm_count = 0;
    int64_t r = n;
    for (;;) {
        while (r != 1) {
            count[r - 1] = r;
            r--;
        }
        for (int64_t i = 0; i < n; i++) perm[i] = perm1[i];
        int64_t flips = 0;
        int64_t k = perm[0];
        while (k != 0) {
            int64_t i = 0, j = k;
            while (i < j) {
                int64_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
                i++;
                j--;
            }
            flips++;
            k = perm[0];
        }
        if (flips > max_flips) max_flips = flips;
        if (perm_count % 2 == 0) checksum += flips; else checksum -= flips;
        for (;;) {
            if (r == n) {
                printf("%lld\n%lld\n", (long long)checksum, (long long)max_flips);
                free(perm1); free(perm); free(count);
                return;
            }
            int64_t perm0 = perm1[0];
            for (int64_t i = 0; i < r; i++) perm1[i] = perm1[i + 1];
            perm1[r] = perm0;
            count[r]--;
            if (count[r] > 0) break;
            r++;
        }
        perm_count++;
    }
}

int main(int argc, char **argv) {
    fannkuch(argc > 1 ? atoll(argv[1]) : 10);
    return 0;
}
