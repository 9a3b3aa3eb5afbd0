# Sieve of Eratosthenes, repeated (reference for sieve.wdl). Usage: python3 sieve.py N
import sys


def sieve(n):
    flags = [True] * (n + 1)
    count = 0
    i = 2
    while i <= n:
        if flags[i]:
            count += 1
            k = i + i
            while k <= n:
                flags[k] = False
                k += i
        i += 1
    return count


def main(n):
    total = 0
    for r in range(10):
        total += sieve(n + r)
    print(total)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000000)
