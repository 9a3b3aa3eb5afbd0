// exit: 1
// stderr: mismatched types
// stderr: compile-errors/type_mismatch_binary.wdl:5:
// No implicit conversions.
print(1 + 1.5);
