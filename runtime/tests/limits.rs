//! Store limits on every tier: the [`ResourceLimiter`] hook on heap
//! growth, the per-store stack limit, threads with small stacks, and fuel
//! charged in one unit on every tier.

use std::sync::{Arc, Mutex};

use waddle::{CallState, Config, Engine, Module, OutputSink, Store, Tier, TrapCode, Val};

const PROGRAM: &str = r#"
var n = 0;
fn big(k: int) -> int { var a = [1; k]; return len(a); }
fn churn(rounds: int) -> int { var t = 0; for i in 0..rounds { var a = [i; 1000]; t += len(a); } return t; }
fn depth(k: int) -> int { if k == 0 { return 0; } return 1 + depth(k - 1); }
fn fib(k: int) -> int { if k < 2 { return k; } return fib(k - 1) + fib(k - 2); }
fn count() { while true { n += 1; } }
fn work(k: int) -> int { var s = 0; for i in 0..k { s += fib(5); } return s; }
fn text(k: int) -> str { var s = ""; for i in 0..k { s = s + "x"; } return s; }
"#;

fn engines() -> Vec<(Tier, Engine)> {
    Tier::available()
        .into_iter()
        .map(|tier| (tier, Engine::new(&Config::new().tier(tier)).unwrap()))
        .collect()
}

fn store_for(engine: &Engine, module: &Module) -> (Store, waddle::Instance) {
    let mut store = Store::with_output(engine, OutputSink::Capture);
    let inst = store.instantiate(module).unwrap();
    (store, inst)
}

#[test]
fn the_limiter_decides_heap_growth_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
        let (mut store, inst) = store_for(&engine, &module);
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        store.set_limiter(move |current: usize, desired: usize, _max: Option<usize>| {
            log.lock().unwrap().push((current, desired));
            desired <= 2 << 20
        });
        let big = inst.typed_func::<(i64,), i64>(&store, "big").unwrap();
        assert_eq!(big.call(&mut store, (10_000,)).unwrap(), 10_000, "{tier}");
        let err = big.call(&mut store, (1_000_000,)).unwrap_err();
        assert_eq!(err.trap_code(), Some(TrapCode::OutOfMemory), "{tier}");
        // Requests are whole pages, each above the last grant.
        let requests = asked.lock().unwrap().clone();
        assert!(!requests.is_empty(), "{tier}");
        for &(current, desired) in &requests {
            assert!(desired > current, "{tier}: {requests:?}");
            assert_eq!(desired % waddle::MEMORY_PAGE, 0, "{tier}");
        }
        assert!(store.memory_granted() <= 2 << 20, "{tier}");
        // Denied growth collects garbage: 80 MB of short-lived arrays run
        // within a 2 MiB grant.
        let churn = inst.typed_func::<(i64,), i64>(&store, "churn").unwrap();
        assert_eq!(
            churn.call(&mut store, (10_000,)).unwrap(),
            10_000_000,
            "{tier}"
        );
        assert!(store.memory_granted() <= 2 << 20, "{tier}");
        // Strings grow the heap through the same hook.
        let text = inst.typed_func::<(i64,), String>(&store, "text").unwrap();
        assert_eq!(text.call(&mut store, (3,)).unwrap(), "xxx", "{tier}");
        // Without a limiter there is no such cap.
        store.clear_limiter();
        assert_eq!(
            big.call(&mut store, (1_000_000,)).unwrap(),
            1_000_000,
            "{tier}"
        );
    }
}

#[test]
fn the_stack_limit_is_per_store_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
        let (mut small, inst_small) = store_for(&engine, &module);
        let (mut large, inst_large) = store_for(&engine, &module);
        small.set_stack_limit(64 << 10);
        assert_eq!(small.stack_limit(), 64 << 10);
        let d_small = inst_small
            .typed_func::<(i64,), i64>(&small, "depth")
            .unwrap();
        let d_large = inst_large
            .typed_func::<(i64,), i64>(&large, "depth")
            .unwrap();
        let err = d_small.call(&mut small, (5_000,)).unwrap_err();
        assert_eq!(err.trap_code(), Some(TrapCode::StackOverflow), "{tier}");
        assert_eq!(d_large.call(&mut large, (5_000,)).unwrap(), 5_000, "{tier}");
        // Shallow calls still work in the small store (64 KiB allow 64
        // frames of a recursive function, `max_call_depth`), and raising
        // its limit lets the deep one through.
        assert_eq!(d_small.call(&mut small, (7,)).unwrap(), 7, "{tier}");
        small.set_stack_limit(16 << 20);
        assert_eq!(d_small.call(&mut small, (5_000,)).unwrap(), 5_000, "{tier}");
    }
}

