//! The engine on the optimizing tier (T2): routing, errors surfacing as
//! `Err` from compiled code, host panics carried out of compiled frames,
//! garbage collection with compiled frames on the stack, the stack limit on
//! a small thread, and the `auto` policy.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use waddle::{Config, Error, OutputSink, Session, Tier, Val};

fn engine(tier: Tier) -> Session {
    Session::with_config(&Config::new().tier(tier), OutputSink::Capture).unwrap()
}

fn out(e: &mut Session) -> String {
    String::from_utf8(e.take_output()).unwrap()
}

fn runtime_error(r: Result<impl std::fmt::Debug, Error>) -> (String, String) {
    match r {
        Err(Error::Runtime(e)) => (
            e.message,
            e.location
                .map_or_else(|| "<unknown>".to_string(), |l| l.to_string()),
        ),
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

#[test]
fn opt_tier_runs_functions_natively() {
    let mut e = engine(Tier::Opt);
    e.eval("fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }")
        .unwrap();
    assert_eq!(e.function_tier("fib").unwrap(), Tier::Opt);
    assert_eq!(e.call_typed::<(i64,), i64>("fib", (20,)).unwrap(), 6765);
    e.eval("print(fib(15));").unwrap();
    assert_eq!(out(&mut e), "610\n");
    let stats = e.native_code();
    assert!(stats.units >= 1 && stats.bytes > 0, "{stats:?}");
    // A redefinition is seen by every caller, compiled before or after.
    e.eval("fn base() -> int { return 1; } fn use_base() -> int { return base() * 10; }")
        .unwrap();
    assert_eq!(e.call("use_base", &[]).unwrap(), Val::Int(10));
    e.eval("fn base() -> int { return 7; }").unwrap();
    assert_eq!(e.call("use_base", &[]).unwrap(), Val::Int(70));
    assert_eq!(e.function_tier("use_base").unwrap(), Tier::Opt);
}

/// The errors of `lib`'s functions on `tier`: (message, location) per case.
fn error_cases(tier: Tier) -> Vec<(String, String)> {
    let mut e = engine(tier);
    e.eval_named(
        "lib.wdl",
        "fn get(a: [int], i: int) -> int {\n    return a[i];\n}\nfn div(a: int, b: int) -> int { return a / b; }\nfn down(n: int) -> int { return down(n + 1) + 1; }",
    )
    .unwrap();
    let cases = vec![
        runtime_error(e.eval_named("m.wdl", "print(get([1, 2], 5));")),
        runtime_error(e.call("div", &[Val::Int(1), Val::Int(0)])),
        runtime_error(e.call("down", &[Val::Int(0)])),
    ];
    // The engine keeps working after a trap.
    assert_eq!(
        e.call("div", &[Val::Int(9), Val::Int(2)]).unwrap(),
        Val::Int(4)
    );
    cases
}

#[test]
fn runtime_errors_in_compiled_code_are_errs_with_locations() {
    let native = error_cases(Tier::Opt);
    assert_eq!(native, error_cases(Tier::Interp));
    assert_eq!(
        native[0],
        ("index out of bounds".into(), "lib.wdl:2:13".into())
    );
    assert_eq!(native[1].0, "division by zero");
    assert!(native[1].1.starts_with("lib.wdl:4:"));
    assert_eq!(native[2].0, "stack overflow");
    assert!(native[2].1.starts_with("lib.wdl:5:"), "{:?}", native[2]);
}

#[test]
fn the_stack_limit_respects_a_small_thread_stack() {
    // The default stack budget (64 MiB) is far more than this thread has:
    // compiled code must still stop with `stack overflow`, not crash.
    let handle = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let mut e = engine(Tier::Opt);
            e.eval("fn down(n: int) -> int { return down(n + 1) + 1; }")
                .unwrap();
            let (msg, _) = runtime_error(e.call("down", &[Val::Int(0)]));
            assert_eq!(msg, "stack overflow");
            // Moderate recursion still works.
            e.eval("fn depth(n: int) -> int { if n == 0 { return 0; } return depth(n - 1) + 1; }")
                .unwrap();
            assert_eq!(
                e.call("depth", &[Val::Int(10_000)]).unwrap(),
                Val::Int(10_000)
            );
        })
        .unwrap();
    handle.join().unwrap();
}

