//! Tail self calls as loops (T2/T3, `waddle_jit`'s
//! `cranelift::translate::tail`): `return x ⊕ f(..)` and `return f(..)`
//! run as iterations of the caller's frame. Every result and every runtime
//! error must be the interpreter's: the same value, code, location and
//! stack trace (every frame, including one per iteration at the tail
//! call), `stack overflow` at the same depth, and `out of fuel` at the same
//! point, on every tier and optimization level. The traps come from the
//! trapping iteration's own code, from real calls made in a later
//! iteration (frames the unwinder walks), from the depth check of the
//! iteration itself and from fuel.

use waddle::{Config, Engine, Error, Module, OutputSink, RuntimeError, Store, Tier, TrapCode};

/// Line and column numbers are compared against the interpreter's only.
const PROGRAM: &str = "\
var budget = 0;
fn leaves(n: int) -> int {
    if n <= 0 {
        budget -= 1;
        return 100 / budget;
    }
    return leaves(n / 2 - 1) + leaves(n - 1);
}
fn mix(n: int) -> int {
    if n <= 0 { return 0; }
    if n % 4 == 0 { return mix(n - 1) - 1; }
    return 2 + mix(n - 1);
}
fn quiet(n: int, d: int) -> int {
    if n < 2 { return 1000 / (n + d); }
    return quiet(n - 1, d) + quiet(n - 2, d);
}
fn prod(n: int) -> int {
    if n <= 1 { return 1; }
    return prod(n - 1) * n;
}
fn lo(n: int) -> int {
    if n <= 0 { return 1000; }
    return min(n * 7 % 13, lo(n - 1));
}
fn hi(n: int) -> int {
    if n <= 0 { return -1000; }
    return max(hi(n - 2) + n % 5, hi(n - 1));
}
fn bits(n: int) -> int {
    if n <= 0 { return 0; }
    return (n * 2654435761) ^ (bits(n - 1) | 0) ^ (bits(n - 3) & 255);
}
fn count(n: int, acc: int) -> int {
    if n <= 0 { return acc; }
    return count(n - 1, acc + n % 7);
}
fn halve(x: float, n: int) -> float {
    if n <= 0 { return x; }
    return halve(x / 2.0 + 1.0, n - 1);
}
fn walk(a: [int], i: int) -> int {
    if i >= len(a) { return 0; }
    return a[i] + walk(a, i + 1);
}
fn walk_from(n: int, bad: int) -> int {
    var a = [0; n];
    for i in 0..n { a[i] = i * i; }
    return walk(a, bad);
}
fn deep(k: int) -> int {
    if k <= 0 { return 0; }
    return 1 + deep(k - 1);
}
fn after(n: int, k: int) -> int {
    if n <= 0 { return 0; }
    return after(n - 1, k) + deep(k + 2 * n) + after(n - 2, k);
}
fn fibd(n: int) -> int {
    if n < 2 { return n; }
    return fibd(n - 1) + fibd(n - 2);
}
fn wide(a: int, b: int, c: int, d: int, e: int, n: int) -> int {
    if n < 2 { return 100 / (n + a) + b - c + d - e; }
    return wide(a, b, c, d, e, n - 1) + wide(a, b, c, d, e, n - 2);
}
";

/// Frames of recursive functions the default stack budget allows.
const DEPTH: i64 = 65_536;

/// What a call ended with: its result, or the error's code, location and
/// every frame of its trace.
#[derive(Debug, PartialEq)]
enum Outcome {
    Value(i64),
    Float(u64),
    Trap(TrapCode, (u32, u32), Vec<(String, u32, u32)>),
}

fn trap(e: &RuntimeError) -> Outcome {
    let loc = e.location.as_ref().expect("a location");
    let frames = e
        .trace
        .iter()
        .map(|f| {
            let l = f.location.as_ref().expect("every frame has a location");
            (f.function.clone(), l.line, l.column)
        })
        .collect();
    Outcome::Trap(e.code, (loc.line, loc.column), frames)
}

fn outcome(r: Result<i64, Error>) -> Outcome {
    match r {
        Ok(v) => Outcome::Value(v),
        Err(Error::Runtime(e)) => trap(&e),
        Err(other) => panic!("expected a value or a runtime error, got {other:?}"),
    }
}

