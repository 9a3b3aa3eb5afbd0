// The conversion builtins.
print(float(7));
print(float(-7) / 2.0);
print(int(7.99));
print(int(-7.99));
print(str(1) + str(2.0) + str(false));
let n = 255;
print("n = " + str(n));
print(int(float(n) * 1.5));
print(str(float(1) / float(3)));
