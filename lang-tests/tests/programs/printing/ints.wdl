// Ints print in decimal with a `-` sign for negatives.
print(0);
print(-1);
print(9223372036854775807);
print(-9223372036854775807 - 1);
print(0x10);
print(-0b11);
print(1_000);
