// exit: 1
// stderr: integer literal is too large
// stderr: compile-errors/int_literal_overflow.wdl:5:7
print("nothing runs");
print(9223372036854775808);
