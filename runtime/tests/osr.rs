//! On-stack replacement: a loop that starts on the interpreter continues in
//! compiled code at its header, with the live values of every type, and
//! everything observable (output, results, runtime errors and their
//! locations, fuel, garbage collection) is as on the interpreter alone.

use std::sync::{Arc, Mutex};

use waddle::{
    Config, Error, OutputSink, Session, Tier, TierEvent, TierHook, TierOptions, TierThresholds,
};

/// An `auto` session entering OSR after `loops` back edges (compiles on
/// the spot), recording tier events; or an interpreter-only session.
fn session(
    auto: Option<u32>,
    fuel: Option<u64>,
    gc_stress: bool,
) -> (Session, Arc<Mutex<Vec<TierEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let tier = if auto.is_some() {
        Tier::Auto
    } else {
        Tier::Interp
    };
    let s = Session::with_config(
        &Config::new()
            .tier(tier)
            .gc_stress(gc_stress)
            .tiering(TierOptions {
                thresholds: TierThresholds {
                    calls: 1000,
                    loops: auto.unwrap_or(1),
                    full: 0,
                },
                sync: true,
                hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                    sink.lock().unwrap().push(e.clone());
                }))),
                ..TierOptions::default()
            }),
        OutputSink::Capture,
    )
    .map(|mut s| {
        s.set_fuel(fuel);
        s
    })
    .unwrap();
    (s, events)
}

/// What a run shows: output, then the error message and location if any.
fn run(s: &mut Session, src: &str) -> String {
    let r = s.run("osr.wdl", src);
    let mut shown = String::from_utf8(s.take_output()).unwrap();
    match r {
        Ok(()) => {}
        Err(Error::Runtime(e)) => {
            let loc = e
                .location
                .map_or_else(|| "?".to_string(), |l| l.to_string());
            shown += &format!("error: {} at {loc}\n", e.message);
        }
        Err(e) => panic!("{e}"),
    }
    shown
}

fn osr_events(events: &Mutex<Vec<TierEvent>>) -> Vec<TierEvent> {
    let ev = events.lock().unwrap();
    ev.iter()
        .filter(|e| e.reason.starts_with("osr"))
        .cloned()
        .collect()
}

/// Runs `src` on the interpreter and with OSR after `loops` back edges
/// (optionally with fuel and GC stress); the outputs must agree; returns
/// the OSR session for further checks.
fn same(src: &str, loops: u32, fuel: Option<u64>, gc: bool) -> (Session, Vec<TierEvent>, String) {
    if !Tier::Opt.is_available() {
        let (mut s, _) = session(None, fuel, gc);
        let shown = run(&mut s, src);
        return (s, Vec::new(), shown);
    }
    let (mut reference, _) = session(None, fuel, gc);
    let expected = run(&mut reference, src);
    let (mut s, events) = session(Some(loops), fuel, gc);
    let shown = run(&mut s, src);
    assert_eq!(shown, expected, "OSR after {loops} back edges");
    if fuel.is_some() {
        assert_eq!(s.fuel(), reference.fuel(), "fuel left");
    }
    let osr = osr_events(&events);
    (s, osr, shown)
}

/// Live values of every type cross into compiled code: loop-carried
/// (`int`, `float`, `bool`, `str`, arrays) and defined before the loop.
const LIVE: &str = r#"
let names = ["a", "b", "c"];
let scale = 2.5;
let limit = 40;
var grid: [[int]] = [];
for r in 0..4 { push(grid, [r; 3]); }
var i = 0;
var f = 0.5;
var flag = false;
var s = "x";
var acc: [int] = [];
while i < limit {
    f = f * 1.0625 + scale;
    flag = !flag;
    if flag { s = s + names[i % 3]; }
    if i % 7 == 0 { push(acc, i * grid[i % 4][1]); }
    i += 1;
}
print(i);
print(f);
print(flag);
print(s);
print(acc);
print(len(grid));
"#;

