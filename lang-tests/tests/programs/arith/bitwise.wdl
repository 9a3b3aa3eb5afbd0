// `& | ^` on ints, including negatives, and their relative precedence.
print(12 & 10);
print(12 | 10);
print(12 ^ 10);
print(-1 & 255);
print(-256 | 15);
print(-1 ^ 5);
print(1 | 2 ^ 3 & 4);
print((1 | 2) ^ 3);
print(5 & 3 | 8);
print(6 ^ 3 & 5);
print(0xff00 & 0x0ff0 | 0x000f);
