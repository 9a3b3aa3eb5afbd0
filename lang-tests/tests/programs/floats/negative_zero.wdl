// Negative zero: prints as -0.0, compares equal to 0.0.
let z = 0.0;
print(-z);
print(-z == z);
print(0.0 * -1.0);
print(-0.0 + 0.0);
print(-0.0 - 0.0);
print([-0.0, 0.0]);
print(str(-0.0));
