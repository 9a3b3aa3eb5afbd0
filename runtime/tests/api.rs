//! The embedding API (Engine / Module / Store / Instance / TypedFunc) on
//! every tier this build has: typed calls, values across the boundary,
//! threads, interrupts, deadlines, fuel, errors.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use waddle::{Config, Engine, Error, Module, OutputSink, Store, Tier, TrapCode, Val};

const PROGRAM: &str = r#"
var calls = 0;
fn add(a: int, b: int) -> int { calls += 1; return a + b; }
fn scale(x: float, k: float) -> float { return x * k; }
fn not(b: bool) -> bool { return !b; }
fn greet(name: str) -> str { return "hello, " + name; }
fn sum(xs: [int]) -> int { var s = 0; for i in 0..len(xs) { s += xs[i]; } return s; }
fn squares(n: int) -> [int] { var out: [int] = []; for i in 0..n { push(out, i * i); } return out; }
fn shout(s: str) { print(s + "!"); }
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn spin() { while true {} }
fn div(a: int, b: int) -> int { return a / b; }
print("loaded");
"#;

fn engines() -> Vec<(Tier, Engine)> {
    Tier::available()
        .into_iter()
        .map(|tier| (tier, Engine::new(&Config::new().tier(tier)).unwrap()))
        .collect()
}

#[test]
fn typed_calls_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        assert_eq!(store.take_output(), b"loaded\n", "{tier}");
        let add = inst.typed_func::<(i64, i64), i64>(&store, "add").unwrap();
        assert_eq!(add.call(&mut store, (40, 2)).unwrap(), 42, "{tier}");
        assert_eq!(add.call(&mut store, (-1, 1)).unwrap(), 0, "{tier}");
        assert_eq!(inst.global(&store, "calls"), Some(Val::Int(2)), "{tier}");
        let scale = inst.typed_func::<(f64, f64), f64>(&store, "scale").unwrap();
        assert_eq!(scale.call(&mut store, (1.5, 4.0)).unwrap(), 6.0, "{tier}");
        let not = inst.typed_func::<(bool,), bool>(&store, "not").unwrap();
        assert!(not.call(&mut store, (false,)).unwrap(), "{tier}");
        let greet = inst.typed_func::<(&str,), String>(&store, "greet").unwrap();
        assert_eq!(greet.call(&mut store, ("ann",)).unwrap(), "hello, ann");
        let sum = inst.typed_func::<(Vec<i64>,), i64>(&store, "sum").unwrap();
        assert_eq!(sum.call(&mut store, (vec![1, 2, 3],)).unwrap(), 6);
        let squares = inst
            .typed_func::<(i64,), Vec<i64>>(&store, "squares")
            .unwrap();
        assert_eq!(squares.call(&mut store, (4,)).unwrap(), [0, 1, 4, 9]);
        let shout = inst.typed_func::<(String,), ()>(&store, "shout").unwrap();
        shout.call(&mut store, ("hey".to_string(),)).unwrap();
        assert_eq!(store.take_output(), b"hey!\n", "{tier}");
        let fib = inst.typed_func::<(i64,), i64>(&store, "fib").unwrap();
        assert_eq!(fib.call(&mut store, (20,)).unwrap(), 6765, "{tier}");
        let dynamic = inst
            .call(&mut store, "add", &[Val::Int(1), Val::Int(2)])
            .unwrap();
        assert_eq!(dynamic, Val::Int(3));
    }
}

