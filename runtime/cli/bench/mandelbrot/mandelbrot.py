# Mandelbrot set membership (reference for mandelbrot.wdl). Usage: python3 mandelbrot.py N
import sys


def main(n):
    count = 0
    fn_ = float(n)
    for py in range(n):
        ci = 2.0 * float(py) / fn_ - 1.0
        for px in range(n):
            cr = 2.0 * float(px) / fn_ - 1.5
            zr = 0.0
            zi = 0.0
            i = 0
            inside = True
            while i < 50:
                tr = zr * zr - zi * zi + cr
                ti = 2.0 * zr * zi + ci
                zr = tr
                zi = ti
                if zr * zr + zi * zi > 4.0:
                    inside = False
                    break
                i += 1
            if inside:
                count += 1
    print(count)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1750)
