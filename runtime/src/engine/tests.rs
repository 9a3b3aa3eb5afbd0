//! Session tests through the whole pipeline (frontend → passes → interpreter).

use super::*;
use crate::api::Config;
use waddle_opt::abi::TrapCode;

fn engine() -> Session {
    Session::with_config(&Config::new().tier(Tier::Interp), OutputSink::Capture).unwrap()
}

fn out(e: &mut Session) -> String {
    String::from_utf8(e.take_output()).unwrap()
}

fn runtime_code(r: Result<(), Error>) -> TrapCode {
    match r {
        Err(Error::Runtime(e)) => e.code,
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

#[test]
fn run_prints_and_keeps_functions_callable() {
    let mut e = engine();
    e.run(
        "p.wdl",
        "fn add(a: int, b: int) -> int { return a + b; }\nprint(add(2, 3));\nprint([\"a\", \"b\"]);",
    )
    .unwrap();
    assert_eq!(out(&mut e), "5\n[\"a\", \"b\"]\n");
    assert_eq!(
        e.call("add", &[Val::Int(40), Val::Int(2)]).unwrap(),
        Val::Int(42)
    );
    assert_eq!(e.call_typed::<(i64, i64), i64>("add", (1, 2)).unwrap(), 3);
}

#[test]
fn entries_persist_functions_and_globals() {
    let mut e = engine();
    e.eval("fn add(a: int, b: int) -> int { return a + b; }")
        .unwrap();
    e.eval("var total = 0;").unwrap();
    e.eval("total = add(total, 5);").unwrap();
    e.eval("total = add(total, 5);").unwrap();
    assert_eq!(e.global("total"), Some(Val::Int(10)));
    e.eval("print(total)").unwrap();
    assert_eq!(out(&mut e), "10\n");
    assert_eq!(e.functions().len(), 1);
    assert_eq!(e.globals().len(), 1);
}

#[test]
fn redefinition_replaces_for_existing_callers() {
    let mut e = engine();
    e.eval("fn f() -> int { return 1; }").unwrap();
    e.eval("fn g() -> int { return f() * 10; }").unwrap();
    assert_eq!(e.call_typed::<(), i64>("g", ()).unwrap(), 10);
    e.eval("fn f() -> int { return 2; }").unwrap();
    assert_eq!(e.call_typed::<(), i64>("g", ()).unwrap(), 20);
}

#[test]
fn eval_expr_returns_values_without_leaking_globals() {
    let mut e = engine();
    e.eval("var xs: [int] = [1, 2];").unwrap();
    assert_eq!(e.eval_as::<i64>("len(xs) + 40").unwrap(), 42);
    assert_eq!(e.eval_as::<Vec<i64>>("xs").unwrap(), vec![1, 2]);
    assert_eq!(e.eval_as::<String>("\"a\" + \"b\"").unwrap(), "ab");
    assert_eq!(e.eval_as::<f64>("0.5 * 3.0").unwrap(), 1.5);
    assert_eq!(e.globals().len(), 1);
    assert!(matches!(e.eval_as::<bool>("1"), Err(Error::Signature(_))));
}

#[test]
fn calls_with_heap_values_and_signature_checks() {
    let mut e = engine();
    e.eval("fn join(xs: [str], sep: str) -> str { var s = \"\"; for i in 0..len(xs) { if i > 0 { s = s + sep; } s = s + xs[i]; } return s; }")
        .unwrap();
    e.eval("fn rows(n: int) -> [[int]] { return [[0; 2]; n]; }")
        .unwrap();
    let joined: String = e
        .call_typed("join", (vec!["a".to_string(), "b".to_string()], ", "))
        .unwrap();
    assert_eq!(joined, "a, b");
    assert_eq!(
        e.call("rows", &[Val::Int(2)]).unwrap().to_string(),
        "[[0, 0], [0, 0]]"
    );
    assert!(matches!(e.call("rows", &[]), Err(Error::Signature(_))));
    assert!(matches!(
        e.call("rows", &[Val::Bool(true)]),
        Err(Error::Signature(_))
    ));
    assert!(matches!(
        e.call("nope", &[]),
        Err(Error::UnknownFunction(_))
    ));
    assert!(matches!(
        e.call_typed::<(i64,), String>("rows", (1,)),
        Err(Error::Signature(_))
    ));
}

#[test]
fn runtime_errors_have_locations_and_keep_output() {
    let mut e = engine();
    let r = e.run("t.wdl", "print(1);\nlet z = 0;\nprint(1 / z);\n");
    assert_eq!(out(&mut e), "1\n");
    match r {
        Err(Error::Runtime(err)) => {
            assert_eq!(err.code, TrapCode::DivisionByZero);
            assert_eq!(err.location.as_ref().unwrap().to_string(), "t.wdl:3:9");
            assert_eq!(
                err.render(),
                "error: runtime error: division by zero\n  --> t.wdl:3:9\n"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn compile_errors_are_rendered() {
    let mut e = engine();
    let err = e.run("bad.wdl", "let x: int = 1.5;").unwrap_err();
    assert_eq!(err.exit_code(), 1);
    let text = err.render();
    assert!(text.starts_with("error"), "{text}");
    assert!(text.contains("bad.wdl:1:"), "{text}");
    // A failed entry changes nothing.
    assert!(e.eval("fn f( {").is_err());
    assert!(e.functions().is_empty());
}

#[test]
fn unavailable_tiers_are_clear_errors() {
    let mut e = engine();
    for tier in [Tier::Baseline, Tier::Opt, Tier::Full, Tier::Auto] {
        if tier.is_available() {
            assert!(e.set_tier(tier).is_ok());
            continue;
        }
        let err = Session::with_config(&Config::new().tier(tier), OutputSink::Stdout)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "tier `{tier}` is not available in this build (available: {})",
                Tier::available()
                    .into_iter()
                    .map(Tier::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        );
        assert_eq!(err.exit_code(), 1);
        assert!(e.set_tier(tier).is_err());
    }
}

#[test]
fn full_tier_runs_the_vsdg_round_trip() {
    let mut e = Session::with_config(&Config::new().tier(Tier::Full), OutputSink::Capture).unwrap();
    let src = "fn f(p: bool, a: int) -> int { let x = a * a + 1; if p { return x; } return 0; }\n\
               print(f(true, 3));\nprint(f(false, 3));";
    e.run("t.wdl", src).unwrap();
    assert_eq!(e.take_output(), b"10\n0\n");
}

#[test]
fn fuel_stops_infinite_loops() {
    let mut e = Session::with_config(&Config::new().tier(Tier::Interp), OutputSink::Capture)
        .map(|mut s| {
            s.set_fuel(Some(10_000));
            s
        })
        .unwrap();
    assert_eq!(
        runtime_code(e.run("f.wdl", "var i = 0; while true { i += 1; }")),
        TrapCode::OutOfFuel
    );
    e.set_fuel(None);
    e.eval("print(1)").unwrap();
}

#[test]
fn unbounded_recursion_is_stack_overflow() {
    let r = crate::driver::run_on_big_stack(|| {
        engine().run(
            "r.wdl",
            "fn r(n: int) -> int { return r(n + 1) + 1; }\nprint(r(0));",
        )
    })
    .unwrap();
    assert_eq!(runtime_code(r), TrapCode::StackOverflow);
}

#[test]
fn absurd_allocations_are_out_of_memory() {
    let mut e = engine();
    assert_eq!(
        runtime_code(e.run("m.wdl", "let a = [0; 1000000000000];\nprint(len(a));")),
        TrapCode::OutOfMemory
    );
    let mut e = Session::with_config(
        &Config::new().tier(Tier::Interp).memory_limit(Some(1 << 20)),
        OutputSink::Capture,
    )
    .unwrap();
    assert_eq!(
        runtime_code(e.run(
            "m.wdl",
            "var keep: [[int]] = []; while true { push(keep, [0; 1000]); }"
        )),
        TrapCode::OutOfMemory
    );
}

#[test]
fn allocation_loop_runs_in_bounded_memory() {
    let mut e = engine();
    e.run(
        "loop.wdl",
        "var total = 0;\nfor i in 0..20000 { let a = [i; 100000]; total += a[99999]; }\nprint(total);",
    )
    .unwrap();
    assert_eq!(out(&mut e), format!("{}\n", (0..20000i64).sum::<i64>()));
    let s = e.heap_stats();
    assert!(s.collections > 100, "{s:?}");
    assert!(s.peak_bytes < 64 << 20, "{s:?}");
}

#[test]
fn inspection_helpers() {
    let mut e = engine();
    e.eval("fn sq(x: int) -> int { return x * x; }").unwrap();
    assert!(e.function_ir("sq").unwrap().contains("sq"));
    assert!(e.function_opt_ir("sq").unwrap().contains("sq"));
    assert_eq!(e.function_tier("sq").unwrap(), Tier::Interp);
    assert!(e.function_ir("nope").is_err());
}

#[test]
fn redefinition_reaches_callers_that_inlined_the_old_body() {
    for tier in Tier::available() {
        let mut e =
            Session::with_config(&Config::new().tier(tier).opt_level(1), OutputSink::Capture)
                .unwrap();
        // `base` is small enough to be inlined into `twice`, and `twice`
        // into `outer`: both must see the new `base`.
        e.eval("fn base() -> int { return 1; } fn twice() -> int { return base() * 2; }")
            .unwrap();
        e.eval("fn outer() -> int { return twice() + 100; }")
            .unwrap();
        assert_eq!(e.call("outer", &[]).unwrap(), Val::Int(102), "{tier}");
        e.eval("fn base() -> int { return 7; }").unwrap();
        assert_eq!(e.call("twice", &[]).unwrap(), Val::Int(14), "{tier}");
        assert_eq!(e.call("outer", &[]).unwrap(), Val::Int(114), "{tier}");
    }
}
