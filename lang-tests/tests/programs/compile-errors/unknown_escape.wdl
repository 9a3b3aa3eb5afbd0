// exit: 1
// stderr: unknown escape sequence
// stderr: compile-errors/unknown_escape.wdl:4:
print("bad \q escape");
