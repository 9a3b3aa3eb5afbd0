// Operator precedence across all levels.
print(1 + 2 * 3);
print(6 & 3 == 2);
print(1 + 2 < 4 && 2 * 3 > 5);
print(true || false && false);
print(!true || true);
print(!(true || true));
print(-2 * 3);
print(-(2 * 3) + 1);
print(2 | 1 == 3);
print(8 >> 1 + 1);
print(1 | 6 & 3);
print(1 ^ 3 | 4);
print(3 - 2 - 1);
print(64 / 4 / 2);
print(2 * 3 + 4 * 5 - 6 / 2 % 4);
print(1 << 2 < 5);
print(1 == 1 && 2 == 2 || 3 == 4);