#[test]
fn a_thread_with_a_256_kib_stack_runs_scripts_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
        let (mut store, inst) = store_for(&engine, &module);
        let fib = inst.typed_func::<(i64,), i64>(&store, "fib").unwrap();
        let depth = inst.typed_func::<(i64,), i64>(&store, "depth").unwrap();
        let churn = inst.typed_func::<(i64,), i64>(&store, "churn").unwrap();
        let out = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let f = fib.call(&mut store, (15,)).unwrap();
                let d = depth.call(&mut store, (200,)).unwrap();
                let c = churn.call(&mut store, (300,)).unwrap();
                // Too deep for the thread: a clean error, not a crash.
                let e = depth.call(&mut store, (10_000_000,)).unwrap_err();
                let again = fib.call(&mut store, (10,)).unwrap();
                (f, d, c, e.trap_code(), again)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(
            out,
            (610, 200, 300_000, Some(TrapCode::StackOverflow), 55),
            "{tier}"
        );
    }
}

/// Fuel counts function entries and loop back edges of the code as
/// optimized, so for one optimization level every tier charges the same.
#[test]
fn fuel_is_charged_in_one_unit_on_every_tier() {
    for level in [0, 2] {
        fuel_agrees_across_tiers(level);
    }
}

fn fuel_agrees_across_tiers(level: u8) {
    let mut seen: Vec<(Tier, u64, Val)> = Vec::new();
    for tier in Tier::available() {
        let engine = Engine::new(&Config::new().tier(tier).opt_level(level)).unwrap();
        let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
        let (mut store, inst) = store_for(&engine, &module);
        store.set_fuel(Some(1_000_000)).unwrap();
        let work = inst.typed_func::<(i64,), i64>(&store, "work").unwrap();
        assert_eq!(work.call(&mut store, (100,)).unwrap(), 500, "{tier}");
        let used = 1_000_000 - store.fuel().unwrap();
        // Running out stops at the same point on every tier.
        store.set_fuel(Some(5_000)).unwrap();
        let count = inst.typed_func::<(), ()>(&store, "count").unwrap();
        let err = count.call(&mut store, ()).unwrap_err();
        assert_eq!(err.trap_code(), Some(TrapCode::OutOfFuel), "{tier}");
        seen.push((tier, used, inst.global(&store, "n").unwrap()));
    }
    let (_, used, n) = &seen[0];
    for s in &seen {
        assert_eq!(
            (&s.1, &s.2),
            (used, n),
            "-O{level}: {:?} vs {:?}",
            s,
            seen[0]
        );
    }
}

#[test]
fn a_resumable_call_pauses_for_fuel_and_resumes_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
        let (mut store, inst) = store_for(&engine, &module);
        let work = inst.typed_func::<(i64,), i64>(&store, "work").unwrap();
        store.set_fuel(Some(3_000)).unwrap();
        let mut state = work.call_resumable(store, (2_000,));
        let mut pauses = 0;
        let (mut store, result) = loop {
            match state {
                CallState::Paused(call) => {
                    pauses += 1;
                    state = call.resume(5_000);
                }
                CallState::Done(store, result) => break (store, result),
            }
        };
        assert_eq!(result.unwrap(), 10_000, "{tier}");
        assert!(pauses >= 5, "{tier}: {pauses} pauses");
        // The store came back usable, still metered.
        assert!(store.fuel().is_some(), "{tier}");
        store.set_fuel(None).unwrap();
        assert_eq!(work.call(&mut store, (2,)).unwrap(), 10, "{tier}");

        // Cancelling a paused call fails it with `out of fuel`.
        store.set_fuel(Some(100)).unwrap();
        let count = inst.typed_func::<(), ()>(&store, "count").unwrap();
        let CallState::Paused(call) = count.call_resumable(store, ()) else {
            panic!("{tier}: an endless loop finished");
        };
        let CallState::Paused(call) = call.resume(10_000) else {
            panic!("{tier}: an endless loop finished");
        };
        let (mut store, err) = call.cancel();
        assert_eq!(err.trap_code(), Some(TrapCode::OutOfFuel), "{tier}");
        let Some(Val::Int(n)) = inst.global(&store, "n") else {
            panic!("{tier}: no global n");
        };
        assert!(n > 5_000, "{tier}: the loop did not resume ({n})");
        store.set_fuel(None).unwrap();
        assert_eq!(work.call(&mut store, (1,)).unwrap(), 5, "{tier}");

        // Without a fuel limit a resumable call just runs.
        let (_, r) = work.call_resumable(store, (3,)).done().unwrap();
        assert_eq!(r.unwrap(), 15, "{tier}");
    }
}

#[test]
fn dropping_a_paused_call_ends_its_thread() {
    let engine = Engine::default();
    let module = Module::new(&engine, "limits.wdl", PROGRAM).unwrap();
    let (mut store, inst) = store_for(&engine, &module);
    store.set_fuel(Some(10)).unwrap();
    let count = inst.typed_func::<(), ()>(&store, "count").unwrap();
    let CallState::Paused(call) = count.call_resumable(store, ()) else {
        panic!("an endless loop finished");
    };
    // The call's thread sees the cancellation and drops the store; the
    // test would hang here otherwise (joined by the test harness exit).
    drop(call);
}

