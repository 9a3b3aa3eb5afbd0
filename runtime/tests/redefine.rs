//! REPL redefinition frees replaced native code: redefining a function
//! 10 000 times keeps the engine's (and the process's) machine code bounded.
//! One test per process, so the process-wide counters see only this engine.

use waddle::{Config, OutputSink, Session, Tier, Val};

#[test]
fn redefining_a_function_10000_times_keeps_code_memory_bounded() {
    let mut e = Session::with_config(
        &Config::new().tier(Tier::Opt).opt_level(0),
        OutputSink::Capture,
    )
    .unwrap();
    e.eval("fn f() -> int { return 0; } fn g() -> int { return f() + 1; }")
        .unwrap();
    let mut after_warmup = None;
    for i in 1..=10_000i64 {
        e.eval(&format!("fn f() -> int {{ return {i}; }}")).unwrap();
        if i == 100 {
            after_warmup = Some((e.native_code(), waddle_jit::code_memory()));
            // `g` was compiled once, before all the redefinitions, and calls
            // the newest `f` through its entry slot.
            assert_eq!(e.call("g", &[]).unwrap(), Val::Int(101));
        }
    }
    assert_eq!(e.call("g", &[]).unwrap(), Val::Int(10_001));
    assert_eq!(e.call("f", &[]).unwrap(), Val::Int(10_000));
    let (engine_then, process_then) = after_warmup.unwrap();
    let engine_now = e.native_code();
    let process_now = waddle_jit::code_memory();
    // Two live units (`g`'s and the newest `f`'s), whatever the count of
    // redefinitions; the byte count may differ only by the width of the
    // constant.
    assert_eq!(engine_now.units, 2, "{engine_now:?}");
    assert_eq!(engine_then.units, 2, "{engine_then:?}");
    assert!(
        engine_now.bytes <= engine_then.bytes + 64,
        "{engine_then:?} -> {engine_now:?}"
    );
    assert_eq!(process_now.units, 2, "{process_now:?}");
    assert!(
        process_now.bytes <= process_then.bytes + 64,
        "{process_then:?} -> {process_now:?}"
    );
    eprintln!("after 100 redefinitions: {engine_then:?}; after 10000: {engine_now:?}");
    drop(e);
    assert_eq!(waddle_jit::code_memory().units, 0);
}
