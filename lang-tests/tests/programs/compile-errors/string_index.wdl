// exit: 1
// stderr: cannot index into a value of type `str`
// stderr: compile-errors/string_index.wdl:6:
// Strings cannot be indexed in version 1.
let s = "abc";
print(s[0]);
