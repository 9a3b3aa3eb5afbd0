//! Embedding API benchmarks.
//!
//! - `call/add/typed/<tier>`: the cost of one call of `add(int, int) ->
//!   int` from Rust through a [`TypedFunc`] on each tier, against the
//!   dynamic `Instance::call` (`call/add/dynamic/<tier>`: by name, with
//!   [`Val`] arguments), the name-based `Session::call_typed` and a plain
//!   Rust function called through a pointer (`call/add/rust_fn_ptr`). At
//!   the end of the group a table on stderr gives each one's fastest
//!   sample per call and its ratio to the Rust call, all from the same
//!   run: on a loaded machine compare ratios, not nanoseconds;
//! - `array/1M/{copy,handle}/<tier>`: a round trip of a 1M-element
//!   `[int]` through `fn same(a: [int]) -> [int] { return a; }`, as
//!   `Vec<i64>` in and out (copied both ways) against an [`ArrayRef`]
//!   (nothing copied);
//! - `threads/fib18/<n>`: throughput of `fib(18)` calls with one `Store`
//!   per thread over one shared `Module`, on 1, 2 and 4 threads (the
//!   reported element rate is calls per second over all threads).
//!
//! `cargo bench -p waddle --bench api`; the thread table is also printed
//! to stderr at the end in plain numbers (`WADDLE_BENCH_TABLE=0` skips it,
//! e.g. when a filter selects other benchmarks).

use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use waddle::{ArrayRef, Config, Engine, Module, OutputSink, Session, Store, Tier, TypedFunc, Val};

const SOURCE: &str = "
fn add(a: int, b: int) -> int { return a + b; }
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn same(a: [int]) -> [int] { return a; }
";

fn tiers() -> Vec<Tier> {
    Tier::available()
        .into_iter()
        .filter(|&t| t != Tier::Auto)
        .collect()
}

fn typed_add(tier: Tier) -> (Store, TypedFunc<(i64, i64), i64>) {
    let engine = Engine::new(&Config::new().tier(tier)).unwrap();
    let module = Module::new(&engine, "bench.wdl", SOURCE).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    let add = inst.typed_func(&store, "add").unwrap();
    (store, add)
}