/// Runs every call of the test on one configuration.
fn run_all(config: &Config) -> Vec<Outcome> {
    let engine = Engine::new(config).unwrap();
    let module = Module::new(&engine, "tail.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    let f1 = |name: &str| inst.typed_func::<(i64,), i64>(&store, name).unwrap();
    let f2 = |name: &str| inst.typed_func::<(i64, i64), i64>(&store, name).unwrap();
    let (leaves, mix, prod, lo, hi, bits) = (
        f1("leaves"),
        f1("mix"),
        f1("prod"),
        f1("lo"),
        f1("hi"),
        f1("bits"),
    );
    let (quiet, count, walk_from) = (f2("quiet"), f2("count"), f2("walk_from"));
    let (after, fibd) = (f2("after"), f1("fibd"));
    // Stack arguments: traps return through every frame (no unwinding).
    let wide = inst
        .typed_func::<(i64, i64, i64, i64, i64, i64), i64>(&store, "wide")
        .unwrap();
    let halve = inst.typed_func::<(f64, i64), f64>(&store, "halve").unwrap();
    let mut out = Vec::new();
    // The b-th leaf divides by zero: the trapping frame is in some
    // iteration, and so is every frame the unwinder walks above it.
    for b in [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 1000] {
        inst.set_global(&mut store, "budget", b).unwrap();
        out.push(outcome(leaves.call(&mut store, (24,))));
    }
    out.push(outcome(mix.call(&mut store, (1000,))));
    // Overflow: iterations and real calls interleaved on the way down.
    out.push(outcome(mix.call(&mut store, (1 << 40,))));
    out.push(outcome(quiet.call(&mut store, (18, 1))));
    out.push(outcome(quiet.call(&mut store, (18, 0))));
    out.push(outcome(quiet.call(&mut store, (18, -1))));
    out.push(outcome(prod.call(&mut store, (25,))));
    out.push(outcome(prod.call(&mut store, (DEPTH,))));
    out.push(outcome(prod.call(&mut store, (DEPTH + 1,))));
    out.push(outcome(lo.call(&mut store, (500,))));
    out.push(outcome(hi.call(&mut store, (24,))));
    out.push(outcome(bits.call(&mut store, (40,))));
    // Exactly as deep as the depth allows, and one frame deeper.
    out.push(outcome(count.call(&mut store, (DEPTH - 1, 3))));
    out.push(outcome(count.call(&mut store, (DEPTH, 3))));
    out.push(match halve.call(&mut store, (1e6, 100)) {
        Ok(x) => Outcome::Float(x.to_bits()),
        Err(e) => outcome(Err(e)),
    });
    out.push(outcome(walk_from.call(&mut store, (100, 0))));
    out.push(outcome(walk_from.call(&mut store, (100, -1))));
    // A call after an inlined copy of a self call (the first call of
    // `after`) that made calls of its own: exactly as deep as the depth
    // allows, and one frame deeper (the copy's frame is given back).
    out.push(outcome(after.call(&mut store, (2, DEPTH - 6))));
    out.push(outcome(after.call(&mut store, (2, DEPTH - 5))));
    // Overflow on the way down through inlined copies and real calls.
    out.push(outcome(fibd.call(&mut store, (25,))));
    out.push(outcome(fibd.call(&mut store, (DEPTH + 1,))));
    out.push(outcome(fibd.call(&mut store, (DEPTH + 2,))));
    out.push(outcome(wide.call(&mut store, (5, 1, 2, 3, 4, 20))));
    out.push(outcome(wide.call(&mut store, (0, 1, 2, 3, 4, 20))));
    out.push(outcome(wide.call(&mut store, (5, 1, 2, 3, 4, DEPTH + 1))));
    // Running out of fuel in the middle of a loop (where the store counts
    // fuel at all).
    if store.set_fuel(Some(5_000)).is_ok() {
        out.push(outcome(count.call(&mut store, (1 << 40, 0))));
        store.set_fuel(Some(700)).unwrap();
        inst.set_global(&mut store, "budget", 1i64 << 40).unwrap();
        out.push(outcome(leaves.call(&mut store, (40,))));
        store.set_fuel(None).unwrap();
    }
    out
}

/// Native stack for deep recursion on every tier (see `trace.rs`).
const BIG_STACK: usize = 256 << 20;

#[test]
fn tail_loops_raise_the_interpreters_errors_with_its_traces() {
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(compare_tiers)
        .unwrap()
        .join()
        .unwrap();
}

/// The frames of `o` at line `line`.
fn frames_at(o: &Outcome, line: u32) -> usize {
    match o {
        Outcome::Trap(_, _, f) => f.iter().filter(|f| f.1 == line).count(),
        _ => 0,
    }
}

fn compare_tiers() {
    let want = run_all(
        &Config::new()
            .tier(Tier::Interp)
            .opt_level(0)
            .interruptible(true),
    );
    // The interpreter's own results are what the program means; they
    // exercise what the test is about: traps with iterations' frames
    // (line 7, the tail call) below and above real calls (line 7 too, the
    // first call), an overflow that mixes both (lines 11 and 12), exact
    // depth limits.
    assert!(
        want[..10]
            .iter()
            .all(|o| matches!(o, Outcome::Trap(TrapCode::DivisionByZero, (5, 20), _))),
        "{want:?}"
    );
    assert_eq!(want[10], Outcome::Value(0));
    assert!(frames_at(&want[8], 7) >= 9, "{:?}", want[8]);
    let overflow = &want[12];
    assert!(
        matches!(overflow, Outcome::Trap(TrapCode::StackOverflow, _, f) if f.len() == DEPTH as usize),
        "{overflow:?}"
    );
    assert!(
        frames_at(overflow, 11) > 1000 && frames_at(overflow, 12) > 1000,
        "{:?}",
        (
            frames_at(overflow, 10),
            frames_at(overflow, 11),
            frames_at(overflow, 12),
            frames_at(overflow, 13)
        )
    );
    assert!(
        matches!(&want[14], Outcome::Trap(TrapCode::DivisionByZero, (15, _), f) if frames_at(&want[14], 16) > 2 && !f.is_empty()),
        "{:?}",
        want[14]
    );
    assert!(matches!(
        want[18],
        Outcome::Trap(TrapCode::StackOverflow, _, _)
    ));
    assert!(matches!(want[22], Outcome::Value(_)));
    assert!(matches!(
        want[23],
        Outcome::Trap(TrapCode::StackOverflow, _, _)
    ));
    assert!(matches!(
        want[26],
        Outcome::Trap(TrapCode::IndexOutOfBounds, _, _)
    ));
    assert_eq!(want[27], Outcome::Value(2 * DEPTH - 6), "{:?}", want[27]);
    assert!(
        matches!(&want[28], Outcome::Trap(TrapCode::StackOverflow, _, f) if f.len() == DEPTH as usize),
        "{:?}",
        want[28]
    );
    assert_eq!(want[29], Outcome::Value(75_025));
    for o in &want[30..32] {
        assert!(
            matches!(o, Outcome::Trap(TrapCode::StackOverflow, (_, _), f) if f.len() == DEPTH as usize),
            "{o:?}"
        );
    }
    assert!(matches!(want[32], Outcome::Value(_)));
    assert!(
        matches!(&want[33], Outcome::Trap(TrapCode::DivisionByZero, _, f) if f.len() > 10),
        "{:?}",
        want[33]
    );
    assert!(matches!(
        want[34],
        Outcome::Trap(TrapCode::StackOverflow, _, _)
    ));
    assert!(
        matches!(want[35], Outcome::Trap(TrapCode::OutOfFuel, _, _)),
        "{:?}",
        want[35]
    );
    assert!(
        matches!(want[36], Outcome::Trap(TrapCode::OutOfFuel, _, _)),
        "{:?}",
        want[36]
    );
    for tier in Tier::available() {
        for level in [0, 2] {
            for fuel in [false, true] {
                let config = Config::new()
                    .tier(tier)
                    .opt_level(level)
                    .interruptible(fuel);
                let got = run_all(&config);
                // Fuel is counted where the engine is interruptible (and
                // always by the interpreter).
                let n = got.len();
                assert!(
                    n == want.len() || (!fuel && n == 35),
                    "{tier} fuel {fuel}: {n}"
                );
                let want = &want[..n];
                for (i, (g, w)) in got.iter().zip(want).enumerate() {
                    assert!(
                        g == w,
                        "{tier} -O{level} fuel {fuel}, call {i}:\n got {g:?}\nwant {w:?}"
                    );
                }
            }
        }
    }
}