/// `Instance::call` on every tier and every way into compiled code: a
/// direct call (integer-class arguments), the trampoline (a `float`
/// argument, or more arguments than fit in registers or on the stack
/// buffer), and arguments that allocate (strings, arrays) next to scalars.
#[test]
fn dynamic_calls_take_every_entry_path_on_every_tier() {
    const SRC: &str = r#"
fn lt(a: int, b: int) -> bool { return a < b; }
fn mix(a: int, x: float, b: bool) -> float { if b { return x * 2.0; } return x + 1.0; }
fn nine(a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int, i: int) -> int {
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i;
}
fn join(s: str, n: int, xs: [str]) -> str {
    var out = s;
    for i in 0..len(xs) { out = out + xs[i]; }
    return out + str(n);
}
"#;
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "dyn.wdl", SRC).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let call = |store: &mut Store, f: &str, args: &[Val]| inst.call(store, f, args);
        assert_eq!(
            call(&mut store, "lt", &[Val::Int(1), Val::Int(2)]).unwrap(),
            Val::Bool(true),
            "{tier}"
        );
        assert_eq!(
            call(&mut store, "lt", &[Val::Int(2), Val::Int(1)]).unwrap(),
            Val::Bool(false),
            "{tier}"
        );
        let mix = [Val::Int(0), Val::Float(1.25), Val::Bool(true)];
        assert_eq!(call(&mut store, "mix", &mix).unwrap(), Val::Float(2.5));
        let nine: Vec<Val> = (1..=9).map(Val::Int).collect();
        // 1*1 + 2*2 + ... + 9*9
        assert_eq!(call(&mut store, "nine", &nine).unwrap(), Val::Int(285));
        let words = Val::Array(vec![Val::Str("b".into()), Val::Str("c".into())]);
        let join = [Val::Str("a".into()), Val::Int(7), words];
        assert_eq!(
            call(&mut store, "join", &join).unwrap(),
            Val::Str("abc7".into()),
            "{tier}"
        );
        let wrong = call(&mut store, "nine", &nine[..8]);
        assert!(
            matches!(wrong, Err(Error::Signature(_))),
            "{tier}: {wrong:?}"
        );
        let wrong = call(&mut store, "lt", &[Val::Int(1), Val::Float(2.0)]);
        assert!(
            matches!(wrong, Err(Error::Signature(_))),
            "{tier}: {wrong:?}"
        );
    }
}

#[test]
fn signatures_are_checked_once_when_the_function_is_looked_up() {
    let engine = Engine::default();
    let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    let wrong = inst.typed_func::<(i64,), i64>(&store, "add").unwrap_err();
    assert!(
        matches!(&wrong, Error::Signature(m) if m.contains("fn(int, int) -> int")),
        "{wrong}"
    );
    assert!(inst.typed_func::<(i64, i64), f64>(&store, "add").is_err());
    assert!(inst.typed_func::<(Vec<f64>,), i64>(&store, "sum").is_err());
    assert!(matches!(
        inst.typed_func::<(), ()>(&store, "nope"),
        Err(Error::UnknownFunction(_))
    ));
    // `Val` accepts any type.
    let any = inst.typed_func::<(Val, Val), Val>(&store, "add").unwrap();
    assert_eq!(
        any.call(&mut store, (Val::Int(2), Val::Int(2))).unwrap(),
        Val::Int(4)
    );
}

#[test]
fn runtime_errors_keep_the_store_usable() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let div = inst.typed_func::<(i64, i64), i64>(&store, "div").unwrap();
        let e = div.call(&mut store, (1, 0)).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::DivisionByZero), "{tier}");
        let Error::Runtime(rt) = &e else { panic!() };
        assert!(
            rt.location
                .as_ref()
                .unwrap()
                .to_string()
                .starts_with("api.wdl:12:"),
            "{tier}: {}",
            rt.location.as_ref().unwrap()
        );
        assert_eq!(div.call(&mut store, (9, 3)).unwrap(), 3, "{tier}");
    }
}

#[test]
fn one_instance_per_store_and_handles_stay_with_their_store() {
    let engine = Engine::default();
    let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
    let mut a = Store::with_output(&engine, OutputSink::Capture);
    let mut b = Store::with_output(&engine, OutputSink::Capture);
    let ia = a.instantiate(&module).unwrap();
    b.instantiate(&module).unwrap();
    assert!(matches!(a.instantiate(&module), Err(Error::Instance(_))));
    let add = ia.typed_func::<(i64, i64), i64>(&a, "add").unwrap();
    assert!(matches!(add.call(&mut b, (1, 2)), Err(Error::Instance(_))));
    assert!(ia.typed_func::<(i64, i64), i64>(&b, "add").is_err());
    let other = Engine::default();
    let mut c = Store::new(&other);
    assert!(matches!(c.instantiate(&module), Err(Error::Instance(_))));
}

#[test]
fn failed_top_level_code_leaves_the_store_empty() {
    for (tier, engine) in engines() {
        let bad = Module::new(&engine, "bad.wdl", "let z = 0; print(1 / z);").unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let e = store.instantiate(&bad).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::DivisionByZero), "{tier}");
        let good = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        store.instantiate(&good).unwrap();
    }
}