#[test]
fn a_top_level_loop_continues_in_compiled_code_with_values_of_every_type() {
    for loops in [1, 3, 17] {
        let (s, osr, shown) = same(LIVE, loops, None, false);
        assert!(shown.starts_with("40\n"), "{shown}");
        if Tier::Opt.is_available() {
            assert_eq!(osr.len(), 1, "{osr:?}");
            assert_eq!(osr[0].from, Tier::Interp);
            assert_eq!(osr[0].to, Tier::Opt);
            assert_eq!(osr[0].reason, "osr");
            assert_eq!(s.osr_entries(), 1);
        }
    }
}

#[test]
fn collections_inside_the_replaced_loop_find_every_root() {
    // GC stress collects before every allocation: the loop's arrays and
    // strings live in the interpreter's frame, the compiled frame and
    // the heap, all at once.
    let (_, osr, _) = same(LIVE, 5, None, true);
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1);
    }
}

#[test]
fn runtime_errors_after_osr_are_the_interpreters() {
    let src = "var a = [1, 2, 3];\nvar i = 0;\nvar t = 0;\nwhile i < 100 {\n    t += 10 / (50 - i);\n    i += 1;\n}\nprint(t);\n";
    let (_, osr, shown) = same(src, 4, None, false);
    assert!(
        shown.contains("error: division by zero at osr.wdl:5:"),
        "{shown}"
    );
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1);
    }
    let src = "var a = [1, 2, 3];\nvar i = 0;\nwhile i < 10 {\n    a[i] = i;\n    i += 1;\n}\n";
    let (_, _, shown) = same(src, 1, None, false);
    assert!(
        shown.contains("index out of bounds at osr.wdl:4:"),
        "{shown}"
    );
}

#[test]
fn fuel_is_charged_the_same_and_runs_out_at_the_same_point() {
    let src = "var i = 0;\nvar t = 0;\nwhile i < 5000 {\n    t += i;\n    if i % 100 == 0 { print(t); }\n    i += 1;\n}\nprint(t);\n";
    // Enough fuel: the same units are charged.
    let (s, osr, shown) = same(src, 10, Some(1_000_000), false);
    assert!(shown.ends_with("12497500\n"), "{shown}");
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1);
    }
    let used = 1_000_000 - s.fuel().unwrap();
    // Too little: out of fuel after the same output, wherever the
    // budget ends (before the loop, in a batch, at a batch's end).
    for fuel in [5, used / 3, used / 2 + 1, used - 1, 1024, 2048] {
        let (_, _, shown) = same(src, 10, Some(fuel), false);
        assert!(shown.contains("error: out of fuel"), "{fuel}: {shown}");
    }
}

#[test]
fn a_kernel_called_once_enters_at_its_hot_inner_loop() {
    let src = "fn kernel(n: int) -> int {
    var total = 0;
    for i in 0..n {
        for j in 0..n {
            total += (i * j) % 7;
        }
    }
    return total;
}";
    let (mut reference, _) = session(None, None, false);
    reference.eval(src).unwrap();
    let expected: Vec<_> = [60, 3, 0]
        .iter()
        .map(|&n| reference.call("kernel", &[waddle::Val::Int(n)]).unwrap())
        .collect();
    if !Tier::Opt.is_available() {
        return;
    }
    let (mut s, events) = session(Some(50), None, false);
    s.eval(src).unwrap();
    let got: Vec<_> = [60, 3, 0]
        .iter()
        .map(|&n| s.call("kernel", &[waddle::Val::Int(n)]).unwrap())
        .collect();
    assert_eq!(got, expected);
    let osr = osr_events(&events);
    assert_eq!(osr.len(), 1, "{osr:?}");
    assert_eq!(osr[0].function, "kernel");
    // The next call started in compiled code.
    assert_eq!(s.function_tier("kernel").unwrap(), Tier::Opt);
    assert_eq!(s.osr_entries(), 1);
}

