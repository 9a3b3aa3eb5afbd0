//! Script stack traces (`RuntimeError::trace`): every frame a runtime error
//! leaves, innermost first, with the function and where it stopped, on
//! every tier and across tiers (interpreter frames calling native frames
//! and back).

use waddle::{
    Config, Engine, Error, Frame, Module, OutputSink, RuntimeError, Store, Tier, TierOptions,
    TierThresholds, TrapCode,
};

/// Line and column numbers below are part of the expectations.
const PROGRAM: &str = "\
fn leaf(x: int, d: int) -> int {
    return x / d;
}
fn mid(x: int, d: int) -> int {
    return leaf(x, d) + 1;
}
fn top(n: int) -> int {
    var t = 0;
    for i in 0..n {
        t += mid(i, n - 1 - i);
    }
    return t;
}
fn outer(n: int) -> int {
    return top(n) * 2;
}
fn depth(k: int) -> int {
    if k == 0 { return 0; }
    return depth(k - 1) + 1;
}
fn via_host(x: int) -> int {
    return checked(x) + 1;
}
fn calls_host(x: int) -> int {
    return via_host(x) * 3;
}
fn dig(k: int, d: int) -> int {
    if k == 0 { return 10 / d; }
    return dig(k - 1, d) + dig(k - 1, d + 1);
}
fn keeps(k: int, d: int) -> int {
    let a = k * 3 + d;
    let b = dig(k, d);
    return a * 1000 + b;
}
fn fdig(k: int, x: float) -> float {
    if k == 0 { return x + float(10 / int(x)); }
    return fdig(k - 1, x) * 0.5 + fdig(k - 1, x + 1.0);
}
";

/// `(function, line, column)` of each frame.
fn frames(e: &RuntimeError) -> Vec<(String, u32, u32)> {
    e.trace
        .iter()
        .map(|f: &Frame| {
            let loc = f.location.as_ref().expect("every frame has a location");
            assert_eq!(loc.file, "trace.wdl");
            (f.function.clone(), loc.line, loc.column)
        })
        .collect()
}

