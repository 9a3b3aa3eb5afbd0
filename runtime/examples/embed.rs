//! A host application embedding Waddle: one `Engine` and one compiled
//! `Module` shared by a pool of worker threads, each with its own `Store`;
//! typed calls with numbers, strings and arrays; a deadline that stops a
//! runaway script; an interrupt from another thread.
//!
//! `cargo run -p waddle --example embed`

use std::time::{Duration, Instant};

use waddle::{Config, Engine, Error, Module, OutputSink, Store, Tier, TrapCode};

const SCRIPT: &str = r##"
var served = 0;

fn score(xs: [float], weight: float) -> float {
    served += 1;
    var s = 0.0;
    for i in 0..len(xs) { s += xs[i] * weight; }
    return s;
}

fn label(name: str, n: int) -> str { return name + "#" + str(n); }

fn runaway() -> int { var i = 0; while true { i += 1; } return i; }

print("script loaded");
"##;

pub fn main() -> Result<(), Error> {
    let engine = Engine::new(&Config::new().tier(Tier::Auto))?;
    // Parsed, checked, optimized and compiled to machine code once.
    let module = Module::new(&engine, "script.wdl", SCRIPT)?;

    // A pool of workers: one store per thread over the shared module.
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let (engine, module) = (engine.clone(), module.clone());
            std::thread::spawn(move || -> Result<(String, f64), Error> {
                let mut store = Store::with_output(&engine, OutputSink::Capture);
                let instance = store.instantiate(&module)?;
                let score = instance.typed_func::<(Vec<f64>, f64), f64>(&store, "score")?;
                let label = instance.typed_func::<(&str, i64), String>(&store, "label")?;
                let mut total = 0.0;
                for i in 0..1000 {
                    total += score.call(&mut store, (vec![1.0, 2.0, f64::from(i)], 0.5))?;
                }
                Ok((label.call(&mut store, ("worker", w))?, total))
            })
        })
        .collect();
    for w in workers {
        let (name, total) = w.join().expect("worker panicked")?;
        println!("{name}: total score {total}");
    }

    // A deadline stops a script that never returns.
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let instance = store.instantiate(&module)?;
    let runaway = instance.typed_func::<(), i64>(&store, "runaway")?;
    store.set_deadline(Duration::from_millis(50));
    let start = Instant::now();
    let err = runaway.call(&mut store, ()).unwrap_err();
    assert_eq!(err.trap_code(), Some(TrapCode::Interrupted));
    println!("deadline: stopped after {:?} ({err})", start.elapsed());
    store.clear_deadline();

    // An interrupt from another thread does the same on demand.
    let handle = store.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        handle.interrupt();
    });
    let err = runaway.call(&mut store, ()).unwrap_err();
    stopper.join().expect("stopper panicked");
    println!("interrupt: {err}");

    // The store is still usable afterwards.
    let label = instance.typed_func::<(&str, i64), String>(&store, "label")?;
    println!("after: {}", label.call(&mut store, ("main", 0))?);
    println!(
        "served in this store: {:?}",
        instance.global(&store, "served")
    );
    Ok(())
}
