// exit: 1
// stderr: error
// stderr: compile-errors/if_without_braces.wdl:5:
let x = true;
if x print(1);
