// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/mod_zero.wdl:6:19
fn rem(a: int, b: int) -> int {
    print("rem called");
    return a + (a % b);
}
print(rem(7, 2));
print(rem(7, 0));