fn out_of_fuel(tier: Tier) -> ((String, String), String) {
    let mut e = Session::with_config(&Config::new().tier(tier), OutputSink::Capture)
        .map(|mut s| {
            s.set_fuel(Some(10_000));
            s
        })
        .unwrap();
    let err = runtime_error(e.eval_named(
        "spin.wdl",
        "fn tick(i: int) -> int { return i + 1; }\nvar i = 0;\nwhile true { i = tick(i); if i % 1000 == 0 { print(i); } }",
    ));
    assert_eq!(e.fuel(), Some(0));
    (err, out(&mut e))
}

#[test]
fn fuel_runs_out_in_compiled_loops() {
    let native = out_of_fuel(Tier::Opt);
    assert_eq!(native.0 .0, "out of fuel");
    assert_eq!(native, out_of_fuel(Tier::Interp));
}

/// A writer that panics on its first write.
struct PanicOnce(Arc<AtomicBool>);

impl Write for PanicOnce {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if !self.0.swap(true, Ordering::SeqCst) {
            panic!("writer exploded");
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_panicking_output_sink_is_contained_in_compiled_code() {
    let fired = Arc::new(AtomicBool::new(false));
    let mut e = Session::with_config(
        &Config::new().tier(Tier::Opt),
        OutputSink::Writer(Box::new(PanicOnce(fired.clone()))),
    )
    .unwrap();
    // Enough output to force a write-through (and the panic) inside the
    // `print` helper called from a compiled loop. The sink's panic is
    // caught where the runtime writes (like a failing write: later output
    // is dropped) and never unwinds into compiled frames or the caller.
    e.eval("fn spam() { for i in 0..20000 { print(\"0123456789\"); } } spam();")
        .unwrap();
    assert!(fired.load(Ordering::SeqCst));
    e.eval("fn one() -> int { return 1; }").unwrap();
    assert_eq!(e.call("one", &[]).unwrap(), Val::Int(1));
}

#[test]
fn collection_with_compiled_frames_keeps_live_arrays_and_frees_garbage() {
    let mut e = engine(Tier::Opt);
    // `keep` and `rows` live in locals of compiled frames across millions of
    // allocations; every row is checked after the churn.
    e.eval(
        "fn churn(rounds: int) -> int {
            let keep = [7; 1000];
            var rows: [[int]] = [];
            for r in 0..100 { push(rows, [r; 100]); }
            var junk = 0;
            for k in 0..rounds {
                let tmp = [k; 64];
                let s = str(k) + \"x\";
                junk += tmp[63] + len(s);
            }
            var ok = 0;
            for i in 0..1000 { if keep[i] == 7 { ok += 1; } }
            for r in 0..100 { for c in 0..100 { if rows[r][c] == r { ok += 1; } } }
            return ok * 1000000 + junk % 1000;
        }",
    )
    .unwrap();
    assert_eq!(e.function_tier("churn").unwrap(), Tier::Opt);
    let rounds = 200_000i64;
    let junk: i64 = (0..rounds)
        .map(|k| k + k.to_string().len() as i64 + 1)
        .sum::<i64>()
        % 1000;
    let r = e.call("churn", &[Val::Int(rounds)]).unwrap();
    assert_eq!(r, Val::Int(11_000 * 1_000_000 + junk));
    let s = e.heap_stats();
    assert!(s.collections > 10, "{s:?}");
    // 200 000 rounds allocate well over 100 MB; what stays is small.
    assert!(s.total_allocated > 100 << 20, "{s:?}");
    assert!(s.peak_bytes < 64 << 20, "{s:?}");
    e.collect_garbage();
    assert!(e.heap_stats().live_bytes < 1 << 20, "{:?}", e.heap_stats());
}

/// An `auto` session that promotes loop-free functions after `calls` calls
/// (interruptible, as the REPL's: counters must survive from entry to
/// entry while nothing is native yet).
fn auto_engine(calls: u32) -> Session {
    Session::with_config(
        &Config::new().tier(Tier::Auto).tiering(waddle::TierOptions {
            thresholds: waddle::TierThresholds {
                calls,
                loops: 0,
                full: 0,
            },
            sync: true,
            ..waddle::TierOptions::default()
        }),
        OutputSink::Capture,
    )
    .unwrap()
}

#[test]
fn auto_starts_on_the_interpreter_and_promotes_by_counters() {
    let mut e = auto_engine(3);
    e.eval("fn sq(x: int) -> int { return x * x; }").unwrap();
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Interp);
    e.eval("print(sq(5));").unwrap();
    assert_eq!(out(&mut e), "25\n");
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Interp);
    assert_eq!(e.function_counters("sq").unwrap().0, 2);
    // The third call promotes it (from Rust or from interpreted code).
    e.eval("print(sq(6) + sq(7));").unwrap();
    assert_eq!(out(&mut e), "85\n");
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Opt);
    assert_eq!(e.promotions(), 1);
    // A function with a loop is compiled before its first run (no OSR).
    e.eval("fn total(n: int) -> int { var t = 0; for i in 0..n { t += sq(i); } return t; }")
        .unwrap();
    assert_eq!(e.function_tier("total").unwrap(), Tier::Interp);
    assert_eq!(e.call("total", &[Val::Int(4)]).unwrap(), Val::Int(14));
    assert_eq!(e.function_tier("total").unwrap(), Tier::Opt);
    let before = e.native_code();
    // Straight-line top-level code that calls nothing compiles nothing.
    e.eval("print(1 + 2); let s = \"a\" + \"b\"; print(s);")
        .unwrap();
    assert_eq!(out(&mut e), "3\nab\n");
    assert_eq!(e.native_code(), before);
    // A redefinition starts over on the interpreter.
    e.eval("fn sq(x: int) -> int { return x * x * x; }")
        .unwrap();
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Interp);
    assert_eq!(e.call("total", &[Val::Int(4)]).unwrap(), Val::Int(36));
    e.set_tier(Tier::Interp).unwrap();
    e.eval("print(sq(6));").unwrap();
    assert_eq!(out(&mut e), "216\n");
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Interp);
    assert_eq!(e.function_tier("total").unwrap(), Tier::Interp);
    assert_eq!(e.native_code().units, 0);
}

