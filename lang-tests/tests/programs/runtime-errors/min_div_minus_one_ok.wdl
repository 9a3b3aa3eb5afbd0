// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/min_div_minus_one_ok.wdl:8:11
// MIN / -1 wraps (no error), but x % 0 is still an error.
let min = -9223372036854775807 - 1;
print(min / -1);
print(min % -1);
print(min % 0);
