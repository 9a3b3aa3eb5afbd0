/* Collatz trajectories (reference for collatz.wdl). Usage: collatz N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    int64_t total = 0, best = 0, best_start = 0;
    for (int64_t start = 1; start < n; start++) {
        int64_t x = start, steps = 0;
        while (x != 1) {
            if (x % 2 == 0) x = x / 2;
            else x = 3 * x + 1;
            steps++;
        }
        total += steps;
        if (steps > best) {
            best = steps;
            best_start = start;
        }
    }
    printf("%lld\n%lld\n%lld\n", (long long)total, (long long)best_start, (long long)best);
    return 0;
}
