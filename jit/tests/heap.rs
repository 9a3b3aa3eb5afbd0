//! Compiled code of every native tier (baseline and Cranelift) against the
//! interpreter: arrays, strings, heap traps, deep and unbounded recursion,
//! garbage collection with compiled frames, host panics.

use waddle_jit::{compile, JitOptions};
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{SrcLoc, Type};
use waddle_test_support::tiers::{
    check_same, native_tiers, on_big_stack, parse, run_interp, run_native, HostSetup, Outcome, NONE,
};
use waddle_test_support::TestHost;

fn at(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

const ARRAYS: &str = r#"
fn fn0 "arrays"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iconst 2
    v3: [int] = array_lit [v1, v2, v0] @1:1
    print v3
    v4: int = array_len v3
    bounds_check v3, v0 @2:5
    v5: int = array_get v3, v0
    print v5
    array_set v3, v0, v4
    array_push v3, v5 @3:1
    print v3
    v6: int = array_pop v3 @4:1
    print v6
    v7: [[int]] = array_repeat v3, v2 @5:1
    v8: int = iconst 0
    bounds_check v7, v8 @5:2
    v9: [int] = array_get v7, v8
    array_set v9, v8, v0
    print v7
    v10: float = fconst 1.5
    v11: [float] = array_lit [v10, v10] @6:1
    v12: bool = bconst true
    v13: [bool] = array_lit [v12] @6:2
    v14: bool = array_pop v13 @6:3
    print v14
    print v13
    v15: float = array_pop v11 @6:4
    print v15
    v16: bool = array_pop v13 @6:5
    return v0
}
fn fn1 "strings"(int) -> bool {
block0(v0: int):
    v1: str = sconst "ab\"c\n"
    v2: str = to_str v0
    v3: str = str_concat v1, v2
    print v3
    v4: int = str_len v3
    print v4
    v5: [str] = array_lit [v1, v2, v3] @1:1
    print v5
    v6: str = to_str v5
    print v6
    v7: str = sconst "ab"
    v8: bool = str_cmp lt v7, v1
    print v8
    v9: bool = str_cmp eq v7, v7
    print v9
    v10: bool = str_cmp ge v2, v7
    print v10
    v11: bool = str_cmp ne v2, v2
    print v11
    v12: str = sconst ""
    v13: bool = str_cmp le v12, v7
    v14: [[str]] = array_repeat v5, v0 @9:9
    print v14
    v15: float = clock
    v16: str = to_str v15
    return v13
}
"#;

#[test]
fn arrays_and_pop_on_empty() {
    let o = check_same(ARRAYS, "arrays", &[2], NONE);
    assert_eq!(
        o.result,
        Err(Trap {
            code: TrapCode::PopEmpty,
            loc: at(6, 5)
        })
    );
    assert!(
        o.out.starts_with("[1, 2, 2]\n2\n[1, 2, 3, 2]\n2\n"),
        "{}",
        o.out
    );
    for i in [3u64, u64::MAX, 1 << 63] {
        let o = check_same(ARRAYS, "arrays", &[i], NONE);
        assert_eq!(
            o.result,
            Err(Trap {
                code: TrapCode::IndexOutOfBounds,
                loc: at(2, 5)
            })
        );
    }
}

#[test]
fn strings_and_repeat_traps() {
    let o = check_same(ARRAYS, "strings", &[2], NONE);
    assert_eq!(o.result, Ok(1));
    assert!(o.out.contains("[\"ab\\\"c\\n\", \"2\", "), "{}", o.out);
    let o = check_same(ARRAYS, "strings", &[(-3i64) as u64], NONE);
    assert_eq!(
        o.result,
        Err(Trap {
            code: TrapCode::NegativeLength,
            loc: at(9, 9)
        })
    );
    let o = check_same(ARRAYS, "strings", &[1 << 40], NONE);
    assert_eq!(o.result.map_err(|t| t.code), Err(TrapCode::OutOfMemory));
}

const RECURSION: &str = r#"
fn fn0 "depth"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 0
    v2: bool = icmp le v0, v1
    br v2, block1, block2
block1:
    return v1
block2:
    v3: int = iconst 1
    v4: int = isub v0, v3
    v5: int = call fn0 "depth"(v4) @3:12
    v6: int = iadd v5, v3
    return v6
}
fn fn1 "forever"(int) -> int @5:1 {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    v3: int = call fn1 "forever"(v2) @6:10
    return v3
}
fn fn2 "main"() -> int @8:1 {
block0:
    v0: int = iconst 7
    print v0
    v1: int = iconst 0
    v2: int = call fn1 "forever"(v1) @9:3
    print v2
    return v2
}
"#;