/// A nest whose outer loop turns a few times: the entry is at the inner
/// header, and the outer body's values of every type (an array row, a
/// string it built, a float, a bool, the outer induction variable) are
/// live there besides the inner loop's own.
const NESTED_LIVE: &str = r#"
let names = ["a", "b", "c"];
var grid: [[int]] = [];
for r in 0..4 { push(grid, [r; 3]); }
var out: [str] = [];
var total = 0.0;
for i in 0..6 {
    let row = grid[i % 4];
    let label = names[i % 3] + str(i);
    let w = float(i) * 0.5;
    let odd = i % 2 == 1;
    var s = "";
    var j = 0;
    while j < 40 {
        if j % 8 == 0 { s = s + label; }
        if odd { total += w; } else { total -= float(row[j % 3]); }
        j += 1;
    }
    push(out, s);
}
print(total);
print(len(out));
print(out[0]);
print(out[5]);
"#;

#[test]
fn a_nested_loop_enters_at_its_own_header_with_the_outer_values() {
    for loops in [1, 5, 33, 100] {
        let (s, osr, shown) = same(NESTED_LIVE, loops, None, false);
        assert!(shown.ends_with("6\na0a0a0a0a0\nc5c5c5c5c5\n"), "{shown}");
        if Tier::Opt.is_available() {
            assert_eq!(osr.len(), 1, "{loops}: {osr:?}");
            assert_eq!(s.osr_entries(), 1);
        }
    }
    // The entry is at the inner header: with one outer iteration there is
    // no outer back edge to enter at.
    let once = "var t = 0;\nfor i in 0..1 {\n    let k = i + 3;\n    var j = 0;\n    while j < 500 {\n        t += j * k;\n        j += 1;\n    }\n}\nprint(t);\n";
    let (_, osr, shown) = same(once, 10, None, false);
    assert_eq!(shown, "374250\n");
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1, "{osr:?}");
    }
    // Collections at every allocation, inside the entry too.
    let (_, osr, _) = same(NESTED_LIVE, 7, None, true);
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1);
    }
    // Fuel: charged the same, and runs out at the same point.
    let (s, _, _) = same(NESTED_LIVE, 7, Some(1_000_000), false);
    let used = 1_000_000 - s.fuel().unwrap();
    for fuel in [used / 2, used - 1] {
        let (_, _, shown) = same(NESTED_LIVE, 7, Some(fuel), false);
        assert!(shown.contains("error: out of fuel"), "{fuel}: {shown}");
    }
}

#[test]
fn a_trap_in_a_nested_entry_is_the_interpreters() {
    let src = "var t = 0;\nfor i in 0..5 {\n    let d = 3 - i;\n    var j = 0;\n    while j < 30 {\n        t += j / d;\n        j += 1;\n    }\n}\nprint(t);\n";
    let (_, osr, shown) = same(src, 4, None, false);
    assert!(
        shown.contains("error: division by zero at osr.wdl:6:"),
        "{shown}"
    );
    if Tier::Opt.is_available() {
        assert_eq!(osr.len(), 1);
    }
}

#[test]
fn recursion_and_calls_inside_the_replaced_loop() {
    let src = r#"
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn walk(n: int) -> int {
    var t = 0;
    var k = 0;
    while k < n {
        t += fib(k % 12);
        k += 1;
        if k == n / 2 && n > 5 { t += walk(5); }
    }
    return t;
}
print(walk(40));
"#;
    let (_, osr, _) = same(src, 7, None, false);
    if Tier::Opt.is_available() {
        assert!(!osr.is_empty());
    }
}

/// Background mode (the default): the OSR entry compiles on the compiler
/// thread while the loop goes on in the interpreter, and is entered at a
/// later back-edge check. The loop runs until the entry happened, then
/// checks its own sum in compiled code.
#[test]
fn a_background_osr_compile_is_entered_while_the_loop_runs() {
    use std::sync::atomic::{AtomicBool, Ordering};
    if !Tier::Opt.is_available() {
        return;
    }
    let events = Arc::new(Mutex::new(Vec::new()));
    let entered = Arc::new(AtomicBool::new(false));
    let (sink, flag) = (events.clone(), entered.clone());
    let mut s = Session::with_config(
        &Config::new().tier(Tier::Auto).tiering(TierOptions {
            thresholds: TierThresholds {
                calls: 1000,
                loops: 100,
                full: 0,
            },
            sync: false,
            hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                sink.lock().unwrap().push(e.clone());
                if e.reason.starts_with("osr") {
                    flag.store(true, Ordering::SeqCst);
                }
            }))),
            ..TierOptions::default()
        }),
        OutputSink::Capture,
    )
    .unwrap();
    let flag = entered.clone();
    s.register_fn("entered", move || flag.load(Ordering::SeqCst))
        .unwrap();
    let src = "var i = 0;
