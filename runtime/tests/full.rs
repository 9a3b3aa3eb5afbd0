//! `auto` promoting from T2 to T3 (`full`, the VSDG round trip before
//! Cranelift): T2 code counts its calls and loop back edges, and when a
//! counter runs out the function is recompiled with T3, at once
//! (`--jit-sync`) or on the compiler thread and installed at a later safe
//! point. Every result is compared with the interpreter's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use waddle::{
    Config, Error, OutputSink, Session, Tier, TierEvent, TierHook, TierOptions, TierThresholds, Val,
};

/// Whether this build runs T2 and T3 (the point of these tests).
fn t3_available() -> bool {
    Tier::Opt.is_available() && Tier::Full.is_available()
}

/// An `auto` session with `thresholds`, recording tier events (or an
/// interpreter-only session when `thresholds` is `None`); the flag is set
/// when a function reaches T3.
fn session_flagged(
    thresholds: Option<TierThresholds>,
    sync: bool,
) -> (Session, Arc<Mutex<Vec<TierEvent>>>, Arc<AtomicBool>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let reached = Arc::new(AtomicBool::new(false));
    let (sink, flag) = (events.clone(), reached.clone());
    // -O0: the callees must not be inlined into their callers.
    let s = Session::with_config(
        &Config::new()
            .tier(if thresholds.is_some() {
                Tier::Auto
            } else {
                Tier::Interp
            })
            .opt_level(0)
            .tiering(TierOptions {
                thresholds: thresholds.unwrap_or_default(),
                sync,
                hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                    sink.lock().unwrap().push(e.clone());
                    if e.to == Tier::Full {
                        flag.store(true, Ordering::SeqCst);
                    }
                }))),
                chaos: None,
            }),
        OutputSink::Capture,
    )
    .unwrap();
    (s, events, reached)
}

/// [`session_flagged`] without the flag.
fn session(
    thresholds: Option<TierThresholds>,
    sync: bool,
) -> (Session, Arc<Mutex<Vec<TierEvent>>>) {
    let (s, events, _) = session_flagged(thresholds, sync);
    (s, events)
}

fn thresholds(calls: u32, loops: u32, full: u32) -> Option<TierThresholds> {
    Some(TierThresholds { calls, loops, full })
}

/// `(from, to, reason)` of the events of `func`.
fn moves(events: &Mutex<Vec<TierEvent>>, func: &str) -> Vec<(Tier, Tier, &'static str)> {
    (events.lock().unwrap().iter())
        .filter(|e| e.function == func)
        .map(|e| (e.from, e.to, e.reason))
        .collect()
}

const MIXED: &str = r#"
fn poly(x: int) -> int {
    var r = x * x - 3 * x + 7;
    if x % 3 == 0 { r = r + (x >> 1); } else { r = r - (x & 5); }
    return r;
}
fn strs(n: int) -> str {
    var s = "";
    var i = 0;
    while i < n { s = s + str(i % 10); i += 1; }
    return s;
}
fn sum(a: [int]) -> int {
    var t = 0;
    for i in 0..len(a) { t += a[i] * 2 - 1; }
    return t;
}
"#;

/// Calls `poly`, `strs` and `sum` many times with varied arguments and
/// returns every result.
fn exercise(s: &mut Session) -> Vec<Val> {
    let mut out = Vec::new();
    for i in -40..60 {
        out.push(s.call("poly", &[Val::Int(i)]).unwrap());
        out.push(s.call("strs", &[Val::Int(i.rem_euclid(13))]).unwrap());
        let arr = Val::Array([i, i * 3, 3, -7].map(Val::Int).to_vec());
        out.push(s.call("sum", &[arr]).unwrap());
    }
    out
}

