// exit: 1
// stderr: mismatched types: expected `bool`
// stderr: compile-errors/while_condition_not_bool.wdl:4:
while "yes" { }