#[test]
fn top_level_code_and_replaced_programs_free_their_units() {
    let mut e = auto_engine(1);
    e.eval("fn sq(x: int) -> int { return x * x; }").unwrap();
    e.eval("print(sq(2));").unwrap();
    let one = e.native_code();
    assert_eq!(one.units, 1, "{one:?}");
    // Top-level code with a loop is compiled in its own unit, which is
    // freed once it has run.
    for _ in 0..50 {
        e.eval("var t = 0; for i in 0..10 { t += sq(i); } print(t);")
            .unwrap();
    }
    assert_eq!(out(&mut e), format!("4\n{}", "285\n".repeat(50)));
    assert_eq!(e.native_code(), one);
    // `run` replaces the whole program and its code.
    for _ in 0..20 {
        e.run(
            "p.wdl",
            "fn f(n: int) -> int { return n + 1; } print(f(1));",
        )
        .unwrap();
    }
    assert_eq!(out(&mut e), "2\n".repeat(20));
    // `f` is inlined into the top-level code, whose unit is freed once it
    // has run: nothing is left.
    assert_eq!(e.native_code().units, 0);
}

#[test]
fn string_constants_stay_right_across_units_on_every_native_tier() {
    for tier in [Tier::Baseline, Tier::Opt] {
        if !tier.is_available() {
            continue;
        }
        let mut e = engine(tier);
        // Each entry is compiled as it runs; later entries call code of
        // earlier ones, whose constants must not be read from the newer
        // unit's string table.
        e.eval("fn f() -> str { return \"a\"; }").unwrap();
        e.eval("fn g() -> str { return \"b\"; }").unwrap();
        e.eval("print(f() + g());").unwrap();
        e.eval("fn f() -> str { return \"c\" + \"d\"; }").unwrap();
        e.eval("print(f() + g());").unwrap();
        assert_eq!(out(&mut e), "ab\ncdb\n", "{tier}");
    }
}