#[test]
fn counters_in_t2_code_promote_to_t3_with_jit_sync() {
    if !t3_available() {
        return;
    }
    let (mut reference, _) = session(None, true);
    reference.eval_named("mixed.wdl", MIXED).unwrap();
    let expected = exercise(&mut reference);
    // T0 -> T2 after 3 calls (or before the first run, with a loop),
    // T2 -> T3 after 5 more calls or back edges.
    let (mut s, events) = session(thresholds(3, 0, 5), true);
    s.eval_named("mixed.wdl", MIXED).unwrap();
    assert_eq!(exercise(&mut s), expected);
    for f in ["poly", "strs", "sum"] {
        assert_eq!(s.function_tier(f).unwrap(), Tier::Full, "{f}");
        let m = moves(&events, f);
        assert_eq!(m.len(), 2, "{f}: {m:?}");
        assert_eq!((m[0].0, m[0].1), (Tier::Interp, Tier::Opt), "{f}");
        assert_eq!((m[1].0, m[1].1), (Tier::Opt, Tier::Full), "{f}");
    }
    // `poly` has no loop: its calls ran the counters out; `sum` loops,
    // compiles before its first run, and its back edges ran out first.
    assert_eq!(moves(&events, "poly")[0].2, "calls");
    assert_eq!(moves(&events, "poly")[1].2, "calls");
    assert_eq!(moves(&events, "sum")[0].2, "first run");
    assert_eq!(moves(&events, "sum")[1].2, "loop");
    assert!(events.lock().unwrap().iter().all(|e| !e.background));
    assert_eq!(s.full_promotions(), 3);
    assert_eq!(s.promotions(), 6);
    // Deterministic: a second session promotes at the same calls.
    let (mut again, events2) = session(thresholds(3, 0, 5), true);
    again.eval_named("mixed.wdl", MIXED).unwrap();
    assert_eq!(exercise(&mut again), expected);
    let strip = |ev: &Mutex<Vec<TierEvent>>| -> Vec<(String, Tier, Tier, &'static str)> {
        (ev.lock().unwrap().iter())
            .map(|e| (e.function.clone(), e.from, e.to, e.reason))
            .collect()
    };
    assert_eq!(strip(&events), strip(&events2));
}

#[test]
fn full_threshold_zero_keeps_functions_on_t2() {
    if !t3_available() {
        return;
    }
    let (mut s, events) = session(thresholds(3, 0, 0), true);
    s.eval_named("mixed.wdl", MIXED).unwrap();
    exercise(&mut s);
    assert_eq!(s.function_tier("poly").unwrap(), Tier::Opt);
    assert_eq!(s.full_promotions(), 0);
    assert!(
        (events.lock().unwrap().iter()).all(|e| e.to != Tier::Full),
        "{:?}",
        events.lock().unwrap()
    );
}

/// A loop function called once more after OSR: its second call starts in
/// T2 code, whose back edges run the counter out; that activation finishes
/// in T2 and the third call runs T3 code.
#[test]
fn a_hot_loop_in_t2_code_promotes_the_next_call_to_t3() {
    if !t3_available() {
        return;
    }
    const SRC: &str = "fn kernel(n: int) -> int {
        var t = 0;
        var i = 0;
        while i < n { t = t + (i ^ (i >> 3)) % 7; i += 1; }
        return t;
    }";
    let (mut reference, _) = session(None, true);
    reference.eval_named("k.wdl", SRC).unwrap();
    let (mut s, events) = session(thresholds(1000, 100, 500), true);
    s.eval_named("k.wdl", SRC).unwrap();
    for n in [5000, 5000, 5000, 17] {
        let want = reference.call("kernel", &[Val::Int(n)]).unwrap();
        assert_eq!(s.call("kernel", &[Val::Int(n)]).unwrap(), want);
    }
    assert_eq!(
        moves(&events, "kernel"),
        vec![
            (Tier::Interp, Tier::Opt, "osr"),
            (Tier::Interp, Tier::Opt, "calls"),
            (Tier::Opt, Tier::Full, "loop"),
        ]
    );
    assert_eq!(s.function_tier("kernel").unwrap(), Tier::Full);
}