var t = 0;
var s = \"\";
while !entered() && i < 2000000000 {
    t = t + i % 7;
    if i % 1000 == 0 { s = s + str(i % 10); }
    i = i + 1;
}
var u = 0;
var k = 0;
while k < i { u = u + k % 7; k = k + 1; }
print(t == u);
print(i > 100);
print(len(s) == (i + 999) / 1000);
";
    // A function this large compiles its OSR entry in the background
    // (smaller ones on the spot): straight-line code after the loop.
    let mut src = src.to_string();
    src += "var pad = u;\n";
    for k in 0..800 {
        src += &format!("pad = pad * 3 + {k} + i;\n");
    }
    src += "print(pad != 0 || pad == 0);\n";
    s.run("bg.wdl", &src).unwrap();
    assert_eq!(
        String::from_utf8(s.take_output()).unwrap(),
        "true\ntrue\ntrue\ntrue\n"
    );
    assert!(entered.load(Ordering::SeqCst));
    assert_eq!(s.osr_entries(), 1);
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!((e.from, e.to, e.reason), (Tier::Interp, Tier::Opt, "osr"));
    assert!(e.background && e.code_bytes > 0, "{e:?}");
}

/// A function called many times whose loops are short: when its loop
/// counter runs out, the whole function is promoted (its next call runs
/// compiled code) and no OSR entry is made for the one activation left.
#[test]
fn short_loops_promote_the_whole_function_instead_of_replacing_an_activation() {
    // (The self call keeps `step` from being inlined into its caller.)
    let src = "fn step(a: [int]) -> int {
    if len(a) == 0 { return step([1]); }
    var t = 0;
    for i in 0..len(a) { a[i] += i; t += a[i]; }
    return t;
}
var a = [1; 10];
var sum = 0;
for r in 0..40 { sum += step(a); }
print(sum);
";
    // 10 back edges per call: the counter runs out in the 10th call.
    let (s, osr, _) = same(src, 100, None, false);
    if !Tier::Opt.is_available() {
        return;
    }
    assert!(osr.iter().all(|e| e.function != "step"), "{osr:?}");
    assert_eq!(s.function_tier("step").unwrap(), Tier::Opt);
}

/// In the background, a function whose loops run long (its counter ran
/// out in its first call) skips T1: until T2 is installed, its calls run
/// on T0 and enter the OSR entry at their first back edge, where T1 code
/// would have kept the whole activation.
#[test]
fn a_long_running_loop_function_skips_t1_in_the_background() {
    if !Tier::Opt.is_available() {
        return;
    }
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let mut s = Session::with_config(
        &Config::new().tier(Tier::Auto).tiering(TierOptions {
            thresholds: TierThresholds {
                calls: 1000,
                loops: 100,
                full: 0,
            },
            sync: false,
            hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                sink.lock().unwrap().push(e.clone());
            }))),
            ..TierOptions::default()
        }),
        OutputSink::Capture,
    )
    .unwrap();
    let src = "fn kernel(n: int) -> int {
    if n < 0 { return kernel(-n); }
    var t = 0;
    for i in 0..n { for j in 0..n { t += (i ^ j) % 5; } }
    return t;
}
var sum = 0;
for r in 0..12 { sum += kernel(300); }
print(sum);
";
    s.run("long.wdl", src).unwrap();
    let mut reference = session(None, None, false).0;
    assert_eq!(s.take_output(), {
        reference.run("long.wdl", src).unwrap();
        reference.take_output()
    });
    let events = events.lock().unwrap();
    assert!(
        events
            .iter()
            .all(|e| !(e.function == "kernel" && e.to == Tier::Baseline)),
        "{events:?}"
    );
    assert!(events
        .iter()
        .any(|e| e.function == "kernel" && e.reason == "osr"));
}