#[test]
fn a_store_moves_to_another_thread() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let greet = inst.typed_func::<(&str,), String>(&store, "greet").unwrap();
        assert_eq!(greet.call(&mut store, ("a",)).unwrap(), "hello, a");
        let (store, out) = std::thread::spawn(move || {
            let out = greet.call(&mut store, ("b",)).unwrap();
            (store, out)
        })
        .join()
        .unwrap();
        assert_eq!(out, "hello, b", "{tier}");
        assert_eq!(inst.global(&store, "calls"), Some(Val::Int(0)));
    }
}

#[test]
fn a_module_is_shared_by_four_threads() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let threads: Vec<_> = (0..4i64)
            .map(|t| {
                let (engine, module) = (engine.clone(), module.clone());
                std::thread::spawn(move || {
                    let mut store = Store::with_output(&engine, OutputSink::Capture);
                    let inst = store.instantiate(&module).unwrap();
                    let add = inst.typed_func::<(i64, i64), i64>(&store, "add").unwrap();
                    let greet = inst.typed_func::<(&str,), String>(&store, "greet").unwrap();
                    let mut acc = 0;
                    for i in 0..2000 {
                        acc = add.call(&mut store, (acc, i + t)).unwrap();
                        if i % 500 == 0 {
                            store.collect_garbage();
                            let name = format!("t{t}");
                            let g = greet.call(&mut store, (name.as_str(),)).unwrap();
                            assert_eq!(g, format!("hello, t{t}"));
                        }
                    }
                    (acc, inst.global(&store, "calls"))
                })
            })
            .collect();
        for (t, h) in threads.into_iter().enumerate() {
            let (acc, calls) = h.join().unwrap();
            let t = t as i64;
            assert_eq!(acc, (0..2000).map(|i| i + t).sum::<i64>(), "{tier}");
            assert_eq!(calls, Some(Val::Int(2000)), "{tier}");
        }
    }
}

#[test]
fn interrupt_stops_an_endless_loop_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let spin = inst.typed_func::<(), ()>(&store, "spin").unwrap();
        let handle = store.interrupt_handle();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            handle.interrupt();
        });
        let e = spin.call(&mut store, ()).unwrap_err();
        t.join().unwrap();
        assert_eq!(e.trap_code(), Some(TrapCode::Interrupted), "{tier}");
        // The request was consumed: the store runs normally again.
        let add = inst.typed_func::<(i64, i64), i64>(&store, "add").unwrap();
        assert_eq!(add.call(&mut store, (1, 1)).unwrap(), 2, "{tier}");
        // An interrupt while nothing runs stops the next call.
        store.interrupt_handle().interrupt();
        let e = add.call(&mut store, (1, 1)).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::Interrupted), "{tier}");
        assert_eq!(add.call(&mut store, (1, 1)).unwrap(), 2, "{tier}");
    }
}

#[test]
fn a_deadline_stops_an_endless_loop_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let spin = inst.typed_func::<(), ()>(&store, "spin").unwrap();
        store.set_deadline(Duration::from_millis(20));
        let e = spin.call(&mut store, ()).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::Interrupted), "{tier}");
        store.clear_deadline();
        let fib = inst.typed_func::<(i64,), i64>(&store, "fib").unwrap();
        assert_eq!(fib.call(&mut store, (15,)).unwrap(), 610, "{tier}");
    }
}

#[test]
fn fuel_runs_out_and_refuels_on_every_tier() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let spin = inst.typed_func::<(), ()>(&store, "spin").unwrap();
        store.set_fuel(Some(100_000)).unwrap();
        let e = spin.call(&mut store, ()).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::OutOfFuel), "{tier}");
        assert_eq!(store.fuel(), Some(0));
        store.set_fuel(Some(1_000_000)).unwrap();
        let fib = inst.typed_func::<(i64,), i64>(&store, "fib").unwrap();
        assert_eq!(fib.call(&mut store, (10,)).unwrap(), 55, "{tier}");
        assert!(store.fuel().unwrap() < 1_000_000, "{tier}");
    }
}

#[test]
fn fuel_is_refused_when_native_code_does_not_count_it() {
    let engine = Engine::new(&Config::new().tier(Tier::Opt).interruptible(false)).unwrap();
    let mut store = Store::new(&engine);
    assert!(matches!(store.set_fuel(Some(10)), Err(Error::Instance(_))));
}

/// A writer that panics on every write.
struct Exploding;

