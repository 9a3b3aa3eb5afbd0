// exit: 2
// stderr: runtime error: stack overflow
// stderr: runtime-errors/stack_overflow_after_inlined_copy.wdl:9:16
// The call after an inlined copy of a self call (the first call of
// `after`, which makes calls of its own) reaches exactly the depth limit
// of 65 536 frames, then one frame more, on every tier.
fn deep(k: int) -> int {
    if k <= 0 { return 0; }
    return 1 + deep(k - 1);
}
fn after(n: int, k: int) -> int {
    if n <= 0 { return 0; }
    return after(n - 1, k) + deep(k + 2 * n) + after(n - 2, k);
}
print(after(2, 65530));
print(after(2, 65531));