/// A chaos-mode `auto` session at `-O0` (`--tier-chaos SEED --jit-sync`:
/// every compile on the spot, so the seed alone fixes the tier mix;
/// promotions from T0 draw T1, T2 or T3, and T1 code gets small counters,
/// so loops run long in T1 code and ask for on-stack replacement),
/// recording tier events. Without chaos, `--jit-sync` promotes straight
/// to T2: T1 code runs a loop in background mode while T2 compiles, where
/// whether a safe point installs T2 before the long call depends on the
/// compiler thread ([`t1_osr_in_the_background_prints_the_same`]).
fn t1_session(
    seed: Option<u64>,
    fuel: Option<u64>,
    gc_stress: bool,
) -> (Session, Arc<Mutex<Vec<TierEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let s = Session::with_config(
        // -O0: the kernels must not be inlined into the top-level loops.
        &Config::new()
            .tier(Tier::Auto)
            .opt_level(0)
            .gc_stress(gc_stress)
            .tiering(TierOptions {
                thresholds: TierThresholds {
                    calls: 1000,
                    loops: 100,
                    full: 0,
                },
                sync: seed.is_some(),
                chaos: seed,
                hook: Some(TierHook(Arc::new(move |e: &TierEvent| {
                    sink.lock().unwrap().push(e.clone());
                }))),
            }),
        OutputSink::Capture,
    )
    .map(|mut s| {
        s.set_fuel(fuel);
        s
    })
    .unwrap();
    (s, events)
}

/// Kernels with one loop each, returning every result type (the
/// activation's result comes back through the T1 frame), called twelve
/// times with short loops (so they go to T1) and then once with a long
/// one. The loop-carried values and those defined before the loop are of
/// every type. Each kernel's long call comes right after its short ones:
/// no other function's promotion (a safe point) comes between.
const T1_KERNELS: &str = r#"
fn kernel(limit: int) -> str {
    let names = ["a", "b", "c"];
    let scale = 2.5;
    var grid: [[int]] = [];
    for r in 0..4 { push(grid, [r; 3]); }
    var i = 0;
    var f = 0.5;
    var flag = false;
    var s = "x";
    var acc: [int] = [];
    while i < limit {
        f = f * 0.75 + scale;
        flag = !flag;
        if flag && i % 50 == 0 { s = s + names[i % 3]; }
        if i % 500 == 0 { push(acc, i * grid[i % 4][1]); }
        i += 1;
    }
    print(f);
    print(flag);
    print(acc);
    return s + str(i);
}
fn fsum(n: int) -> float {
    var t = 0.0;
    for k in 0..n { t = t + float(k) * 0.5; }
    return t;
}
fn any_multiple(n: int, m: int) -> bool {
    var seen = false;
    var k = 1;
    while k < n { if k % m == 0 { seen = !seen; } k += 1; }
    return seen;
}
fn steps(n: int) -> int {
    var k = 0;
    var t = 0;
    while k < n { t += k % 13; k += 1; }
    return t;
}
fn quiet(n: int) {
    var k = 0;
    while k < n { k += 1; }
    if n > 100 { print(k); }
}
var warm = 0;
for r in 0..12 { warm += len(kernel(10)); }
print(kernel(3000));
for r in 0..12 { if fsum(10) > 1.0 { warm += 1; } }
print(fsum(3000));
for r in 0..12 { if any_multiple(10, 7) { warm += 1; } }
print(any_multiple(3001, 7));
for r in 0..12 { warm += steps(10); }
print(steps(3000));
for r in 0..12 { quiet(10); }
quiet(3000);
print(warm);
"#;

/// The interpreter at `-O0` (the fuel a program uses and its stack
/// traces depend on inlining): what [`t1_session`] must show.
fn t1_reference(fuel: Option<u64>, gc_stress: bool) -> Session {
    let mut s = Session::with_config(
        &Config::new()
            .tier(Tier::Interp)
            .opt_level(0)
            .gc_stress(gc_stress),
        OutputSink::Capture,
    )
    .unwrap();
    s.set_fuel(fuel);
    s
}

