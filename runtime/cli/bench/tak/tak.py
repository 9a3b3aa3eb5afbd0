# Takeuchi function, repeated (reference for tak.wdl). Usage: python3 tak.py N
import sys


def tak(x, y, z):
    if y < x:
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    return z


def main(n):
    s = 0
    for i in range(n):
        s += tak(18, 12, 6 + i % 3)
    print(s)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
