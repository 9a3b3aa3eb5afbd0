//! Mixed-tier calls: functions pinned to different tiers call each other in
//! both directions (the interpreter through entry slots, compiled code
//! through interpreter-entry stubs), with garbage collection, runtime
//! errors, stack overflow and fuel in the middle of a mixed call chain.
//! Every result is compared with the all-interpreter run.

use waddle::{Config, Error, OutputSink, Session, Tier, Val};

/// Native tiers of this build.
fn native_tiers() -> Vec<Tier> {
    [Tier::Baseline, Tier::Opt, Tier::Full]
        .into_iter()
        .filter(|t| t.is_available())
        .collect()
}

fn session(gc_stress: bool, fuel: Option<u64>) -> Session {
    Session::with_config(
        &Config::new().tier(Tier::Interp).gc_stress(gc_stress),
        OutputSink::Capture,
    )
    .map(|mut s| {
        s.set_fuel(fuel);
        s
    })
    .unwrap()
}

/// Loads `src` and pins the functions to the tiers given.
fn pinned(src: &str, pins: &[(&str, Tier)], gc_stress: bool, fuel: Option<u64>) -> Session {
    let mut s = session(gc_stress, fuel);
    s.eval_named("mixed.wdl", src).unwrap();
    for &(name, tier) in pins {
        s.set_function_tier(name, Some(tier)).unwrap();
    }
    s
}

