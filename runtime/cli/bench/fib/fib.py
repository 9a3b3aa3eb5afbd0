# Recursive Fibonacci (reference for fib.wdl). Usage: python3 fib.py N
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def main(n):
    print(fib(n))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
