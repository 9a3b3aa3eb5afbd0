# Collatz trajectories (reference for collatz.wdl). Usage: python3 collatz.py N
import sys


def main(n):
    total = 0
    best = 0
    best_start = 0
    for start in range(1, n):
        x = start
        steps = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        total += steps
        if steps > best:
            best = steps
            best_start = start
    print(total)
    print(best_start)
    print(best)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000000)