/// The reference for `call/add`: the same addition as a Rust function
/// called through a pointer the optimizer cannot see through.
#[inline(never)]
fn add_rust(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// A criterion routine for `iter_custom` that runs `call` `iters` times
/// and also keeps, in `best`, the fastest time per call of any sample:
/// what the ratio table at the end of `call/add` compares.
fn timed<'a>(best: &'a Cell<f64>, mut call: impl FnMut() + 'a) -> impl FnMut(u64) -> Duration + 'a {
    move |iters| {
        let start = Instant::now();
        for _ in 0..iters {
            call();
        }
        let d = start.elapsed();
        best.set(best.get().min(d.as_secs_f64() * 1e9 / iters.max(1) as f64));
        d
    }
}

fn calls(c: &mut Criterion) {
    let mut g = c.benchmark_group("call/add");
    let mut table: Vec<(String, Cell<f64>)> = Vec::new();
    let mut bench = |g: &mut criterion::BenchmarkGroup<_>, name: String, call: &mut dyn FnMut()| {
        let best = Cell::new(f64::INFINITY);
        g.bench_function(&name, |b| b.iter_custom(timed(&best, &mut *call)));
        table.push((name, best));
    };
    let f: fn(i64, i64) -> i64 = black_box(add_rust);
    let mut acc = 0i64;
    bench(&mut g, "rust_fn_ptr".to_string(), &mut || {
        acc = black_box(f)(black_box(acc), 1);
    });
    for tier in tiers() {
        let (mut store, add) = typed_add(tier);
        let mut acc = 0i64;
        bench(&mut g, format!("typed/{tier}"), &mut || {
            acc = add.call(&mut store, (black_box(acc), 1)).unwrap();
        });
    }
    for tier in [Tier::Interp, Tier::Opt] {
        let engine = Engine::new(&Config::new().tier(tier)).unwrap();
        let module = Module::new(&engine, "bench.wdl", SOURCE).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let mut acc = 0i64;
        bench(&mut g, format!("dynamic/{tier}"), &mut || {
            let args = [Val::Int(black_box(acc)), Val::Int(1)];
            acc = match inst.call(&mut store, "add", &args).unwrap() {
                Val::Int(i) => i,
                v => panic!("add returned {v:?}"),
            };
        });
    }
    let mut session = Session::with_output(&Engine::default(), OutputSink::Capture);
    session.eval(SOURCE).unwrap();
    bench(&mut g, "session_call_typed/auto".to_string(), &mut || {
        let r: i64 = session.call_typed("add", (black_box(1i64), 2i64)).unwrap();
        black_box(r);
    });
    g.finish();
    // The ratios, from this run's own samples: on a loaded machine the
    // nanoseconds move, the ratio to a plain Rust call much less.
    let rust = table[0].1.get();
    eprintln!("call/add: fastest sample per call, and its ratio to a Rust call through a fn pointer (same run)");
    for (name, best) in &table {
        eprintln!(
            "{name:<26} {:>9.2} ns  {:>7.1}x",
            best.get(),
            best.get() / rust
        );
    }
}

fn arrays(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let mut g = c.benchmark_group("array/1M");
    g.sample_size(20);
    for tier in [Tier::Interp, Tier::Opt] {
        let engine = Engine::new(&Config::new().tier(tier)).unwrap();
        let module = Module::new(&engine, "bench.wdl", SOURCE).unwrap();
        let mut store = Store::with_output(&engine, OutputSink::Capture);
        let inst = store.instantiate(&module).unwrap();
        let data: Vec<i64> = (0..N as i64).collect();
        let copy: TypedFunc<(Vec<i64>,), Vec<i64>> = inst.typed_func(&store, "same").unwrap();
        g.bench_function(format!("copy/{tier}"), |b| {
            // The Rust-side clone is setup, not measured.
            b.iter_batched(
                || data.clone(),
                |v| copy.call(&mut store, (v,)).unwrap(),
                BatchSize::LargeInput,
            )
        });
        let handle: TypedFunc<(&ArrayRef<i64>,), ArrayRef<i64>> =
            inst.typed_func(&store, "same").unwrap();
        let arr = store.array_from_slice(&data).unwrap();
        g.bench_function(format!("handle/{tier}"), |b| {
            b.iter(|| handle.call(&mut store, (black_box(&arr),)).unwrap())
        });
    }
    g.finish();
}

/// Runs `per_thread` calls of `fib(18)` on each of `threads` threads, one
/// store per thread over `module`; returns the wall time.
fn run_threads(engine: &Engine, module: &Module, threads: usize, per_thread: u64) -> Duration {
    let work: Vec<_> = (0..threads)
        .map(|_| {
            let mut store = Store::with_output(engine, OutputSink::Capture);
            let inst = store.instantiate(module).unwrap();
            let fib: TypedFunc<(i64,), i64> = inst.typed_func(&store, "fib").unwrap();
            (store, fib)
        })
        .collect();
    let start = Instant::now();
    let handles: Vec<_> = work
        .into_iter()
        .map(|(mut store, fib)| {
            std::thread::spawn(move || {
                for _ in 0..per_thread {
                    assert_eq!(fib.call(&mut store, (black_box(18),)).unwrap(), 2584);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    start.elapsed()
}

fn threads(c: &mut Criterion) {
    let engine = Engine::new(&Config::new().tier(Tier::Auto)).unwrap();
    let module = Module::new(&engine, "bench.wdl", SOURCE).unwrap();
    let mut g = c.benchmark_group("threads/fib18");
    g.sample_size(10);
    for n in [1usize, 2, 4] {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("{n}"), |b| {
            b.iter_custom(|iters| run_threads(&engine, &module, n, iters))
        });
    }
    g.finish();
    if std::env::var_os("WADDLE_BENCH_TABLE").is_some_and(|v| v == "0") {
        return;
    }
    // The table: the best of 3 runs per thread count, so a burst of other
    // load on a shared machine does not decide a row.
    let per_thread = 2000;
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!(
        "thread scaling: fib(18) calls, one Store per thread over one Module ({cores} cores)"
    );
    eprintln!("tier   threads  calls/s        ratio to 1 thread");
    for tier in [Tier::Opt, Tier::Auto] {
        let engine = Engine::new(&Config::new().tier(tier)).unwrap();
        let module = Module::new(&engine, "bench.wdl", SOURCE).unwrap();
        let rate = |n: usize| {
            (0..3)
                .map(|_| {
                    let d = run_threads(&engine, &module, n, per_thread);
                    (n as u64 * per_thread) as f64 / d.as_secs_f64()
                })
                .fold(0.0, f64::max)
        };
        let base = rate(1);
        for n in [1usize, 2, 4] {
            let r = if n == 1 { base } else { rate(n) };
            eprintln!("{tier:<6} {n:>7}  {r:>13.0}  {:>8.2}x", r / base);
        }
    }
}

criterion_group!(benches, calls, arrays, threads);
criterion_main!(benches);
