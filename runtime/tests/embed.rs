//! The embedding API as an application sees it.

use std::io::Write;
use std::sync::{Arc, Mutex};

use waddle::{Config, Error, OutputSink, Session, Tier, Val};

/// A writer appending to a shared buffer.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn writer_sink_receives_output_after_each_call() {
    let sink = Shared::default();
    let mut engine = Session::with_config(
        &Config::new().tier(Tier::Auto),
        OutputSink::Writer(Box::new(sink.clone())),
    )
    .unwrap();
    engine
        .eval("fn greet(name: str) { print(\"hello, \" + name); }")
        .unwrap();
    engine.call("greet", &[Val::Str("world".into())]).unwrap();
    assert_eq!(&*sink.0.lock().unwrap(), b"hello, world\n");
}

#[test]
fn compile_once_call_many() {
    let mut engine = Session::with_config(&Config::new(), OutputSink::Capture).unwrap();
    engine
        .run(
            "lib.wdl",
            "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n\
             fn scale(xs: [float], k: float) -> [float] { var out: [float] = []; for i in 0..len(xs) { push(out, xs[i] * k); } return out; }",
        )
        .unwrap();
    let fibs: Vec<i64> = (0..15)
        .map(|n| engine.call_typed::<(i64,), i64>("fib", (n,)).unwrap())
        .collect();
    assert_eq!(fibs[14], 377);
    let scaled: Vec<f64> = engine
        .call_typed("scale", (vec![1.0f64, 2.5], 2.0f64))
        .unwrap();
    assert_eq!(scaled, vec![2.0, 5.0]);
    let names: Vec<String> = engine.functions().into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["fib", "scale"]);
}

#[test]
fn errors_are_std_errors() {
    let mut engine = Session::with_config(&Config::new(), OutputSink::Capture).unwrap();
    let err: Box<dyn std::error::Error> = Box::new(engine.eval("assert(false);").unwrap_err());
    assert!(
        err.to_string()
            .starts_with("runtime error: assertion failed at <entry 1>:1:1"),
        "{err}"
    );
    match engine.eval_as::<i64>("1 +") {
        Err(Error::Compile {
            diagnostics,
            rendered,
        }) => {
            assert!(!diagnostics.is_empty());
            let d = &diagnostics[0];
            assert_eq!(d.severity, waddle::Severity::Error);
            assert!(d.file().starts_with("<expr"), "{d:?}");
            assert_eq!(d.line(), 2, "{d:?}");
            assert!(rendered.contains(&d.message), "{rendered}");
            assert!(rendered.starts_with("error"), "{rendered}");
        }
        other => panic!("{other:?}"),
    }
}
