//! The cost of one call from Rust into Waddle, for profiling the call
//! path under a deterministic instruction counter: N calls of
//! `add(int, int) -> int` through a [`waddle::TypedFunc`] (or, with
//! `dyn`, through the dynamic [`waddle::Instance::call`]) on one tier,
//! then the average wall time per call.
//!
//! `cargo run --release -p waddle --example call_cost [TIER] [N] [typed|dyn]`
//! (defaults `opt 1000000 typed`). Instructions per call: run it under
//! `valgrind --tool=callgrind` with two values of N and divide the
//! difference of the totals by the difference of the Ns (the set-up
//! cancels out).

use std::hint::black_box;
use std::time::Instant;

use waddle::{Config, Engine, Module, OutputSink, Store, Tier, Val};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tier: Tier = match args.get(1).map_or("opt", String::as_str).parse() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dynamic = args.get(3).is_some_and(|s| s == "dyn");
    let engine = Engine::new(&Config::new().tier(tier)).expect("engine");
    let module = Module::new(
        &engine,
        "call_cost.wdl",
        "fn add(a: int, b: int) -> int { return a + b; }",
    )
    .expect("module");
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let instance = store.instantiate(&module).expect("instance");
    let mut acc = 0i64;
    let start = Instant::now();
    if dynamic {
        for _ in 0..n {
            let args = [Val::Int(black_box(acc)), Val::Int(1)];
            acc = match instance.call(&mut store, "add", &args).expect("call") {
                Val::Int(i) => i,
                v => panic!("add returned {v:?}"),
            };
        }
    } else {
        let add = instance
            .typed_func::<(i64, i64), i64>(&store, "add")
            .expect("typed");
        for _ in 0..n {
            acc = add.call(&mut store, (black_box(acc), 1)).expect("call");
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / n.max(1) as f64;
    println!(
        "{tier} {}: {ns:.2} ns/call (sum {acc})",
        if dynamic { "dyn" } else { "typed" }
    );
}