/// Background mode: the T3 compile runs on the compiler thread while the
/// program goes on in T2 code, and is installed at a safe point the T2
/// code's own counters provide. `driver` is pinned to T2 (no counters),
/// so `leafy`'s T1 and T2 counters are the only safe points.
#[test]
fn a_background_t3_compile_is_installed_while_only_compiled_code_runs() {
    if !t3_available() || !Tier::Baseline.is_available() {
        return;
    }
    let (mut s, events, installed) = session_flagged(thresholds(5, 1_000_000_000, 50), false);
    let flag = installed.clone();
    s.register_fn("installed", move || flag.load(Ordering::SeqCst))
        .unwrap();
    s.eval_named(
        "bg.wdl",
        "fn leafy(x: int) -> int { return x % 7 + 1; }
         fn driver() -> int {
             var t = 0;
             var i = 0;
             while !installed() && i < 2000000000 { t += leafy(i); i += 1; }
             for k in 0..100 { t += leafy(k); }
             return t;
         }",
    )
    .unwrap();
    s.set_function_tier("driver", Some(Tier::Opt)).unwrap();
    let Val::Int(t) = s.call("driver", &[]).unwrap() else {
        panic!("driver returns an int");
    };
    assert!(
        installed.load(Ordering::SeqCst),
        "{:?}",
        events.lock().unwrap()
    );
    assert!(t > 0);
    assert_eq!(s.function_tier("leafy").unwrap(), Tier::Full);
    let m = moves(&events, "leafy");
    let tiers: Vec<(Tier, Tier)> = m.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        tiers,
        vec![
            (Tier::Interp, Tier::Baseline),
            (Tier::Baseline, Tier::Opt),
            (Tier::Opt, Tier::Full),
        ]
    );
    let last = events.lock().unwrap().last().cloned().unwrap();
    assert!(last.background && last.code_bytes > 0, "{last:?}");
    assert_eq!(s.call("leafy", &[Val::Int(6)]).unwrap(), Val::Int(7));
}

/// Runtime errors raised in T3 code have the interpreter's message,
/// location and stack trace; a redefined function starts over on T0.
#[test]
fn errors_and_redefinition_after_t3() {
    if !t3_available() {
        return;
    }
    const SRC: &str = "fn pick(a: [int], i: int) -> int { return a[i] / (i - 3); }
fn outer(i: int) -> int { return pick([1, 2, 3, 4, 5], i) + 1; }";
    let (mut reference, _) = session(None, true);
    reference.eval_named("e.wdl", SRC).unwrap();
    let (mut s, events) = session(thresholds(2, 1_000_000, 3), true);
    s.eval_named("e.wdl", SRC).unwrap();
    for i in 0..20 {
        let want = reference.call("outer", &[Val::Int(i % 3)]).unwrap();
        assert_eq!(s.call("outer", &[Val::Int(i % 3)]).unwrap(), want);
    }
    assert_eq!(s.function_tier("pick").unwrap(), Tier::Full);
    assert_eq!(s.function_tier("outer").unwrap(), Tier::Full);
    for i in [3, 7, -1] {
        let shown = |r: Result<Val, Error>| match r {
            Err(Error::Runtime(e)) => {
                format!("{} at {:?} trace {:?}", e.message, e.location, e.trace)
            }
            other => panic!("expected a runtime error, got {other:?}"),
        };
        assert_eq!(
            shown(s.call("outer", &[Val::Int(i)])),
            shown(reference.call("outer", &[Val::Int(i)])),
            "{i}"
        );
    }
    s.eval_named(
        "e2.wdl",
        "fn pick(a: [int], i: int) -> int { return a[i] * 100; }",
    )
    .unwrap();
    assert_eq!(s.function_tier("pick").unwrap(), Tier::Interp);
    assert_eq!(s.call("outer", &[Val::Int(2)]).unwrap(), Val::Int(301));
    assert!(moves(&events, "pick").contains(&(Tier::Opt, Tier::Full, "calls")));
}

/// The embedding API counts T3 promotions on the store
/// (`Store::full_promotions`, which `waddle bench` shows).
#[test]
fn the_store_counts_t3_promotions() {
    if !t3_available() {
        return;
    }
    let config = waddle::Config::new()
        .tier(Tier::Auto)
        .opt_level(0)
        .tiering(TierOptions {
            thresholds: TierThresholds {
                calls: 2,
                loops: 0,
                full: 4,
            },
            sync: true,
            ..TierOptions::default()
        });
    let engine = waddle::Engine::new(&config).unwrap();
    let module = waddle::Module::new(
        &engine,
        "s.wdl",
        "fn sq(x: int) -> int { return x * x; }
         fn main() -> int { var t = 0; for i in 0..20 { t += sq(i); } return t; }",
    )
    .unwrap();
    let mut store = waddle::Store::new(&engine);
    let instance = store.instantiate(&module).unwrap();
    assert_eq!(store.full_promotions(), 0);
    let r = instance.call(&mut store, "main", &[]).unwrap();
    assert_eq!(r, Val::Int(2470));
    // `main` (a loop, compiled before its first run, then its back edges)
    // and `sq` (its calls) both reach T3.
    assert_eq!(store.full_promotions(), 2);
    assert_eq!(store.tier_ups(), (4, 0));
}

