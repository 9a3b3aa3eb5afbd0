/* One hot while loop run once (reference for hotloop.wdl). Usage: hotloop N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 200000000;
    int64_t i = 0, t = 0;
    while (i < n) {
        t = t + (i ^ (i >> 3)) % 7;
        i += 1;
    }
    printf("%lld\n", (long long)t);
    return 0;
}