/// The outcome of `work(k)` called from Rust with `fuel` units, as text:
/// the result, or the error with its location and stack trace.
fn work_with_fuel(engine: &Engine, module: &Module, k: i64, fuel: u64) -> String {
    let (mut store, inst) = store_for(engine, module);
    store.set_fuel(Some(fuel)).unwrap();
    match inst.call(&mut store, "work", &[Val::Int(k)]) {
        Ok(v) => format!("{v:?}"),
        Err(waddle::Error::Runtime(e)) => {
            format!("{} at {:?} {:?}", e.message, e.location, e.trace)
        }
        Err(e) => panic!("{e}"),
    }
}

/// Fuel is paid in batches; what a call from the embedder leaves unpaid is
/// paid as it returns. When only that last payment fails, every tier
/// reports `out of fuel` at the function's declaration with no frames (the
/// interpreter used to name its first instruction and one frame).
#[test]
fn fuel_that_runs_out_on_the_last_payment_is_reported_alike_on_every_tier() {
    let module_for = |e: &Engine| Module::new(e, "limits.wdl", PROGRAM).unwrap();
    let interp = Engine::new(&Config::new().tier(Tier::Interp)).unwrap();
    let module = module_for(&interp);
    let used = {
        let (mut store, inst) = store_for(&interp, &module);
        store.set_fuel(Some(1_000_000)).unwrap();
        inst.call(&mut store, "work", &[Val::Int(40)]).unwrap();
        1_000_000 - store.fuel().unwrap()
    };
    assert!(used < 1024, "one partial batch: {used}");
    for fuel in [used - 1, used / 2, 1] {
        let expected = work_with_fuel(&interp, &module, 40, fuel);
        assert!(expected.contains("out of fuel"), "{expected}");
        assert!(
            expected.contains("line: 8, column: 4 }) []"),
            "at work's declaration: {expected}"
        );
        for (tier, engine) in engines() {
            let got = work_with_fuel(&engine, &module_for(&engine), 40, fuel);
            assert_eq!(got, expected, "{tier:?}, fuel {fuel}");
        }
    }
}

/// An `auto` engine at -O0 (no inlining: `fib` stays a call) with these
/// tiering options, compiling on the spot, and the `function reason` of
/// every tier event it records.
fn mixed_engine(thresholds: (u32, u32), chaos: Option<u64>) -> (Engine, Arc<Mutex<Vec<String>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let engine = Engine::new(&Config::new().tier(Tier::Auto).opt_level(0).tiering(
        waddle::TierOptions {
            thresholds: waddle::TierThresholds {
                calls: thresholds.0,
                loops: thresholds.1,
                full: 0,
            },
            sync: true,
            chaos,
            hook: Some(waddle::TierHook(Arc::new(move |e: &waddle::TierEvent| {
                sink.lock()
                    .unwrap()
                    .push(format!("{} {}", e.function, e.reason));
            }))),
        },
    ))
    .unwrap();
    (engine, events)
}

/// As above, under tier mixes: `work` entered on the interpreter and
/// continued in compiled code at its loop (OSR), `work` compiled before
/// its first run calling `fib` on the interpreter, both compiled, and the
/// chaos seeds' mixes. The whole budget but the last partial batch is paid
/// on the way, so only the payment as `work` returns to Rust fails: every
/// mix reports it at `work`'s declaration with no frames, as the
/// interpreter does.
#[test]
fn fuel_that_runs_out_on_the_last_payment_is_reported_alike_under_every_tier_mix() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let source = |e: &Engine| Module::new(e, "limits.wdl", PROGRAM).unwrap();
    let interp = Engine::new(&Config::new().tier(Tier::Interp).opt_level(0)).unwrap();
    let module = source(&interp);
    let k = 300;
    let used = {
        let (mut store, inst) = store_for(&interp, &module);
        store.set_fuel(Some(1_000_000)).unwrap();
        inst.call(&mut store, "work", &[Val::Int(k)]).unwrap();
        1_000_000 - store.fuel().unwrap()
    };
    let paid = used / 1024 * 1024;
    assert!(paid > 0 && used % 1024 > 2, "{used}");
    let mut engines = vec![
        ("osr", mixed_engine((1_000_000, 10), None), "work osr"),
        (
            "work compiled",
            mixed_engine((1_000_000, 0), None),
            "work first run",
        ),
        ("all compiled", mixed_engine((1, 0), None), "fib calls"),
    ];
    for seed in 1..=8 {
        engines.push(("chaos", mixed_engine((5, 5), Some(seed)), ""));
    }
    for fuel in [used - 1, paid + (used - paid) / 2, paid] {
        let expected = work_with_fuel(&interp, &module, k, fuel);
        assert!(
            expected.contains("out of fuel") && expected.contains("line: 8, column: 4 }) []"),
            "at work's declaration: {expected}"
        );
        for (i, (name, (engine, events), event)) in engines.iter().enumerate() {
            events.lock().unwrap().clear();
            let got = work_with_fuel(engine, &source(engine), k, fuel);
            assert_eq!(got, expected, "{name} {i}, fuel {fuel}");
            let events = events.lock().unwrap();
            assert!(
                events.iter().any(|e| e.starts_with(event)),
                "{name}: {events:?}"
            );
            assert!(
                !events.is_empty(),
                "{name} {i}: the call runs on more than the interpreter"
            );
        }
    }
}
