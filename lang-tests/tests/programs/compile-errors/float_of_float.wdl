// exit: 1
// stderr: mismatched types
// stderr: compile-errors/float_of_float.wdl:5:
// float(x) takes only an int.
print(float(1.5));