/// The functions whose T1 activations were replaced, in order.
fn from_t1(events: &Mutex<Vec<TierEvent>>) -> Vec<String> {
    (osr_events(events).into_iter())
        .filter(|e| e.from == Tier::Baseline)
        .map(|e| e.function)
        .collect()
}

/// Runs `src` on the interpreter and in [`t1_session`] under chaos seeds
/// `seeds`; the outputs (and fuel left) must agree; returns the functions
/// whose T1 activations were replaced (over all seeds), and the output.
fn same_from_t1(
    src: &str,
    seeds: std::ops::RangeInclusive<u64>,
    fuel: Option<u64>,
    gc: bool,
) -> (Vec<String>, String) {
    let mut reference = t1_reference(fuel, gc);
    let expected = run(&mut reference, src);
    let mut replaced = Vec::new();
    for seed in seeds {
        let (mut s, events) = t1_session(Some(seed), fuel, gc);
        let shown = run(&mut s, src);
        assert_eq!(
            shown, expected,
            "seed {seed}, fuel {fuel:?}, gc stress {gc}"
        );
        if fuel.is_some() {
            assert_eq!(s.fuel(), reference.fuel(), "fuel left, seed {seed}");
        }
        replaced.extend(from_t1(&events));
    }
    (replaced, expected)
}

const KERNELS: [&str; 5] = ["kernel", "fsum", "any_multiple", "steps", "quiet"];

/// On-stack replacement from T1 (issue 10, item 4): a hot loop running in
/// baseline code continues in T2 code at its header, with its live values
/// of every type, and the activation's result (of every type) comes back
/// through the T1 frame.
#[test]
fn a_loop_running_in_t1_code_continues_in_t2_at_its_header() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let (replaced, shown) = same_from_t1(T1_KERNELS, 1..=20, None, false);
    assert!(shown.contains("xacbacb"), "{shown}");
    for f in KERNELS {
        assert!(replaced.iter().any(|g| g == f), "{f}: {replaced:?}");
    }
}

#[test]
fn t1_osr_finds_every_root_and_charges_fuel_the_same() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let (replaced, _) = same_from_t1(T1_KERNELS, 1..=20, None, true);
    assert!(replaced.len() >= 5, "{replaced:?}");
    let (replaced, _) = same_from_t1(T1_KERNELS, 1..=20, Some(10_000_000), false);
    assert!(replaced.len() >= 5, "{replaced:?}");
    let mut s = t1_reference(Some(10_000_000), false);
    run(&mut s, T1_KERNELS);
    let used = 10_000_000 - s.fuel().unwrap();
    // Out of fuel at the same point wherever the budget ends (while the
    // kernels are on T0, in T1 code, inside a replaced activation).
    for fuel in [used / 20, used / 3, used / 2 + 1, used * 3 / 4, used - 1] {
        let (_, shown) = same_from_t1(T1_KERNELS, 1..=20, Some(fuel), false);
        assert!(shown.contains("error: out of fuel"), "{fuel}: {shown}");
    }
}

#[test]
fn a_trap_after_t1_osr_is_the_interpreters() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let src = "fn f(n: int) -> int {\n    var i = 0;\n    var t = 0;\n    while i < n {\n        t += 10 / (2000 - i);\n        i += 1;\n    }\n    return t;\n}\nfn g(n: int) -> int { return f(n) + 1; }\nfor k in 0..12 { print(g(10)); }\nprint(g(3000));\n";
    let (replaced, shown) = same_from_t1(src, 1..=20, None, false);
    assert!(
        shown.contains("error: division by zero at osr.wdl:5:"),
        "{shown}"
    );
    assert!(replaced.iter().any(|f| f == "f"), "{replaced:?}");
    // The stack trace is the interpreter's too.
    let trace = |s: &mut Session| match s.run("osr.wdl", src) {
        Err(Error::Runtime(e)) => format!("{:?}", e.trace),
        other => panic!("{other:?}"),
    };
    let expected = trace(&mut t1_reference(None, false));
    for seed in 1..=20 {
        let (mut s, _) = t1_session(Some(seed), None, false);
        assert_eq!(trace(&mut s), expected, "seed {seed}");
    }
}

