// Float literals: a `.` followed by a digit, or an exponent.
print(1.5);
print(0.25);
print(1e10);
print(2.5e-3);
print(3.0E+2);
print(1E5);
print(1_000.5);
print(1e400);
print(0.1);
print(10.0);
print(1.0e0);
print(123.456e2);
print(5e-324);
print(1e-400);