impl Write for Exploding {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        panic!("sink exploded");
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_panicking_output_sink_does_not_escape() {
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Writer(Box::new(Exploding)));
        let inst = store.instantiate(&module).unwrap();
        let shout = inst.typed_func::<(&str,), ()>(&store, "shout").unwrap();
        shout.call(&mut store, ("x",)).unwrap();
        let add = inst.typed_func::<(i64, i64), i64>(&store, "add").unwrap();
        assert_eq!(add.call(&mut store, (1, 2)).unwrap(), 3, "{tier}");
        drop(store);
    }
}

#[test]
fn output_reaches_a_shared_writer() {
    #[derive(Clone)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Shared(Arc::new(Mutex::new(Vec::new())));
    let engine = Engine::default();
    let module = Module::new(&engine, "api.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Writer(Box::new(buf.clone())));
    store.instantiate(&module).unwrap();
    assert_eq!(&*buf.0.lock().unwrap(), b"loaded\n");
}

#[test]
fn compile_errors_are_structured() {
    let engine = Engine::default();
    let src = "fn f() -> int {\n  return 1.5;\n}";
    let e = Module::new(&engine, "bad.wdl", src).unwrap_err();
    let Error::Compile {
        diagnostics,
        rendered,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(diagnostics.len(), 1, "{rendered}");
    let d = &diagnostics[0];
    assert_eq!((d.file(), d.line()), ("bad.wdl", 2), "{d:?}");
    assert!(rendered.contains(&d.message), "{rendered}");
    assert!(src[d.span.clone()].contains("1.5"), "{d:?}");
}

#[test]
fn an_interruptible_session_stops_an_entry_and_keeps_its_state() {
    use waddle::{Config, Session};
    for tier in Tier::available() {
        let mut s = Session::with_config(
            &Config::new().tier(tier).interruptible(true),
            OutputSink::Capture,
        )
        .unwrap();
        s.eval("var kept = 41; fn spin() { while true {} }")
            .unwrap();
        let handle = s.interrupt_handle();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            handle.interrupt();
        });
        let e = s.eval("spin();").unwrap_err();
        t.join().unwrap();
        assert_eq!(e.trap_code(), Some(TrapCode::Interrupted), "{tier}");
        assert_eq!(s.eval_expr("kept + 1").unwrap(), Val::Int(42), "{tier}");
    }
}

#[test]
fn host_functions_registered_on_the_engine_run_on_every_tier() {
    for (tier, engine) in engines() {
        engine.register_fn("twice", |x: i64| x * 2).unwrap();
        engine
            .register_fn(
                "checked",
                |a: i64| if a < 0 { Err("negative") } else { Ok(a) },
            )
            .unwrap();
        engine
            .register_fn_with_caller("record", |c: &mut waddle::Caller<'_>, x: i64| {
                c.data_mut::<Vec<i64>>().expect("data").push(x);
            })
            .unwrap();
        let module = Module::new(
            &engine,
            "h.wdl",
            "fn f(x: int) -> int { record(x); return twice(x) + checked(x); }",
        )
        .unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        store.set_data(Vec::<i64>::new());
        let inst = store.instantiate(&module).unwrap();
        let f = inst.typed_func::<(i64,), i64>(&store, "f").unwrap();
        assert_eq!(f.call(&mut store, (5,)).unwrap(), 15, "{tier}");
        let e = f.call(&mut store, (-1,)).unwrap_err();
        assert_eq!(e.trap_code(), Some(TrapCode::HostError), "{tier}");
        assert!(e.to_string().contains("`checked` failed: negative"), "{e}");
        assert_eq!(store.data::<Vec<i64>>().unwrap(), &vec![5, -1], "{tier}");
    }
}

