# One hot while loop run once (reference for hotloop.wdl). Usage: python3 hotloop.py N
import sys


def main(n):
    i = 0
    t = 0
    while i < n:
        t = t + (i ^ (i >> 3)) % 7
        i += 1
    print(t)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 200000000)
