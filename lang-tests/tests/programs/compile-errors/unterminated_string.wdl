// exit: 1
// stderr: unterminated string literal
// stderr: compile-errors/unterminated_string.wdl:4:7
print("no end);
