//! A guarded self call (`cranelift::translate::guard`) into a function
//! whose entry block is a loop header: the guarded copy's region contains
//! the header and the loop's body, and the back edge to the entry leaves
//! the region (the real call runs the loop). The calls `f(n + 5)` take the
//! back edge in the copy; every result must be the interpreter's (the
//! values below, from a transcription of `f`).

use waddle_jit::{cranelift::compile, JitOptions};
use waddle_test_support::tiers::{on_big_stack, parse};
use waddle_test_support::TestHost;

/// `f(n)`: `n` below 3; above 20, loop back to the entry with `n - 7`;
/// else `f(n - 1) + f(n - 2)`, or `f(n - 1) + f(n + 5)` from 16 on.
const ENTRY_LOOP: &str = r#"
fn fn0 "f"(int) -> int {
block0(v0: int):
    v1: int = iconst 3
    v2: bool = icmp lt v0, v1
    br v2, block1, block2
block1:
    return v0
block2:
    v3: int = iconst 20
    v4: bool = icmp lt v3, v0
    br v4, block3, block4
block3:
    v5: int = iconst 7
    v6: int = isub v0, v5
    jump block0(v6)
block4:
    v7: int = iconst 1
    v8: int = isub v0, v7
    v9: int = call fn0 "f"(v8) @2:1
    v10: int = iconst 16
    v11: bool = icmp lt v0, v10
    br v11, block5, block6
block5:
    v12: int = iconst 2
    v13: int = isub v0, v12
    v14: int = call fn0 "f"(v13) @3:1
    v15: int = iadd v9, v14
    return v15
block6:
    v16: int = iconst 5
    v17: int = iadd v0, v16
    v18: int = call fn0 "f"(v17) @4:1
    v19: int = iadd v9, v18
    return v19
}
fn fn1 "main"(int) -> int {
block0(v0: int):
    v1: int = call fn0 "f"(v0) @5:1
    return v1
}
"#;

#[test]
fn guarded_calls_into_an_entry_that_heads_a_loop() {
    let p = parse(ENTRY_LOOP);
    let results = on_big_stack(move || {
        let main = p.func_by_name("main").unwrap();
        let mut out = Vec::new();
        for fuel in [false, true] {
            let opts = JitOptions {
                fuel,
                ..JitOptions::default()
            };
            let mut cp = compile(&p, &opts).unwrap();
            let mut host = TestHost::new(0);
            for n in [2, 16, 20, 40] {
                out.push(cp.call(&mut host, main, &[n]));
            }
        }
        out
    });
    let want = [Ok(2), Ok(1597), Ok(10946), Ok(6765)];
    assert_eq!(results[..4], want, "without fuel (guarded)");
    assert_eq!(results[4..], want, "with fuel");
}