#[test]
fn deep_recursion_works() {
    // The default budget allows 65 536 frames of a recursive function
    // (`waddle_opt::abi::max_call_depth`).
    let o = check_same(RECURSION, "depth", &[65_535], NONE);
    assert_eq!(o.result, Ok(65_535));
}

#[test]
fn unbounded_recursion_is_stack_overflow_at_the_call() {
    let o = check_same(RECURSION, "main", &[], NONE);
    assert_eq!(
        o.result,
        Err(Trap {
            code: TrapCode::StackOverflow,
            loc: at(6, 10)
        })
    );
    assert_eq!(o.out, "7\n");
}

/// A tiny stack budget: the outermost frame itself overflows.
#[test]
fn tiny_budget_overflows_at_entry() {
    let p = parse(RECURSION);
    let r = on_big_stack(move || {
        let mut host = TestHost::new(0);
        let f = p.func_by_name("depth").unwrap();
        native_tiers()
            .into_iter()
            .map(|tier| {
                let mut code = compile(tier, &p, &JitOptions::default()).unwrap();
                code.set_stack_budget(0);
                code.call(&mut host, f, &[5])
            })
            .collect::<Vec<_>>()
    });
    let overflow = Err(Trap {
        code: TrapCode::StackOverflow,
        loc: at(1, 1),
    });
    assert!(!r.is_empty() && r.iter().all(|r| *r == overflow), "{r:?}");
}

/// Allocates heavily in a compiled loop while two arrays stay alive only in
/// compiled frames (a block parameter and a value live across the loop).
const GC: &str = r#"
fn fn0 "churn"(int) -> int {
block0(v0: int):
    v1: int = iconst 7
    v2: int = iconst 100
    v3: [int] = array_repeat v1, v2 @1:1
    v4: str = sconst "x"
    v40: int = iconst 3
    v41: [int] = array_lit [v40] @1:2
    v42: [[int]] = array_lit [v41, v41, v41, v41] @1:3
    v6: int = iconst 0
    jump block1(v6, v3)
block1(v7: int, v8: [int]):
    v9: bool = icmp lt v7, v0
    br v9, block2, block3
block2:
    v10: int = iconst 3
    v11: [int] = array_repeat v7, v10 @2:2
    v12: str = to_str v7
    v13: str = str_concat v4, v12
    v14: int = iconst 4
    v15: int = irem v7, v14 @2:3
    bounds_check v42, v15 @2:4
    array_set v42, v15, v11
    v16: int = iconst 1
    v17: int = iadd v7, v16
    v18: int = call fn1 "sum"(v8) @2:5
    jump block1(v17, v8)
block3:
    v19: int = call fn1 "sum"(v8) @3:1
    v20: int = call fn1 "sum"(v3) @3:2
    print v42
    v21: int = iadd v19, v20
    return v21
}
fn fn1 "sum"([int]) -> int {
block0(v0: [int]):
    v1: int = iconst 0
    v2: int = array_len v0
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v2
    br v5, block2, block3
block2:
    bounds_check v0, v3 @4:4
    v6: int = array_get v0, v3
    v7: int = iadd v4, v6
    v8: int = iconst 1
    v9: int = iadd v3, v8
    jump block1(v9, v7)
block3:
    v10: str = to_str v4
    return v4
}
"#;

#[test]
fn gc_with_compiled_frames_keeps_live_arrays() {
    let setup = HostSetup {
        fuel: None,
        gc_every: Some(7),
    };
    let o = check_same(GC, "churn", &[5000], setup);
    assert_eq!(o.result, Ok(1400));
    for tier in native_tiers() {
        let p = parse(GC);
        let (collections, swept, max_live) = on_big_stack(move || {
            let opts = JitOptions::default();
            let (o, h) = run_native(tier, &p, "churn", &[20_000], setup, &opts);
            assert_eq!(o.result, Ok(1400));
            (h.collections, h.swept, h.max_live_after_gc)
        });
        assert!(
            collections > 1000 && swept > 50_000,
            "{tier:?}: {collections} {swept}"
        );
        // Bounded: the two kept arrays, the four rows and a few in flight.
        assert!(max_live < 64, "{tier:?}: {max_live}");
    }
}

