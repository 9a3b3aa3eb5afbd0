//! A host application embedding Waddle: one `Engine` and one compiled
//! `Module` shared by a pool of worker threads, each with its own `Store`;
//! typed calls with numbers, strings and arrays; a deadline that stops a
//! runaway script; an interrupt from another thread; a large array shared
//! with a script through a handle (no copies); a memory limiter; a call
//! that pauses when its fuel runs out and resumes when refueled.
//!
//! `cargo run -p waddle --example embed`

use std::time::{Duration, Instant};

use waddle::{
    ArrayRef, CallState, Config, Engine, Error, Module, OutputSink, Store, Tier, TrapCode,
};

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

fn normalize(xs: [float]) -> float {
    var top = 0.0;
    for i in 0..len(xs) { if xs[i] > top { top = xs[i]; } }
    for i in 0..len(xs) { xs[i] = xs[i] / top; }
    return top;
}

fn hog(n: int) -> int { var a = [0; n]; return len(a); }

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

    // A million floats shared with the script: built in the store's heap,
    // normalized in place by the script, read back without a copy.
    let normalize = instance.typed_func::<(&ArrayRef<f64>,), f64>(&store, "normalize")?;
    let samples = store.array_filled(1_000_000, 0.0f64)?;
    for (i, x) in samples.as_mut_slice(&mut store)?.iter_mut().enumerate() {
        *x = (i % 1000) as f64;
    }
    let top = normalize.call(&mut store, (&samples,))?;
    let view = samples.as_slice(&store)?;
    println!(
        "normalized {} samples by {top}: last {}",
        view.len(),
        view[view.len() - 1]
    );

    // A limiter caps the store's heap growth at 4 MiB.
    store.set_limiter(|_now: usize, desired: usize, _max: Option<usize>| desired <= 4 << 20);
    let hog = instance.typed_func::<(i64,), i64>(&store, "hog")?;
    let err = hog.call(&mut store, (10_000_000,)).unwrap_err();
    assert_eq!(err.trap_code(), Some(TrapCode::OutOfMemory));
    println!("limiter: {err}");
    store.clear_limiter();

    // Fuel that pauses instead of failing: the call resumes when refueled.
    store.set_fuel(Some(10_000))?;
    let mut state = runaway.call_resumable(store, ());
    for round in 1..=3 {
        let CallState::Paused(call) = state else {
            break;
        };
        println!("paused for fuel (round {round})");
        state = call.resume(10_000);
    }
    if let CallState::Paused(call) = state {
        let (_store, err) = call.cancel();
        println!("cancelled: {err}");
    }
    Ok(())
}