fn runtime_error<T: std::fmt::Debug>(r: Result<T, Error>) -> RuntimeError {
    match r {
        Err(Error::Runtime(e)) => e,
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

fn expected(list: &[(&str, u32, u32)]) -> Vec<(String, u32, u32)> {
    list.iter()
        .map(|&(f, l, c)| (f.to_string(), l, c))
        .collect()
}

/// Every single-tier configuration at -O0 (nothing inlined), plus `auto`
/// with promotion policies that leave the frames of one error on
/// different tiers.
fn configs() -> Vec<(String, Config)> {
    let mut out: Vec<(String, Config)> = Tier::available()
        .into_iter()
        .map(|t| (t.to_string(), Config::new().tier(t).opt_level(0)))
        .collect();
    let auto = |calls, loops, full, chaos| {
        Config::new()
            .tier(Tier::Auto)
            .opt_level(0)
            .tiering(TierOptions {
                thresholds: TierThresholds { calls, loops, full },
                sync: true,
                hook: None,
                chaos,
            })
    };
    if Tier::Opt.is_available() {
        // `mid` and `leaf` promote after 5 calls, `top` (a loop that never
        // reaches its threshold) stays interpreted: native frames under an
        // interpreted one.
        out.push((
            "auto: native under interp".into(),
            auto(5, 1_000_000_000, 0, None),
        ));
        if Tier::Full.is_available() {
            // The same, with `mid` and `leaf` moving on to T3 after 2
            // more calls.
            out.push((
                "auto: T3 under interp".into(),
                auto(5, 1_000_000_000, 2, None),
            ));
        }
        // `top` compiles before its first run, `mid`, `leaf` and `outer`
        // stay interpreted: interp -> native -> interp.
        out.push((
            "auto: interp under native".into(),
            auto(1_000_000, 0, 0, None),
        ));
        for seed in [1, 2, 3, 5, 8] {
            out.push((format!("auto-chaos{seed}"), auto(5, 0, 10, Some(seed))));
        }
    }
    out
}

fn instance(config: &Config) -> (Store, waddle::Instance) {
    let engine = Engine::new(config).unwrap();
    engine
        .register_fn("checked", |x: i64| -> Result<i64, String> {
            if x < 0 {
                Err(format!("negative: {x}"))
            } else {
                Ok(x)
            }
        })
        .unwrap();
    let module = Module::new(&engine, "trace.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    (store, inst)
}

#[test]
fn a_trap_reports_every_frame_on_every_tier_and_across_tiers() {
    let want = expected(&[
        ("leaf", 2, 14),
        ("mid", 5, 12),
        ("top", 10, 14),
        ("outer", 15, 12),
    ]);
    for (name, config) in configs() {
        let (mut store, inst) = instance(&config);
        let outer = inst.typed_func::<(i64,), i64>(&store, "outer").unwrap();
        // Twice: the second error's trace holds only its own frames.
        for round in 0..2 {
            let e = runtime_error(outer.call(&mut store, (40,)));
            assert_eq!(e.code, TrapCode::DivisionByZero, "{name}");
            assert_eq!(frames(&e), want, "{name}, round {round}");
            let loc = e.location.as_ref().unwrap();
            assert_eq!((loc.line, loc.column), (2, 14), "{name}");
        }
        // A call that succeeds in between reports nothing, and a later
        // error starting from another function has its own trace.
        let mid = inst.typed_func::<(i64, i64), i64>(&store, "mid").unwrap();
        assert_eq!(mid.call(&mut store, (6, 3)).unwrap(), 3, "{name}");
        let e = runtime_error(mid.call(&mut store, (6, 0)));
        assert_eq!(
            frames(&e),
            expected(&[("leaf", 2, 14), ("mid", 5, 12)]),
            "{name}"
        );
    }
}

/// A trap deep in a self-recursive function (whose compiled self calls
/// are not followed by a trap test on T2, `waddle_jit`'s unwinding) reports
/// every frame, the int or float result it leaves is the zero of the trap
/// protocol, and the caller's registers survive it: the same calls succeed
/// afterwards.
#[test]
fn a_trap_in_self_recursion_reports_every_frame_and_calls_go_on() {
    let mut dig_frames = vec![("dig", 28, 27)];
    dig_frames.extend([("dig", 29, 12); 5]);
    dig_frames.push(("keeps", 33, 13));
    let mut fdig_frames = vec![("fdig", 37, 37)];
    fdig_frames.extend([("fdig", 38, 12); 3]);
    for (name, config) in configs()
        .into_iter()
        .chain([("opt -O2".to_string(), Config::new().tier(Tier::Opt))])
    {
        if name.starts_with("opt -O2") && !Tier::Opt.is_available() {
            continue;
        }
        let (mut store, inst) = instance(&config);
        let keeps = inst.typed_func::<(i64, i64), i64>(&store, "keeps").unwrap();
        let fdig = inst.typed_func::<(i64, f64), f64>(&store, "fdig").unwrap();
        for round in 0..2 {
            assert_eq!(keeps.call(&mut store, (5, 1)).unwrap(), 16_096, "{name}");
            let e = runtime_error(keeps.call(&mut store, (5, 0)));
            assert_eq!(e.code, TrapCode::DivisionByZero, "{name}");
            assert_eq!(frames(&e), expected(&dig_frames), "{name}, round {round}");
            assert_eq!(fdig.call(&mut store, (3, 1.0)).unwrap(), 21.625, "{name}");
            let e = runtime_error(fdig.call(&mut store, (3, 0.5)));
            assert_eq!(e.code, TrapCode::DivisionByZero, "{name}");
            assert_eq!(frames(&e), expected(&fdig_frames), "{name}, round {round}");
        }
    }
}

#[test]
fn a_host_function_error_starts_the_trace_at_its_caller() {
    for (name, config) in configs() {
        let (mut store, inst) = instance(&config);
        let f = inst
            .typed_func::<(i64,), i64>(&store, "calls_host")
            .unwrap();
        assert_eq!(f.call(&mut store, (2,)).unwrap(), 9, "{name}");
        let e = runtime_error(f.call(&mut store, (-1,)));
        assert_eq!(e.code, TrapCode::HostError, "{name}");
        assert!(e.message.ends_with("negative: -1"), "{name}: {}", e.message);
        assert_eq!(
            frames(&e),
            expected(&[("via_host", 22, 12), ("calls_host", 25, 12)]),
            "{name}"
        );
    }
}

/// Native stack for the recursion test: enough for the default stack
/// budget plus the helpers' reserve, so every tier stops at the same
/// depth (a smaller thread lowers the native tiers' limit).
const BIG_STACK: usize = 256 << 20;

#[test]
fn stack_overflow_reports_every_frame_of_the_recursion() {
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(recursion_traces)
        .unwrap()
        .join()
        .unwrap();
}

fn recursion_traces() {
    let mut depths = Vec::new();
    for tier in Tier::available() {
        for level in [0, 2] {
            let config = Config::new().tier(tier).opt_level(level);
            let (mut store, inst) = instance(&config);
            let depth = inst.typed_func::<(i64,), i64>(&store, "depth").unwrap();
            let e = runtime_error(depth.call(&mut store, (1 << 40,)));
            assert_eq!(e.code, TrapCode::StackOverflow, "{tier} -O{level}");
            let f = frames(&e);
            assert!(f.len() > 1000, "{tier} -O{level}: {} frames", f.len());
            assert!(
                f.iter().all(|fr| *fr == ("depth".to_string(), 19, 12)),
                "{tier} -O{level}: {:?}",
                &f[..3]
            );
            depths.push((tier, level, f.len()));
        }
    }
    // Every single tier allows the same recursion depth, so every trace
    // has the same length. (`auto` mixes tiers within the recursion, and a
    // tier entry restarts the depth count: a known gap, bounded by the
    // byte budget; its trace still lists every frame.)
    let n = depths[0].2;
    let mut single = depths.iter().filter(|d| d.0 != Tier::Auto);
    assert!(single.all(|d| d.2 == n), "{depths:?}");
}

#[test]
fn the_rendered_error_lists_the_frames_and_shortens_long_traces() {
    let (mut store, inst) = instance(&Config::new().tier(Tier::Interp).opt_level(0));
    let outer = inst.typed_func::<(i64,), i64>(&store, "outer").unwrap();
    let e = runtime_error(outer.call(&mut store, (3,)));
    assert_eq!(
        e.render(),
        "error: runtime error: division by zero\n  --> trace.wdl:2:14\nstack trace:\n  \
         0: leaf at trace.wdl:2:14\n  1: mid at trace.wdl:5:12\n  \
         2: top at trace.wdl:10:14\n  3: outer at trace.wdl:15:12\n"
    );
    let depth = inst.typed_func::<(i64,), i64>(&store, "depth").unwrap();
    let e = runtime_error(depth.call(&mut store, (1 << 40,)));
    let text = e.render();
    let lines: Vec<&str> = text.lines().collect();
    let shown =
        waddle::RuntimeError::RENDER_INNER_FRAMES + waddle::RuntimeError::RENDER_OUTER_FRAMES;
    // Message, location, header, the frames shown and the gap line.
    assert_eq!(lines.len(), 3 + shown + 1, "{text}");
    let gap = format!("  ... {} more frames ...", e.trace.len() - shown);
    assert_eq!(lines[3 + waddle::RuntimeError::RENDER_INNER_FRAMES], gap);
    let last = format!("  {}: depth at trace.wdl:19:12", e.trace.len() - 1);
    assert_eq!(*lines.last().unwrap(), last);
}

#[test]
fn top_level_code_is_the_main_frame() {
    let engine = Engine::new(&Config::new().tier(Tier::Interp).opt_level(0)).unwrap();
    let src = "fn boom(a: [int]) -> int {\n    return a[3];\n}\nprint(boom([1]));\n";
    let module = Module::new(&engine, "main.wdl", src).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let Err(Error::Runtime(e)) = store.instantiate(&module) else {
        panic!("expected a runtime error");
    };
    let got: Vec<String> = e.trace.iter().map(ToString::to_string).collect();
    assert_eq!(got, ["boom at main.wdl:2:13", "<main> at main.wdl:4:7"]);
}
