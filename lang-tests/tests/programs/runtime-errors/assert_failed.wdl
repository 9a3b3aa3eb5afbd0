// exit: 2
// stderr: runtime error: assertion failed
// stderr: runtime-errors/assert_failed.wdl:5:5
fn check(n: int) {
    assert(n > 0);
    print(n);
}
check(3);
check(0);
