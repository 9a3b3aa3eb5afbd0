// exit: 1
// stderr: compile-errors/several_errors.wdl:8:
// stderr: compile-errors/several_errors.wdl:11:
// stderr: compile-errors/several_errors.wdl:13:
// stderr: undefined variable `nope`
// stderr: mismatched types
// stderr: cannot assign to immutable binding
fn f() -> int { return nope; }
print("nothing runs");
let k = 1;
let s: str = 5;
fn g() {
    k = 2;
}
