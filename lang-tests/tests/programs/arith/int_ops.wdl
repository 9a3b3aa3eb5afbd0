// Basic integer arithmetic.
print(1 + 2);
print(10 - 25);
print(6 * 7);
print(7 / 2);
print(7 % 3);
print(-7 / 2);
print(-7 % 2);
print(2 + 3 * 4);
print((2 + 3) * 4);
print(100 / 10 / 5);
print(100 - 10 - 5);
print(2 * 3 % 4);
print(-3 * -3);
print(--5);
print(-(-5));
print(0 - 0);
