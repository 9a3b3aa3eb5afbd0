# Nested integer loops (reference for loops.wdl). Usage: python3 loops.py N
import sys


def main(n):
    total = 0
    for i in range(n):
        for j in range(n):
            total += ((i * j) ^ (i + j)) % 7
    print(total)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 15000)
