/* Mandelbrot set membership (reference for mandelbrot.wdl). Usage: mandelbrot N */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1750;
    int64_t count = 0;
    double fn_ = (double)n;
    for (int64_t py = 0; py < n; py++) {
        double ci = 2.0 * (double)py / fn_ - 1.0;
        for (int64_t px = 0; px < n; px++) {
            double cr = 2.0 * (double)px / fn_ - 1.5;
            double zr = 0.0, zi = 0.0;
            int64_t i = 0;
            bool inside = true;
            while (i < 50) {
                double tr = zr * zr - zi * zi + cr;
                double ti = 2.0 * zr * zi + ci;
                zr = tr;
                zi = ti;
                if (zr * zr + zi * zi > 4.0) {
                    inside = false;
                    break;
                }
                i++;
            }
            if (inside) count++;
        }
    }
    printf("%lld\n", (long long)count);
    return 0;
}
