//! Guarded self calls (T2/T3, `waddle_jit`'s `cranelift::translate::guard`):
//! a self call runs the callee's quiet entry region inline and calls only
//! when the region is left. Every runtime error the region or the guard
//! raises must be the interpreter's: the same code, location and stack
//! trace (every frame), and `stack overflow` at the same depth, on every
//! tier and optimization level, for deep recursion of fib and tak shapes,
//! traps inside the region (division, bounds check, assertion) and mutual
//! recursion next to them.

use waddle::{Config, Engine, Error, Module, OutputSink, RuntimeError, Store, Tier, TrapCode};

/// Line and column numbers below are part of the expectations.
const PROGRAM: &str = "\
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
fn tak(x: int, y: int, z: int) -> int {
    if y >= x { return z; }
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}
fn divs(n: int, d: int) -> int {
    if n == 0 { return 100 / d; }
    return divs(n - 1, d) + divs(n - 1, d - 1);
}
fn reads(a: [int], n: int) -> int {
    if n < 2 { return a[n + 4]; }
    return reads(a, n - 1) + reads(a, n - 2);
}
fn checks(n: int, bad: int) -> int {
    if n < 3 {
        assert(n != bad);
        return n;
    }
    return checks(n - 1, bad) * 2 + checks(n - 3, bad);
}
fn even(n: int) -> bool { if n == 0 { return true; } return odd(n - 1); }
fn odd(n: int) -> bool { if n == 0 { return false; } return even(n - 1); }
fn right(n: int) -> int {
    if n <= 0 { return 0; }
    return 1 + right(n - 1);
}
fn reads_of(n: int) -> int { return reads([1, 2, 3, 4, 5], n); }
";

/// Frames of recursive functions the default stack budget allows.
const DEPTH: i64 = 65_536;

/// What a call ended with: its result, or the error's code, location and
/// every frame of its trace.
#[derive(Debug, PartialEq)]
enum Outcome {
    Value(i64),
    Trap(TrapCode, (u32, u32), Vec<(String, u32, u32)>),
}

fn outcome(r: Result<i64, Error>) -> Outcome {
    match r {
        Ok(v) => Outcome::Value(v),
        Err(Error::Runtime(e)) => trap(&e),
        Err(other) => panic!("expected a value or a runtime error, got {other:?}"),
    }
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

/// Runs every call of the test on one configuration.
fn run_all(config: &Config) -> Vec<Outcome> {
    let engine = Engine::new(config).unwrap();
    let module = Module::new(&engine, "guarded.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    let f1 = |name: &str| inst.typed_func::<(i64,), i64>(&store, name).unwrap();
    let (fib, right, reads) = (f1("fib"), f1("right"), f1("reads_of"));
    let tak = inst
        .typed_func::<(i64, i64, i64), i64>(&store, "tak")
        .unwrap();
    let divs = inst.typed_func::<(i64, i64), i64>(&store, "divs").unwrap();
    let checks = inst
        .typed_func::<(i64, i64), i64>(&store, "checks")
        .unwrap();
    let even = inst.typed_func::<(i64,), bool>(&store, "even").unwrap();
    let mut out = vec![
        outcome(fib.call(&mut store, (20,))),
        // One frame deeper than the depth allows, through the guarded
        // `fib(n - 1)` and through the non-tail calls of `tak`.
        outcome(fib.call(&mut store, (1 << 40,))),
        outcome(tak.call(&mut store, (18, 12, 6))),
        outcome(tak.call(&mut store, (1 << 40, 0, 1))),
        outcome(divs.call(&mut store, (6, 9))),
        // The first leaf to divide by zero is deep in the call tree.
        outcome(divs.call(&mut store, (6, 3))),
        outcome(checks.call(&mut store, (12, 7))),
        outcome(checks.call(&mut store, (12, 1))),
        outcome(right.call(&mut store, (1000,))),
        outcome(right.call(&mut store, (1 << 40,))),
        // Exactly as deep as the depth allows, and one frame deeper, where
        // the call that overflows is a guarded call whose callee returns
        // at once (its region).
        outcome(right.call(&mut store, (DEPTH - 1,))),
        outcome(right.call(&mut store, (DEPTH,))),
        outcome(reads.call(&mut store, (0,))),
        outcome(reads.call(&mut store, (9,))),
    ];
    out.push(match even.call(&mut store, (1 << 40,)) {
        Ok(b) => Outcome::Value(i64::from(b)),
        Err(Error::Runtime(e)) => trap(&e),
        Err(other) => panic!("{other:?}"),
    });
    out
}

/// Native stack for deep recursion on every tier (see `trace.rs`).
const BIG_STACK: usize = 256 << 20;

#[test]
fn guarded_self_calls_raise_the_interpreters_errors_with_its_traces() {
    std::thread::Builder::new()
        .stack_size(BIG_STACK)
        .spawn(compare_tiers)
        .unwrap()
        .join()
        .unwrap();
}

fn compare_tiers() {
    let want = run_all(&Config::new().tier(Tier::Interp).opt_level(0));
    // The interpreter's own results are what the program means.
    assert_eq!(want[0], Outcome::Value(6765));
    assert!(
        matches!(&want[1], Outcome::Trap(TrapCode::StackOverflow, (3, 12), f) if f.len() == 65_536),
        "{:?}",
        &want[1]
    );
    assert!(
        matches!(&want[5], Outcome::Trap(TrapCode::DivisionByZero, (10, 28), f) if f.len() == 7),
        "{:?}",
        &want[5]
    );
    assert!(matches!(
        &want[7],
        Outcome::Trap(TrapCode::AssertionFailed, (19, 9), _)
    ));
    assert_eq!(want[10], Outcome::Value(DEPTH - 1));
    assert!(
        matches!(&want[11], Outcome::Trap(TrapCode::StackOverflow, (28, 16), f) if f.len() == 65_536),
        "{:?}",
        &want[11]
    );
    assert!(matches!(
        &want[13],
        Outcome::Trap(TrapCode::IndexOutOfBounds, (14, 24), _)
    ));
    // Without fuel checks (`waddle run`'s code), where self calls are
    // guarded, and with them, where they are not.
    for tier in Tier::available() {
        for level in [0, 2] {
            for fuel in [false, true] {
                let config = Config::new()
                    .tier(tier)
                    .opt_level(level)
                    .interruptible(fuel);
                let got = run_all(&config);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        g == w,
                        "{tier} -O{level} fuel {fuel}, call {i}:\n got {g:?}\nwant {w:?}"
                    );
                }
            }
        }
    }
}