/// Background mode (no chaos): each kernel goes to T1 after its short
/// calls while T2 compiles; its long call runs T1 code (and is replaced at
/// its header) unless a safe point installed T2 before it, which depends
/// on the compiler thread. Only the output is asserted.
#[test]
fn t1_osr_in_the_background_prints_the_same() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let expected = run(&mut t1_reference(None, false), T1_KERNELS);
    let (mut s, _) = t1_session(None, None, false);
    assert_eq!(run(&mut s, T1_KERNELS), expected);
}

/// What a run that fails shows: the output before the error, the error
/// and its location, and the stack trace.
fn run_traced(s: &mut Session, src: &str) -> String {
    let r = s.run("osr.wdl", src);
    let mut shown = String::from_utf8(s.take_output()).unwrap();
    match r {
        Err(Error::Runtime(e)) => {
            let loc = e
                .location
                .map_or_else(|| "?".to_string(), |l| l.to_string());
            shown += &format!("error: {} at {loc}\n{:?}\n", e.message, e.trace);
        }
        other => panic!("expected a runtime error, got {other:?}"),
    }
    shown
}

/// Chaos mode with a fuel budget that runs out (issue 10): under every
/// seed's tier mix (functions on T0, T1, T2 and T3 calling each other,
/// OSR from T0 and T1), `out of fuel` comes at the interpreter's location
/// with the interpreter's stack trace and output before it. Fuel is paid
/// in batches of 1024 units, so this holds only when a call across tiers
/// goes on with its caller's batch: with a fresh batch per tier entry,
/// seed 3 at 5255 units ran out two back edges later, in the callee.
#[test]
fn fuel_runs_out_at_the_interpreters_location_under_every_chaos_seed() {
    if !Tier::Baseline.is_available() || !Tier::Opt.is_available() {
        return;
    }
    let mut s = t1_reference(Some(10_000_000), false);
    run(&mut s, T1_KERNELS);
    let used = 10_000_000 - s.fuel().unwrap();
    for fuel in [
        1000,
        5255,
        used / 7,
        used / 3 + 5,
        used * 2 / 3,
        used - 1025,
    ] {
        let expected = run_traced(&mut t1_reference(Some(fuel), false), T1_KERNELS);
        assert!(
            expected.contains("error: out of fuel at "),
            "{fuel}: {expected}"
        );
        for seed in 1..=12 {
            let (mut s, _) = t1_session(Some(seed), Some(fuel), false);
            assert_eq!(
                run_traced(&mut s, T1_KERNELS),
                expected,
                "seed {seed}, fuel {fuel}"
            );
        }
    }
}

/// A sieve whose `[bool]` flags (one byte per element) were written by the
/// interpreter continues in compiled code mid-loop, and bool arrays made
/// on either side of the switch agree, also under collector stress.
const BOOL_SIEVE: &str = r#"
let n = 300;
let composite = [false; n + 1];
var count = 0;
var k = 2;
while k <= n {
    if !composite[k] {
        count += 1;
        var m = k * k;
        while m <= n { composite[m] = true; m += k; }
    }
    k += 1;
}
print(count);
let row: [bool] = [];
for i in 0..20 { push(row, composite[i]); }
print(row);
print(composite[n]);
print(composite[n + 1]);
"#;

#[test]
fn a_bool_array_loop_continues_in_compiled_code() {
    for loops in [1, 5, 40] {
        for gc in [false, true] {
            let (_, osr, shown) = same(BOOL_SIEVE, loops, None, gc);
            assert!(
                shown.starts_with("62\n[false, false, false, false, true, false, true"),
                "{shown}"
            );
            assert!(
                shown.ends_with("error: index out of bounds at osr.wdl:19:16\n"),
                "{shown}"
            );
            if Tier::Opt.is_available() {
                assert!(!osr.is_empty(), "{osr:?}");
            }
        }
    }
}