fn runtime_error(r: Result<Val, Error>) -> (String, String) {
    match r {
        Err(Error::Runtime(e)) => (
            e.message,
            e.location
                .map_or_else(|| "<unknown>".to_string(), |l| l.to_string()),
        ),
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

/// Allocates in every function of the chain, keeping references live
/// across the calls, so a collection in the middle (stress mode collects
/// before every allocation) must find roots in interpreter and native
/// frames interleaved.
const CHAIN: &str = r#"
fn leaf(n: int) -> [str] {
    var a: [str] = [];
    for i in 0..n { push(a, "v" + str(i)); }
    return a;
}
fn mid(n: int) -> int {
    let before = "m" + str(n);
    let a = leaf(n);
    let b = leaf(n + 1);
    return len(a) + len(b) + len(before) + len(a[0]) + len(b[n]);
}
fn top(n: int) -> int {
    var keep: [[int]] = [];
    var t = 0;
    for i in 1..n {
        push(keep, [i, i * 2]);
        t += mid(i);
    }
    return t + len(keep) + keep[0][1];
}
fn fails(n: int) -> int {
    let a = leaf(n);
    return len(a) / (n - 3);
}
fn calls_fails(n: int) -> int { return fails(n) + 1; }
fn down(n: int) -> int {
    if n == 0 { return 0; }
    return down(n - 1) + 1;
}
fn spin(n: int, d: int) -> int {
    var t = 0;
    for i in 0..n { t += i % 7; }
    return t + down(d);
}
fn ping(n: int) -> int { return pong(n + 1) + 1; }
fn pong(n: int) -> int { return ping(n + 1) + 1; }
"#;

#[test]
fn mixed_chains_with_gc_in_the_middle_agree_with_the_interpreter() {
    let mut reference = pinned(CHAIN, &[], true, None);
    let want = reference.call("top", &[Val::Int(12)]).unwrap();
    for native in native_tiers() {
        // Interpreter → native → interpreter, and native → interpreter → native.
        for pins in [
            [
                ("top", Tier::Interp),
                ("mid", native),
                ("leaf", Tier::Interp),
            ],
            [("top", native), ("mid", Tier::Interp), ("leaf", native)],
        ] {
            let mut s = pinned(CHAIN, &pins, true, None);
            assert_eq!(s.call("top", &[Val::Int(12)]).unwrap(), want, "{pins:?}");
            for &(name, tier) in &pins {
                assert_eq!(s.function_tier(name).unwrap(), tier, "{pins:?}");
            }
            assert!(s.heap_stats().collections > 0, "{pins:?}");
        }
    }
}

#[test]
fn runtime_errors_cross_tiers_with_their_locations() {
    let mut reference = pinned(CHAIN, &[], false, None);
    let want = runtime_error(reference.call("calls_fails", &[Val::Int(3)]));
    assert_eq!(want.0, "division by zero");
    for native in native_tiers() {
        for pins in [
            [("calls_fails", Tier::Interp), ("fails", native)],
            [("calls_fails", native), ("fails", Tier::Interp)],
        ] {
            let mut s = pinned(CHAIN, &pins, false, None);
            let got = runtime_error(s.call("calls_fails", &[Val::Int(3)]));
            assert_eq!(got, want, "{pins:?}");
            // The session keeps working after the error.
            assert_eq!(
                s.call("calls_fails", &[Val::Int(5)]).unwrap(),
                Val::Int(3),
                "{pins:?}"
            );
        }
    }
}

#[test]
fn unbounded_recursion_across_tiers_is_a_stack_overflow() {
    for native in native_tiers() {
        let mut s = pinned(
            CHAIN,
            &[("ping", Tier::Interp), ("pong", native)],
            false,
            None,
        );
        let (msg, loc) = runtime_error(s.call("ping", &[Val::Int(0)]));
        assert_eq!(msg, "stack overflow", "{native}");
        assert!(loc.starts_with("mixed.wdl:"), "{native}: {loc}");
        // Still usable afterwards.
        assert_eq!(s.call("mid", &[Val::Int(2)]).unwrap(), Val::Int(11));
    }
}

#[test]
fn fuel_runs_out_across_tiers() {
    for native in native_tiers() {
        let mut s = pinned(
            CHAIN,
            &[("top", native), ("mid", Tier::Interp)],
            false,
            Some(500),
        );
        let (msg, _) = runtime_error(s.call("top", &[Val::Int(1000)]));
        assert_eq!(msg, "out of fuel", "{native}");
        s.set_fuel(None);
        // With fuel, an all-interpreter and a mixed run charge the same
        // units: one per function entry and loop back edge.
        let mut reference = pinned(CHAIN, &[], false, Some(1_000_000));
        reference.call("top", &[Val::Int(6)]).unwrap();
        let mut mixed = pinned(
            CHAIN,
            &[("top", native), ("mid", Tier::Interp), ("leaf", native)],
            false,
            Some(1_000_000),
        );
        mixed.call("top", &[Val::Int(6)]).unwrap();
        assert_eq!(mixed.fuel(), reference.fuel(), "{native}");
    }
}

/// The message, location and stack trace of a runtime error.
fn traced_error(r: Result<Val, Error>) -> String {
    match r {
        Err(Error::Runtime(e)) => format!("{} at {:?}: {:?}", e.message, e.location, e.trace),
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

/// Fuel is paid in batches of 1024 units; a call across tiers goes on
/// with its caller's batch, so under every mix the budget runs out at the
/// interpreter's unit: the same location and stack trace, the same fuel
/// left. (With a fresh batch per tier entry, the units the caller had
/// counted were paid only when it returned, so a mixed chain ran on for
/// up to a batch longer and ran out elsewhere.)
#[test]
fn fuel_runs_out_at_the_interpreters_location_under_every_mix() {
    // `top`: calls in both directions; `spin`: a loop on one tier that
    // leaves part of a batch counted, then a recursion on the other (its
    // depth at `out of fuel` shows in the stack trace).
    let runs: [(&str, &[Val]); 2] = [
        ("top", &[Val::Int(200)]),
        ("spin", &[Val::Int(500), Val::Int(100_000)]),
    ];
    for fuel in [1500, 2100, 3333, 9000] {
        for (entry, args) in runs {
            let mut reference = pinned(CHAIN, &[], false, Some(fuel));
            let want = traced_error(reference.call(entry, args));
            assert!(want.starts_with("out of fuel"), "{want}");
            for native in native_tiers() {
                for pins in [
                    [
                        ("top", Tier::Interp),
                        ("mid", native),
                        ("leaf", Tier::Interp),
                        ("spin", Tier::Interp),
                        ("down", native),
                    ],
                    [
                        ("top", native),
                        ("mid", Tier::Interp),
                        ("leaf", native),
                        ("spin", native),
                        ("down", Tier::Interp),
                    ],
                ] {
                    let mut s = pinned(CHAIN, &pins, false, Some(fuel));
                    let got = traced_error(s.call(entry, args));
                    assert!(got == want, "{entry}, {fuel} units, {pins:?}");
                    assert_eq!(s.fuel(), reference.fuel(), "{entry}, {fuel}, {pins:?}");
                }
            }
        }
    }
}

#[test]
fn unpinning_returns_a_function_to_the_policy() {
    let mut s = pinned(CHAIN, &[("mid", Tier::Opt)], false, None);
    assert_eq!(s.call("mid", &[Val::Int(3)]).unwrap(), Val::Int(13));
    assert_eq!(s.function_tier("mid").unwrap(), Tier::Opt);
    s.set_function_tier("mid", None).unwrap();
    assert_eq!(s.call("mid", &[Val::Int(3)]).unwrap(), Val::Int(13));
    assert_eq!(s.function_tier("mid").unwrap(), Tier::Interp);
    assert!(s.set_function_tier("mid", Some(Tier::Auto)).is_err());
    assert!(s.set_function_tier("nope", Some(Tier::Opt)).is_err());
}

#[test]
fn a_background_compile_is_installed_while_its_caller_runs() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let installed = Arc::new(AtomicBool::new(false));
    let events = Arc::new(Mutex::new(Vec::new()));
    let (flag, log) = (installed.clone(), events.clone());
    let hook = waddle::TierHook(Arc::new(move |e: &waddle::TierEvent| {
        log.lock().unwrap().push(e.clone());
        if e.background && e.function == "leafy" {
            flag.store(true, Ordering::SeqCst);
        }
    }));
    // -O0: `leafy` must not be inlined into `driver`.
    let mut s = Session::with_config(
        &Config::new()
            .tier(Tier::Auto)
            .opt_level(0)
            .tiering(waddle::TierOptions {
                thresholds: waddle::TierThresholds {
                    calls: 5,
                    loops: 1_000_000_000,
                    full: 0,
                },
                sync: false,
                hook: Some(hook),
                chaos: None,
            }),
        OutputSink::Capture,
    )
    .unwrap();
    let flag = installed.clone();
    s.register_fn("installed", move || flag.load(Ordering::SeqCst))
        .unwrap();
    // `driver` stays on the interpreter (its loop threshold is never
    // reached) and keeps calling `leafy` until the background compile of
    // `leafy` has been installed: the install happens at a safe point
    // while `driver`'s frame is on the stack.
    s.eval_named(
        "bg.wdl",
        "fn leafy(x: int) -> int { return x % 7 + 1; }
         fn driver() -> int {
             var t = 0;
             var i = 0;
             while !installed() { t += leafy(i); i += 1; }
             for k in 0..100 { t += leafy(k); }
             return t - i * 0;
         }",
    )
    .unwrap();
    let Val::Int(t) = s.call("driver", &[]).unwrap() else {
        panic!("driver returns an int");
    };
    assert!(t > 0);
    assert!(installed.load(Ordering::SeqCst));
    assert_eq!(s.function_tier("leafy").unwrap(), Tier::Opt);
    assert_eq!(s.function_tier("driver").unwrap(), Tier::Interp);
    let events = events.lock().unwrap();
    let last = events.iter().rfind(|e| e.function == "leafy").unwrap();
    assert!(last.background && last.to == Tier::Opt, "{events:?}");
    assert!(last.code_bytes > 0 && last.reason == "calls", "{last:?}");
    assert_eq!(s.call("leafy", &[Val::Int(6)]).unwrap(), Val::Int(7));
}

/// A recursion that changes tier at every frame allows exactly the depth
/// of a single tier: each tier entry goes on with the depth counter its
/// caller had left (`waddle_opt::abi::carry`).
#[test]
fn a_recursion_alternating_tiers_gets_the_single_tier_depth() {
    const SRC: &str = "fn even(n: int) -> bool { if n == 0 { return true; } return odd(n - 1); }\n\
                       fn odd(n: int) -> bool { if n == 0 { return false; } return even(n - 1); }\n";
    let budget = 4usize << 20;
    let depth = waddle_opt::abi::max_call_depth(budget);
    let run = move |pins: Vec<(&'static str, Tier)>| {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(move || {
                let mut s = Session::with_config(
                    &Config::new().tier(Tier::Interp).stack_budget(budget),
                    OutputSink::Capture,
                )
                .unwrap();
                s.eval_named("mixed.wdl", SRC).unwrap();
                for (name, tier) in pins {
                    s.set_function_tier(name, Some(tier)).unwrap();
                }
                // `even(depth - 1)` nests exactly `depth` frames.
                let fits = s.call("even", &[Val::Int(depth - 1)]);
                let over = s.call("even", &[Val::Int(depth)]);
                (fits.map_err(|e| e.to_string()), runtime_error(over).0)
            })
            .unwrap()
            .join()
            .unwrap()
    };
    let single = run(Vec::new());
    assert_eq!(single, (Ok(Val::Bool(false)), "stack overflow".to_string()));
    for native in native_tiers() {
        for pins in [
            vec![("even", native)],
            vec![("odd", native)],
            vec![("even", native), ("odd", native)],
        ] {
            assert_eq!(run(pins.clone()), single, "{pins:?}");
        }
    }
}

/// T1 code counts its calls (issue 10, item 2): a function promoted to T1
/// and called only from compiled code still reaches a safe point, where
/// its background T2 compile is installed. Without the counters no safe
/// point would come while `driver` (pinned to T2) runs.
#[test]
fn counters_in_t1_code_install_t2_while_only_compiled_code_runs() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let installed = Arc::new(AtomicBool::new(false));
    let events = Arc::new(Mutex::new(Vec::new()));
    let (flag, log) = (installed.clone(), events.clone());
    let hook = waddle::TierHook(Arc::new(move |e: &waddle::TierEvent| {
        log.lock().unwrap().push(e.clone());
        if e.function == "leafy" && e.to == Tier::Opt {
            flag.store(true, Ordering::SeqCst);
        }
    }));
    let mut s = Session::with_config(
        &Config::new()
            .tier(Tier::Auto)
            .opt_level(0)
            .tiering(waddle::TierOptions {
                thresholds: waddle::TierThresholds {
                    calls: 5,
                    loops: 1_000_000_000,
                    full: 0,
                },
                sync: false,
                hook: Some(hook),
                chaos: None,
            }),
        OutputSink::Capture,
    )
    .unwrap();
    let flag = installed.clone();
    s.register_fn("installed", move || flag.load(Ordering::SeqCst))
        .unwrap();
    s.eval_named(
        "t1.wdl",
        "fn leafy(x: int) -> int { return x % 7 + 1; }
         fn driver() -> int {
             var t = 0;
             var i = 0;
             while !installed() && i < 2000000000 { t += leafy(i); i += 1; }
             return t;
         }",
    )
    .unwrap();
    s.set_function_tier("driver", Some(Tier::Opt)).unwrap();
    let Val::Int(t) = s.call("driver", &[]).unwrap() else {
        panic!("driver returns an int");
    };
    assert!(t > 0);
    assert!(
        installed.load(Ordering::SeqCst),
        "{:?}",
        events.lock().unwrap()
    );
    assert_eq!(s.function_tier("leafy").unwrap(), Tier::Opt);
    let events = events.lock().unwrap();
    let tiers: Vec<(Tier, Tier)> = (events.iter())
        .filter(|e| e.function == "leafy")
        .map(|e| (e.from, e.to))
        .collect();
    assert_eq!(
        tiers,
        vec![(Tier::Interp, Tier::Baseline), (Tier::Baseline, Tier::Opt)]
    );
}