/// T3's code compared by its disassembly (`:asm`), so with the `disasm`
/// feature only (the workspace's test run turns it on through the CLI and
/// lang-tests; `cargo test -p waddle --features disasm` alone).
#[cfg(feature = "disasm")]
mod same_code {
    use super::*;

    /// Function `name`'s machine code as `:asm` shows it, reduced to what does
    /// not depend on where it was placed: its size in bytes and the mnemonics
    /// of its instructions.
    fn code_shape(s: &Session, name: &str) -> (String, Vec<String>) {
        let asm = s.function_asm(name).unwrap();
        let mut lines = asm.lines();
        let head = lines.next().unwrap();
        let size = head.split(" bytes").next().unwrap().to_string();
        let is_byte = |t: &&str| t.len() == 2 && t.chars().all(|c| c.is_ascii_hexdigit());
        let mnemonics = lines
            .filter_map(|l| l.split_once(": "))
            .filter_map(|(_, rest)| rest.split_whitespace().find(|t| !is_byte(t)))
            .map(str::to_string)
            .collect();
        (size, mnemonics)
    }

    /// `classify` of the shortcircuit benchmark: the VSDG round trip tests
    /// each condition once and computes `heavy` only on the paths that return
    /// it, so its T3 code differs from its T2 code.
    const CLASSIFY: &str = "fn classify(i: int, k: int) -> int {\n\
        let a = i * 7 + k; let heavy = (a * a + 13) % 1009; let light = a % 17;\n\
        if (i % 3 == 0 || i % 5 == 0) && a % 7 != 1 { return heavy + light; }\n\
        if i % 4 == 1 && (light > 8 || a % 11 == 0) { return heavy + 17 - light; }\n\
        return light; }";
    const CLASSIFY_CALLS: &str =
        "var t = 0; for i in 0..40 { t = t + classify(i, i % 5); } print(t);";

    /// A session of `tier` (`-O2`) with `classify` defined and `setup` done,
    /// after running [`CLASSIFY_CALLS`]; its output.
    fn classify_session(config: Config, setup: impl FnOnce(&mut Session)) -> (Session, Vec<u8>) {
        let mut s = Session::with_config(&config.opt_level(2), OutputSink::Capture).unwrap();
        s.eval(CLASSIFY).unwrap();
        setup(&mut s);
        s.eval(CLASSIFY_CALLS).unwrap();
        let out = s.take_output();
        (s, out)
    }

    /// T3 code of a function is the same whatever tier the session had when
    /// the function was compiled: pinned to `full` in an `opt` session, moved
    /// by `set_tier(Full)`, and promoted by `auto` all run the VSDG round trip
    /// the `opt` pipeline did not, and give `--tier full`'s code.
    #[test]
    fn t3_code_is_the_same_under_every_session_tier() {
        if !t3_available() {
            return;
        }
        let (interp, expected) = classify_session(Config::new().tier(Tier::Interp), |_| {});
        drop(interp);
        let (full, out) = classify_session(Config::new().tier(Tier::Full), |_| {});
        assert_eq!(out, expected);
        assert_eq!(full.function_tier("classify").unwrap(), Tier::Full);
        let t3 = code_shape(&full, "classify");
        let (opt, out) = classify_session(Config::new().tier(Tier::Opt), |_| {});
        assert_eq!(out, expected);
        // Otherwise this test could not tell T3 code from T2 code.
        assert_ne!(code_shape(&opt, "classify"), t3);

        let (pinned, out) = classify_session(Config::new().tier(Tier::Opt), |s| {
            s.set_function_tier("classify", Some(Tier::Full)).unwrap();
        });
        assert_eq!(out, expected);
        assert_eq!(pinned.function_tier("classify").unwrap(), Tier::Full);
        assert_eq!(
            code_shape(&pinned, "classify"),
            t3,
            "pinned to full under opt"
        );

        let (mut switched, out) = classify_session(Config::new().tier(Tier::Opt), |_| {});
        assert_eq!(out, expected);
        switched.set_tier(Tier::Full).unwrap();
        switched.eval(CLASSIFY_CALLS).unwrap();
        assert_eq!(switched.take_output(), expected);
        assert_eq!(switched.function_tier("classify").unwrap(), Tier::Full);
        assert_eq!(
            code_shape(&switched, "classify"),
            t3,
            "set_tier(Full) after opt"
        );

        let auto = Config::new().tier(Tier::Auto).tiering(TierOptions {
            thresholds: TierThresholds {
                calls: 1,
                loops: 1,
                full: 1,
            },
            sync: true,
            hook: None,
            chaos: None,
        });
        let (promoted, out) = classify_session(auto, |_| {});
        assert_eq!(out, expected);
        assert_eq!(promoted.function_tier("classify").unwrap(), Tier::Full);
        assert_eq!(code_shape(&promoted, "classify"), t3, "auto's T3 promotion");

        // A function of a `full` session goes through the round trip once.
        let (pinned_full, out) = classify_session(Config::new().tier(Tier::Full), |s| {
            s.set_function_tier("classify", Some(Tier::Full)).unwrap();
        });
        assert_eq!(out, expected);
        assert_eq!(
            code_shape(&pinned_full, "classify"),
            t3,
            "pinned to full under full"
        );
    }
}

