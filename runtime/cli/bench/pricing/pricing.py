import sys


def price(q, day, seed):
    bulk = q > 40
    weekend = day % 7 >= 5
    member = seed % 10 < 3
    base = q * 100 + seed % 50
    bulk_cut = base // 8
    weekend_fee = (q * 37 + day * 11) % 97 + 15
    member_pts = (base // 3 + day) % 251
    p = base
    if bulk:
        p -= bulk_cut
    if weekend:
        p += weekend_fee
    if member:
        p -= member_pts
    if bulk and weekend:
        p += bulk_cut % 13
    if member or bulk:
        p -= 1
    if not member and not weekend:
        p += base % 7
    return p


def main(n):
    seed = 1
    total = 0
    discounted = 0
    for i in range(n):
        seed = (seed * 75 + 74) % 65537
        q = seed % 80 + 1
        p = price(q, i % 365, seed)
        total = (total + p + 1000) % 1000000007
        if p < q * 100:
            discounted += 1
    print(total)
    print(discounted)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 15000000)