/// A host whose `print` panics: the panic reaches the caller of `call`
/// (through compiled frames, without unwinding them).
#[test]
fn host_panic_is_resumed_in_rust() {
    struct Panicky(TestHost);
    impl Host for Panicky {
        fn intern_str(&mut self, s: &str) -> Word {
            self.0.intern_str(s)
        }
        fn globals(&mut self) -> &mut [Word] {
            self.0.globals()
        }
        fn array_new(&mut self, e: Type, el: &[Word], r: &[Word]) -> Result<Word, TrapCode> {
            self.0.array_new(e, el, r)
        }
        fn array_repeat(&mut self, e: Type, v: Word, n: i64, r: &[Word]) -> Result<Word, TrapCode> {
            self.0.array_repeat(e, v, n, r)
        }
        fn array_push(&mut self, a: Word, v: Word, r: &[Word]) -> Result<(), TrapCode> {
            self.0.array_push(a, v, r)
        }
        fn str_concat(&mut self, a: Word, b: Word, r: &[Word]) -> Result<Word, TrapCode> {
            self.0.str_concat(a, b, r)
        }
        fn to_str(&mut self, t: Type, v: Word, r: &[Word]) -> Result<Word, TrapCode> {
            self.0.to_str(t, v, r)
        }
        fn print(&mut self, _: Type, _: Word) {
            panic!("host print failed");
        }
        fn clock(&mut self) -> f64 {
            0.0
        }
        fn consume_fuel(&mut self, _: u64) -> Result<(), TrapCode> {
            Ok(())
        }
    }
    for tier in native_tiers() {
        let p = parse(RECURSION);
        let caught = on_big_stack(move || {
            let mut host = Panicky(TestHost::new(0));
            let mut cp = compile(tier, &p, &JitOptions::default()).unwrap();
            let f = p.func_by_name("main").unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                cp.call(&mut host, f, &[])
            }));
            let msg = r
                .err()
                .and_then(|e| e.downcast_ref::<&str>().map(|s| s.to_string()));
            // The program still works afterwards.
            let d = p.func_by_name("depth").unwrap();
            (msg, cp.call(&mut host, d, &[10]))
        });
        let want = (Some("host print failed".to_string()), Ok(10));
        assert_eq!(caught, want, "{tier:?}");
    }
}

const BOOLS: &str = r#"
fn fn0 "set"([bool], int, bool) -> bool {
block0(v0: [bool], v1: int, v2: bool):
    bounds_check v0, v1 @1:1
    v3: bool = array_get v0, v1
    array_set v0, v1, v2
    return v3
}
fn fn1 "pop"([bool]) -> bool {
block0(v0: [bool]):
    v1: bool = array_pop v0 @2:1
    return v1
}
"#;

/// Runs a function of a program by name with arguments on one tier.
type Runner<'a> = dyn Fn(&str, &[Word]) -> Outcome + 'a;

/// The interpreter and compiled code read and write `[bool]` elements as
/// single bytes: a store leaves its neighbours alone, and the bytes are
/// what the host sees.
#[test]
fn bool_elements_are_single_bytes_on_every_tier() {
    let p = parse(BOOLS);
    let mut runs: Vec<(String, Box<Runner<'_>>)> = vec![(
        "interp".to_string(),
        Box::new(|name: &str, args: &[Word]| run_interp(&p, name, args, NONE).0),
    )];
    for tier in native_tiers() {
        for opts in waddle_test_support::tiers::configs(tier, NONE) {
            let p = &p;
            runs.push((
                format!("{} {opts:?}", tier.name()),
                Box::new(move |name: &str, args: &[Word]| {
                    run_native(tier, p, name, args, NONE, &opts).0
                }),
            ));
        }
    }
    let bytes = |a: Word| {
        // SAFETY: a leaked test array, alive for the whole test.
        unsafe { waddle_opt::abi::array_bytes(a) }.to_vec()
    };
    for (what, run) in &runs {
        let a = waddle_test_support::host::new_array(Type::Bool, &[0, 1, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(run("set", &[a, 4, 1]).result, Ok(0), "{what}");
        assert_eq!(bytes(a), [0, 1, 0, 0, 1, 0, 0, 0, 1], "{what}");
        assert_eq!(run("set", &[a, 1, 0]).result, Ok(1), "{what}");
        assert_eq!(run("set", &[a, 8, 0]).result, Ok(1), "{what}");
        assert_eq!(bytes(a), [0, 0, 0, 0, 1, 0, 0, 0, 0], "{what}");
        let oob = run("set", &[a, 9, 1]).result;
        assert_eq!(
            oob.map_err(|t| t.code),
            Err(TrapCode::IndexOutOfBounds),
            "{what}"
        );
        assert_eq!(bytes(a), [0, 0, 0, 0, 1, 0, 0, 0, 0], "{what}");
        assert_eq!(run("pop", &[a]).result, Ok(0), "{what}");
        assert_eq!(run("set", &[a, 7, 1]).result, Ok(0), "{what}");
        assert_eq!(run("pop", &[a]).result, Ok(1), "{what}");
        assert_eq!(bytes(a), [0, 0, 0, 0, 1, 0, 0], "{what}");
    }
}
