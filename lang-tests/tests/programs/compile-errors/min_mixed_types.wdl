// exit: 1
// stderr: error
// stderr: compile-errors/min_mixed_types.wdl:5:
// min/max take two operands of the same type.
print(min(1, 2.0));
