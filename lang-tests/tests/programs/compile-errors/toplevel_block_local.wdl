// exit: 1
// stderr: undefined variable `inner`
// stderr: compile-errors/toplevel_block_local.wdl:8:24
// A let inside a top-level block is a local, not a global.
{
    let inner = 5;
}
fn f() -> int { return inner; }
