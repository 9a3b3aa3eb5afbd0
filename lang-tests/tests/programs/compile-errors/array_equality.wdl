// exit: 1
// stderr: error
// stderr: compile-errors/array_equality.wdl:5:
// `==` is defined for int, float, bool and str only.
print([1] == [1]);
