#include <stdio.h>
#include <stdlib.h>

static long price(long q, long day, long seed) {
    int bulk = q > 40;
    int weekend = day % 7 >= 5;
    int member = seed % 10 < 3;
    long base = q * 100 + seed % 50;
    long bulk_cut = base / 8;
    long weekend_fee = (q * 37 + day * 11) % 97 + 15;
    long member_pts = (base / 3 + day) % 251;
    long p = base;
    if (bulk) {
        p -= bulk_cut;
    }
    if (weekend) {
        p += weekend_fee;
    }
    if (member) {
        p -= member_pts;
    }
    if (bulk && weekend) {
        p += bulk_cut % 13;
    }
    if (member || bulk) {
        p -= 1;
    }
    if (!member && !weekend) {
        p += base % 7;
    }
    return p;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 15000000;
    long seed = 1, total = 0, discounted = 0;
    for (long i = 0; i < n; i++) {
        seed = (seed * 75 + 74) % 65537;
        long q = seed % 80 + 1;
        long p = price(q, i % 365, seed);
        total = (total + p + 1000) % 1000000007;
        if (p < q * 100) {
            discounted += 1;
        }
    }
    printf("%ld\n%ld\n", total, discounted);
    return 0;
}