/// Typed calls reach native code without the trampoline when every
/// parameter is an integer-class word (up to five of them) and through it
/// otherwise: argument order, `bool` results (the low byte of the result
/// register), `float` results, six parameters and `float` parameters
/// agree with the interpreter on every tier.
#[test]
fn direct_and_trampoline_typed_calls_agree() {
    const SRC: &str = "
fn five(a: int, b: int, c: int, d: int, e: int) -> int { return a + 10 * b + 100 * c + 1000 * d + 10000 * e; }
fn six(a: int, b: int, c: int, d: int, e: int, f: int) -> int { return five(a, b, c, d, e) + 100000 * f; }
fn pick(c: bool, a: int, b: int) -> int { if c { return a; } return b; }
fn big(n: int) -> bool { return n > 1000000; }
fn half(n: int) -> float { return float(n) / 2.0; }
fn mix(n: int, x: float, m: int) -> float { return float(n) * x + float(m); }
fn count(s: str, xs: [int]) -> int { return len(s) + len(xs); }
fn nothing() {}
";
    for (tier, engine) in engines() {
        let module = Module::new(&engine, "direct.wdl", SRC).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let five = inst
            .typed_func::<(i64, i64, i64, i64, i64), i64>(&store, "five")
            .unwrap();
        assert_eq!(
            five.call(&mut store, (1, 2, 3, 4, 5)).unwrap(),
            54321,
            "{tier}"
        );
        let six = inst
            .typed_func::<(i64, i64, i64, i64, i64, i64), i64>(&store, "six")
            .unwrap();
        assert_eq!(
            six.call(&mut store, (1, 2, 3, 4, 5, 6)).unwrap(),
            654321,
            "{tier}"
        );
        let pick = inst
            .typed_func::<(bool, i64, i64), i64>(&store, "pick")
            .unwrap();
        assert_eq!(pick.call(&mut store, (true, 7, 9)).unwrap(), 7, "{tier}");
        assert_eq!(pick.call(&mut store, (false, 7, 9)).unwrap(), 9, "{tier}");
        let big = inst.typed_func::<(i64,), bool>(&store, "big").unwrap();
        let big_val = inst.typed_func::<(i64,), Val>(&store, "big").unwrap();
        for n in [0, 1, 999_999, 1_000_001, i64::MAX, i64::MIN, -1] {
            assert_eq!(
                big.call(&mut store, (n,)).unwrap(),
                n > 1_000_000,
                "{tier} {n}"
            );
            assert_eq!(
                big_val.call(&mut store, (n,)).unwrap(),
                Val::Bool(n > 1_000_000),
                "{tier} {n}"
            );
        }
        let half = inst.typed_func::<(i64,), f64>(&store, "half").unwrap();
        assert_eq!(half.call(&mut store, (-7,)).unwrap(), -3.5, "{tier}");
        let mix = inst
            .typed_func::<(i64, f64, i64), f64>(&store, "mix")
            .unwrap();
        assert_eq!(mix.call(&mut store, (3, 0.5, 10)).unwrap(), 11.5, "{tier}");
        let mix_val = inst
            .typed_func::<(Val, Val, Val), f64>(&store, "mix")
            .unwrap();
        let args = (Val::Int(2), Val::Float(0.25), Val::Int(-1));
        assert_eq!(mix_val.call(&mut store, args).unwrap(), -0.5, "{tier}");
        let count = inst
            .typed_func::<(&str, Vec<i64>), i64>(&store, "count")
            .unwrap();
        assert_eq!(
            count.call(&mut store, ("abc", vec![1, 2])).unwrap(),
            5,
            "{tier}"
        );
        let nothing = inst.typed_func::<(), ()>(&store, "nothing").unwrap();
        nothing.call(&mut store, ()).unwrap();
    }
}

/// `Session::function_asm` lists native code with the `disasm` feature and
/// is a typed error naming the feature without it (the library's default);
/// either way an unknown name is `UnknownFunction` and interpreted code is a
/// note, not an error.
#[test]
fn disassembly_needs_the_disasm_feature() {
    use waddle::{Config, Session};
    let mut s = Session::with_config(&Config::new().tier(Tier::Opt), OutputSink::Capture).unwrap();
    s.eval("fn sq(x: int) -> int { return x * x; } print(sq(3));")
        .unwrap();
    let asm = s.function_asm("sq");
    if cfg!(feature = "disasm") {
        let asm = asm.unwrap();
        assert!(asm.starts_with("sq: "), "{asm}");
        assert!(asm.lines().count() > 3, "{asm}");
    } else {
        let e = asm.unwrap_err();
        assert_eq!(
            e,
            Error::MissingFeature {
                feature: "disasm",
                what: "disassembling machine code"
            }
        );
        assert!(e.to_string().contains("`disasm` feature"), "{e}");
    }
    assert!(matches!(
        s.function_asm("nope"),
        Err(Error::UnknownFunction(_))
    ));
    let mut interp =
        Session::with_config(&Config::new().tier(Tier::Interp), OutputSink::Capture).unwrap();
    interp.eval("fn one() -> int { return 1; }").unwrap();
    assert!(interp
        .function_asm("one")
        .unwrap()
        .starts_with("no native code"));
}
