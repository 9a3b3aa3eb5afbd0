# Dense matrix multiplication (reference for matmul.wdl). Usage: python3 matmul.py N
import sys


def main(n):
    a = [[0.0] * n for _ in range(n)]
    b = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            a[i][j] = float((i * j) % 7 - 3)
            b[i][j] = float((i + 2 * j) % 5 - 2)
    c = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ai = a[i]
        ci = c[i]
        for k in range(n):
            aik = ai[k]
            bk = b[k]
            for j in range(n):
                ci[j] += aik * bk[j]
    trace = 0.0
    s = 0.0
    for i in range(n):
        trace += c[i][i]
        for j in range(n):
            s += c[i][j] * float(j % 3 + 1)
    print(int(trace))
    print(int(s))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 748)
