// exit: 1
// stderr: `break` outside of a loop
// stderr: compile-errors/break_outside_loop.wdl:5:
fn f() {
    break;
}
