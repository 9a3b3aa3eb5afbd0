//! Host functions (`Engine::register_fn`) on every tier this build runs:
//! argument and result conversions, errors and panics as runtime errors
//! with the call's location, the engine staying usable afterwards, the
//! embedder's data through `Caller`, and the optimizer keeping calls.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use waddle::{Caller, Config, Error, OutputSink, Session as Engine, Tier};

/// Every tier of this build (by `--tier` name).
fn tiers() -> Vec<Tier> {
    Tier::available()
}

fn engine(tier: Tier) -> Engine {
    engine_at(tier, 2)
}

fn engine_at(tier: Tier, opt_level: u8) -> Engine {
    let mut e = Engine::with_config(
        &Config::new().tier(tier).opt_level(opt_level),
        OutputSink::Capture,
    )
    .unwrap();
    e.register_fn("add3", |a: i64, b: i64, c: i64| a + b + c)
        .unwrap();
    e.register_fn("hyp", |x: f64, y: f64| (x * x + y * y).sqrt())
        .unwrap();
    e.register_fn("both", |a: bool, b: bool| a && b).unwrap();
    e.register_fn("shout", |s: &str, n: i64| {
        s.to_uppercase().repeat(n as usize)
    })
    .unwrap();
    e.register_fn("owned_len", |s: String| s.len() as i64)
        .unwrap();
    e.register_fn("sum", |xs: &[i64]| xs.iter().sum::<i64>())
        .unwrap();
    e.register_fn("mean", |xs: &[f64]| {
        xs.iter().sum::<f64>() / xs.len() as f64
    })
    .unwrap();
    e.register_fn("squares", |n: i64| {
        (0..n).map(|i| i * i).collect::<Vec<i64>>()
    })
    .unwrap();
    e.register_fn("halves", |xs: Vec<f64>| {
        xs.into_iter().map(|x| x / 2.0).collect::<Vec<f64>>()
    })
    .unwrap();
    e.register_fn("pi", || std::f64::consts::PI).unwrap();
    e.register_fn("checked_div", |a: i64, b: i64| {
        if b == 0 {
            Err(format!("cannot divide {a} by zero"))
        } else {
            Ok(a / b)
        }
    })
    .unwrap();
    e.register_fn("boom", |x: i64| -> i64 {
        if x > 2 {
            panic!("boom at {x}");
        }
        x
    })
    .unwrap();
    e
}

fn out(e: &mut Engine) -> String {
    String::from_utf8(e.take_output()).unwrap()
}

