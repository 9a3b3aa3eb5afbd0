// exit: 1
// stderr: `x` is already declared in this scope
// stderr: compile-errors/duplicate_in_scope.wdl:6:
fn f() {
    let x = 1;
    var x = 2;
}
