// Strings printed inside arrays are escaped like Rust's {:?} of str.
print(["quote\"", "back\\slash", "new\nline", "cr\r", "tab\t", "nul\0"]);
print(["unicode é 日本 🦆", "'single'"]);
print([["nested\n"]]);
print(str(["\""]));
print("\"top level is raw\"");
