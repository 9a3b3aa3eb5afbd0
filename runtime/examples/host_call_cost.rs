//! Rough cost of a host-function call on every tier of this build: a
//! Waddle loop of N calls of a registered closure `inc(int) -> int`,
//! against the same loop calling a Waddle function, minus an empty loop.
//!
//! `cargo run --release -p waddle --example host_call_cost [N]`
//! (N defaults to 1 000 000). Prints one line per tier.

use std::time::Instant;

use waddle::{Config, Engine, Instance, Module, Store, Tier};

const SRC: &str = "
fn w_inc(x: int) -> int { return x + 1; }
fn host_loop(n: int) -> int { var t = 0; for i in 0..n { t = inc(t); } return t; }
fn waddle_loop(n: int) -> int { var t = 0; for i in 0..n { t = w_inc(t); } return t; }
fn empty_loop(n: int) -> int { var t = 0; for i in 0..n { t = t + 1; } return t; }
";

fn time(store: &mut Store, instance: &Instance, f: &str, n: i64) -> f64 {
    let f = instance.typed_func::<(i64,), i64>(store, f).unwrap();
    // Warm up (compiles on `auto`), then take the best of three.
    let _ = f.call(store, (1000,)).unwrap();
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let r = f.call(store, (n,)).unwrap();
            assert_eq!(r, n);
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let n: i64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    println!(
        "{:<10} {:>12} {:>14} {:>12}",
        "tier", "host ns/call", "waddle ns/call", "loop ns/iter"
    );
    for &(name, tier) in Tier::ALL.iter() {
        if !tier.is_available() {
            continue;
        }
        let engine = Engine::new(&Config::new().tier(tier)).unwrap();
        engine.register_fn("inc", |x: i64| x + 1).unwrap();
        let module = Module::new(&engine, "cost.wdl", SRC).unwrap();
        let mut store = Store::new(&engine);
        let instance = store.instantiate(&module).unwrap();
        let empty = time(&mut store, &instance, "empty_loop", n);
        let host = time(&mut store, &instance, "host_loop", n);
        let waddle = time(&mut store, &instance, "waddle_loop", n);
        let per = |t: f64| (t - empty).max(0.0) / n as f64 * 1e9;
        println!(
            "{name:<10} {:>12.1} {:>14.1} {:>12.2}",
            per(host),
            per(waddle),
            empty / n as f64 * 1e9
        );
    }
}