/// A loop whose VSDG round trip at `-O2` takes fewer backward jumps than
/// the `-O2` code: the program costs the interpreter 1076 units,
/// `--tier full` 676. `h` is too big to inline (two lines more and it would not be).
const SKIPS: &str = "
fn h(n: int) -> int {
    var s = 0;
    for i in 0..n { if i % 3 == 0 { continue; } s += i; if s > 100000 { break; } }
    var x = s * 3 + 1;
    x = x * 5 - s % 7;
    x = x + (s / 3) * 11 - (x % 13);
    x = x - (s % 5) * 17 + (x / 19);
    x = x * 3 - (x % 23) + s * 29;
    x = x + (x % 31) - (s % 37);
    x = x * 7 + (x % 41) - s * 43;
    x = x - (x / 47) + (s % 53);
    return x;
}
var t = 0;
for k in 0..50 { t += h(k); print(t); }
";

/// `SKIPS` at `-O2` under a fuel budget: on the interpreter, or on `auto`
/// promoting at once (T2 after 2 calls or back edges, T3 after 2 more in
/// T2 code); the output, the error with its location and stack trace,
/// and whether `h` reached T3.
fn run_metered(tier: Tier, fuel: u64) -> (String, bool) {
    let reached = Arc::new(AtomicBool::new(false));
    let flag = reached.clone();
    let mut s = Session::with_config(
        &Config::new().tier(tier).opt_level(2).tiering(TierOptions {
            thresholds: TierThresholds {
                calls: 2,
                loops: 2,
                full: 2,
            },
            sync: true,
            hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                if e.function == "h" && e.to == Tier::Full {
                    flag.store(true, Ordering::SeqCst);
                }
            }))),
            chaos: None,
        }),
        OutputSink::Capture,
    )
    .unwrap();
    s.set_fuel(Some(fuel));
    let r = s.run("skips.wdl", SKIPS);
    let mut shown = String::from_utf8(s.take_output()).unwrap();
    match r {
        Ok(()) => {}
        Err(Error::Runtime(e)) => {
            let at = e.location.map_or_else(|| "?".into(), |l| l.to_string());
            shown += &format!("error: {} at {at}\n{:?}\n", e.message, e.trace);
        }
        Err(e) => panic!("{e}"),
    }
    (shown, reached.load(Ordering::SeqCst))
}

/// Fuel counts the `-O` pipeline's code on every tier. Under a budget,
/// `auto`'s promotions to T3 skip the round trip, so fuel runs out where
/// the interpreter's does; with the round trip, `h`'s loop charges fewer
/// units once on T3 and the program runs on past that point.
#[test]
fn under_a_fuel_budget_t3_charges_what_the_interpreter_does() {
    if !t3_available() {
        return;
    }
    // The interpreter's whole need: the smallest budget it completes with
    // (found by bisection, so the test follows the pipeline's code).
    let completes = |fuel| !run_metered(Tier::Interp, fuel).0.contains("error");
    let (mut lo, mut hi) = (1u64, 1u64 << 16);
    assert!(completes(hi), "SKIPS needs more than {hi} units");
    while lo < hi {
        let mid = (lo + hi) / 2;
        if completes(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let need = lo;
    assert!(need > 400, "SKIPS needs only {need} units");
    for fuel in [300, need / 2, need * 2 / 3, need - 50, need - 1] {
        let (expected, _) = run_metered(Tier::Interp, fuel);
        assert!(expected.contains("out of fuel"), "fuel {fuel}: {expected}");
        let (got, t3) = run_metered(Tier::Auto, fuel);
        assert_eq!(got, expected, "fuel {fuel}");
        assert!(t3, "fuel {fuel}: h did not reach T3");
    }
}
