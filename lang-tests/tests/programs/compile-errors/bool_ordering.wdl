// exit: 1
// stderr: error
// stderr: compile-errors/bool_ordering.wdl:5:
// `<` is defined for int, float and str only.
print(true < false);
