// abs, min and max on ints and floats.
print(abs(-3));
print(abs(3));
print(abs(0));
print(abs(-9223372036854775807));
print(abs(-9223372036854775807 - 1));
print(abs(-3.25));
print(abs(0.0 / 0.0));
print(min(1, 2));
print(min(2, 1));
print(max(-1, -2));
print(min(1.0, 2.0));
print(max(1.0, 2.0));
print(max(9223372036854775807, -9223372036854775807 - 1));
