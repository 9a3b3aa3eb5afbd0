// exit: 1
// stderr: mismatched types: expected `bool`
// stderr: compile-errors/if_condition_not_bool.wdl:5:
let n = 1;
if n { print(n); }
