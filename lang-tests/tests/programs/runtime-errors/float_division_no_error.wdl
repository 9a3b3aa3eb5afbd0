// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/float_division_no_error.wdl:7:22
// Float division by zero is not an error; int division by zero is.
print(1.0 / 0.0);
print(1.0 % 0.0);
print(int(1.0 / 0.0) / 0);