fn runtime_error(r: Result<(), Error>) -> String {
    match r {
        Err(Error::Runtime(e)) => e.render(),
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

#[test]
fn conversions_on_every_tier() {
    let src = "\
let h = hyp(3.0, 4.0);
print(add3(1, 2, 3));
print(h);
print(both(true, h > 4.0));
print(shout(\"ab\", 3));
print(owned_len(\"héllo\"));
print(sum([1, 2, 3, 4]));
print(mean([1.0, 2.0, 6.0]));
print(squares(5));
print(halves([1.0, 3.0]));
print(pi() > 3.14);
fn loop_sum(n: int) -> int {
    var t = 0;
    for i in 0..n { t = add3(t, i, 1); }
    return t;
}
print(loop_sum(100));
";
    let want = "6\n5.0\ntrue\nABABAB\n6\n10\n3.0\n[0, 1, 4, 9, 16]\n[0.5, 1.5]\ntrue\n5050\n";
    for tier in tiers() {
        let mut e = engine(tier);
        e.run("conv.wdl", src)
            .unwrap_or_else(|err| panic!("{tier:?}: {err}"));
        assert_eq!(out(&mut e), want, "tier {tier:?}");
    }
}

#[test]
fn errors_and_panics_become_runtime_errors_and_the_engine_stays_usable() {
    for tier in tiers() {
        let mut e = engine(tier);
        let r = e.run(
            "err.wdl",
            "fn f(b: int) -> int {\n    return checked_div(10, b);\n}\nprint(f(5));\nprint(f(0));\n",
        );
        assert_eq!(
            runtime_error(r),
            "error: runtime error: host function `checked_div` failed: cannot divide 10 by zero\n  --> err.wdl:2:12\n",
            "tier {tier:?}"
        );
        assert_eq!(out(&mut e), "2\n", "tier {tier:?}");
        let r = e.run(
            "panic.wdl",
            "var i = 0;\nwhile i < 10 {\n    print(boom(i));\n    i = i + 1;\n}\n",
        );
        assert_eq!(
            runtime_error(r),
            "error: runtime error: host function `boom` panicked: boom at 3\n  --> panic.wdl:3:11\n",
            "tier {tier:?}"
        );
        assert_eq!(out(&mut e), "0\n1\n2\n", "tier {tier:?}");
        // Still usable: functions, globals and host functions all work.
        e.run("again.wdl", "print(checked_div(9, 3) + boom(1));")
            .unwrap();
        assert_eq!(out(&mut e), "4\n", "tier {tier:?}");
        assert_eq!(e.eval_as::<i64>("add3(1, 1, 1)").unwrap(), 3);
    }
}

#[test]
fn calls_are_effects_the_optimizer_keeps_in_order() {
    for (tier, opt) in tiers()
        .into_iter()
        .flat_map(|t| (0..=2).map(move |o| (t, o)))
    {
        let mut e = engine_at(tier, opt);
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let l = log.clone();
        e.register_fn("note", move |x: i64| l.lock().unwrap().push(x))
            .unwrap();
        let counter = Arc::new(AtomicI64::new(0));
        let c = counter.clone();
        e.register_fn("tick", move || c.fetch_add(1, Ordering::SeqCst))
            .unwrap();
        // `tick()` results are unused or look loop-invariant: every call
        // must still happen, once per iteration, in program order.
        e.run(
            "fx.wdl",
            "fn go(n: int) {\n    for i in 0..n {\n        tick();\n        note(i);\n        let a = tick();\n        note(a - a);\n    }\n}\ngo(50);\nnote(tick());\n",
        )
        .unwrap();
        assert_eq!(counter.load(Ordering::SeqCst), 101, "tier {tier:?} -O{opt}");
        let log = log.lock().unwrap();
        let mut want = Vec::new();
        for i in 0..50 {
            want.push(i);
            want.push(0);
        }
        want.push(100);
        assert_eq!(*log, want, "tier {tier:?} -O{opt}");
    }
}

#[test]
fn caller_reaches_the_embedders_data() {
    for tier in tiers() {
        let mut e = engine(tier);
        e.set_data(Vec::<String>::new());
        e.register_fn_with_caller("record", |c: &mut Caller<'_>, s: &str| {
            c.data_mut::<Vec<String>>()
                .expect("data")
                .push(s.to_string());
        })
        .unwrap();
        e.register_fn_with_caller("logged", |c: &mut Caller<'_>| {
            c.data::<Vec<String>>().map_or(0, |v| v.len() as i64)
        })
        .unwrap();
        e.run(
            "data.wdl",
            "for i in 0..3 { record(\"entry \" + str(i)); }\nprint(logged());\n",
        )
        .unwrap();
        assert_eq!(out(&mut e), "3\n");
        assert_eq!(
            e.data::<Vec<String>>().unwrap(),
            &["entry 0", "entry 1", "entry 2"]
        );
    }
}

#[test]
fn the_frontend_checks_calls_against_host_signatures() {
    let mut e = engine(Tier::Interp);
    let cases = [
        ("print(add3(1, 2));", "takes 3 arguments"),
        ("print(shout(1, 2));", "mismatched types"),
        ("let s: str = add3(1, 2, 3);", "mismatched types"),
        ("print(nope(1));", "undefined function `nope`"),
        (
            "fn add3(a: int) -> int { return a; }",
            "it is a host function",
        ),
    ];
    for (src, want) in cases {
        match e.run("bad.wdl", src) {
            Err(Error::Compile { rendered, .. }) => {
                assert!(rendered.contains(want), "{src}: {rendered}")
            }
            other => panic!("{src}: expected a compile error, got {other:?}"),
        }
    }
}

#[test]
fn registration_rejects_reserved_names_and_lists_functions() {
    let mut e = engine(Tier::Interp);
    for bad in ["print", "while", "1x", "", "a-b"] {
        assert!(e.register_fn(bad, || 1i64).is_err(), "{bad:?}");
    }
    e.eval("fn mine() -> int { return 1; }").unwrap();
    assert!(e.register_fn("mine", || 2i64).is_err());
    let names: Vec<String> = e.host_functions().into_iter().map(|f| f.name).collect();
    assert!(names.contains(&"shout".to_string()), "{names:?}");
    let shout = e
        .host_functions()
        .into_iter()
        .find(|f| f.name == "shout")
        .unwrap();
    let params: Vec<String> = shout.sig.params.iter().map(|t| t.to_string()).collect();
    assert_eq!(params, ["str", "int"]);
    assert_eq!(shout.sig.result, waddle::ValType::STR);
    assert_eq!(shout.sig.to_string(), "(str, int) -> str");
}

#[test]
fn reregistering_replaces_the_body_for_compiled_code() {
    for tier in tiers() {
        let mut e = engine(tier);
        e.register_fn("k", || 1i64).unwrap();
        e.eval("fn get() -> int { return k(); }").unwrap();
        assert_eq!(e.call_typed::<(), i64>("get", ()).unwrap(), 1);
        e.register_fn("k", || 2i64).unwrap();
        assert_eq!(e.call_typed::<(), i64>("get", ()).unwrap(), 2, "{tier:?}");
    }
}

#[test]
fn typed_globals() {
    let mut e = engine(Tier::Interp);
    e.eval("var limit = 10; let name = \"x\"; var xs = [1.5];")
        .unwrap();
    e.set_global("limit", 42i64).unwrap();
    e.set_global("name", "waddle").unwrap();
    e.set_global("xs", vec![2.0f64, 3.0]).unwrap();
    assert_eq!(e.get_global::<i64>("limit").unwrap(), 42);
    assert_eq!(e.get_global::<String>("name").unwrap(), "waddle");
    assert_eq!(e.get_global::<Vec<f64>>("xs").unwrap(), vec![2.0, 3.0]);
    e.eval("print(name + str(limit) + str(xs[1]));").unwrap();
    assert_eq!(out(&mut e), "waddle423.0\n");
    assert!(e.set_global("limit", 1.5f64).is_err());
    assert!(e.set_global("missing", 1i64).is_err());
    assert!(e.get_global::<bool>("limit").is_err());
}

#[test]
fn results_survive_collections_between_calls() {
    // Collect before every allocation: host results (strings, arrays) held
    // in frames across further host calls must stay alive on every tier.
    for tier in tiers() {
        let mut e = Engine::with_config(
            &Config::new().tier(tier).gc_stress(true),
            OutputSink::Capture,
        )
        .unwrap();
        e.register_fn("shout", |s: &str, n: i64| {
            s.to_uppercase().repeat(n as usize)
        })
        .unwrap();
        e.register_fn("squares", |n: i64| {
            (0..n).map(|i| i * i).collect::<Vec<i64>>()
        })
        .unwrap();
        e.run(
            "gc.wdl",
            "fn go(n: int) -> str {\n    var acc = \"\";\n    for i in 0..n {\n        let a = shout(\"ab\", 2);\n        let xs = squares(i + 2);\n        let b = shout(\"c\", i);\n        acc = a + b + str(xs[len(xs) - 1]);\n    }\n    return acc;\n}\nprint(go(5));\n",
        )
        .unwrap_or_else(|err| panic!("{tier:?}: {err}"));
        assert_eq!(
            String::from_utf8(e.take_output()).unwrap(),
            "ABABCCCC25\n",
            "tier {tier:?}"
        );
    }
}
