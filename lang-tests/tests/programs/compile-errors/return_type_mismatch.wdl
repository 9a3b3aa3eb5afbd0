// exit: 1
// stderr: mismatched types
// stderr: compile-errors/return_type_mismatch.wdl:5:
fn f() -> int {
    return 1.5;
}
