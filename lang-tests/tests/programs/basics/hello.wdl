// The smallest programs: one print of each scalar type.
print("Hello, Waddle!");
print(42);
print(-7);
print(3.5);
print(true);
print(false);
print("");
