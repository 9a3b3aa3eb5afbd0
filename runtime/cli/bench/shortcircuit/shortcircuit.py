import sys


def classify(i, k):
    a = i * 7 + k
    heavy = (a * a + 13) % 1009
    light = a % 17
    if (i % 3 == 0 or i % 5 == 0) and a % 7 != 1:
        return heavy + light
    if i % 4 == 1 and (light > 8 or a % 11 == 0):
        return heavy + 17 - light
    return light


def main(n):
    acc = 0
    hits = 0
    for i in range(n):
        c = classify(i, hits % 5)
        acc = (acc + c) % 1000000007
        if c > 500 and (i % 2 == 0 or c % 3 == 0):
            hits += 1
    print(acc)
    print(hits)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 13000000)
