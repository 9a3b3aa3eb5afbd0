# Spectral norm (reference for spectral_norm.wdl). Usage: python3 spectral_norm.py N
import sys
from math import sqrt


def a(i, j):
    return 1.0 / float((i + j) * (i + j + 1) // 2 + i + 1)


def mul_av(v, av):
    n = len(v)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += a(i, j) * v[j]
        av[i] = s


def mul_atv(v, atv):
    n = len(v)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += a(j, i) * v[j]
        atv[i] = s


def mul_atav(v, out, tmp):
    mul_av(v, tmp)
    mul_atv(tmp, out)


def main(n):
    u = [1.0] * n
    v = [0.0] * n
    tmp = [0.0] * n
    for _ in range(10):
        mul_atav(u, v, tmp)
        mul_atav(v, u, tmp)
    vbv = 0.0
    vv = 0.0
    for i in range(n):
        vbv += u[i] * v[i]
        vv += v[i] * v[i]
    print(int(sqrt(vbv / vv) * 1e9))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1900)
