// Floats print as the shortest round-trip text with a `.` or exponent.
print(1.0);
print(0.1);
print(-2.5);
print(1e100);
print(1.5e-7);
print(1.0 / 0.0);
print(-1.0 / 0.0);
print(0.0 / 0.0);
print(250.0);
print(1234567.0);
print(0.000123);
print(6.02214076e23);
print(-1.602176634e-19);
