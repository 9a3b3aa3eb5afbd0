// exit: 1
// stderr: mismatched types
// stderr: compile-errors/int_of_int.wdl:5:
// int(x) takes only a float.
print(int(5));
