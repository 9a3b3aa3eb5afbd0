// exit: 1
// stderr: cannot infer the type of an empty array literal
// stderr: compile-errors/empty_array_print.wdl:4:7
print([]);
