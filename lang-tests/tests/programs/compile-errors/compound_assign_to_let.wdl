// exit: 1
// stderr: cannot assign to immutable binding
// stderr: compile-errors/compound_assign_to_let.wdl:6:
fn f() {
    let total = 0;
    total += 1;
}
