//! Host functions that resize an array they were given (`ArrayRef`
//! parameters with `Caller::array_push`/`array_pop`), on every tier and
//! optimization level: the optimizer must treat a host call like a call of
//! a Waddle function that may push or pop. Regression tests for LICM
//! hoisting `len(a)` out of a loop with a host call, and for bounds-check
//! elimination trusting a `len(a)` computed before a host call that pops.

use waddle::{ArrayRef, Caller, Config, Error, OutputSink, Session, Tier};

fn session(tier: Tier, opt_level: u8) -> Session {
    let mut e = Session::with_config(
        &Config::new().tier(tier).opt_level(opt_level),
        OutputSink::Capture,
    )
    .unwrap();
    e.register_fn_with_caller("grow", |c: &mut Caller<'_>, a: ArrayRef<i64>, x: i64| {
        c.array_push(&a, x)
    })
    .unwrap();
    e.register_fn_with_caller("drop_last", |c: &mut Caller<'_>, a: ArrayRef<i64>| {
        Ok::<i64, Error>(c.array_pop(&a)?.unwrap_or(-1))
    })
    .unwrap();
    e.register_fn_with_caller("host_len", |c: &mut Caller<'_>, a: ArrayRef<i64>| {
        c.array_len(&a).map(|n| n as i64)
    })
    .unwrap();
    e.register_fn_with_caller(
        "grow_lent",
        |c: &mut Caller<'_>, a: ArrayRef<i64>, view: &[i64]| c.array_push(&a, view.len() as i64),
    )
    .unwrap();
    e
}

/// Runs `src` on every tier at -O0, -O1 and -O2; returns (output, error
/// text) and asserts they are the same everywhere.
fn run_everywhere(src: &str) -> (String, Option<String>) {
    let mut first: Option<(String, Option<String>, String)> = None;
    for tier in Tier::available() {
        for level in 0..=2 {
            let mut e = session(tier, level);
            let err = e.run("resize.wdl", src).err().map(|e| e.to_string());
            let out = String::from_utf8(e.take_output()).unwrap();
            let name = format!("{tier:?} -O{level}");
            match &first {
                None => first = Some((out, err, name)),
                Some((o, r, n)) => {
                    assert_eq!((&out, &err), (o, r), "{name} disagrees with {n}");
                }
            }
        }
    }
    let (o, r, _) = first.expect("at least one tier");
    (o, r)
}

#[test]
fn a_loop_condition_on_len_sees_a_host_push() {
    // Hoisting `len(a)` out of the loop (the call is a host call) ran it
    // 100 times.
    let src = "\
fn fill(a: [int]) -> int {
    var n = 0;
    while len(a) < 5 && n < 100 { grow(a, n); n += 1; }
    return n;
}
var a = [7];
print(fill(a));
print(a);
print(host_len(a));
";
    let (out, err) = run_everywhere(src);
    assert_eq!(err, None);
    assert_eq!(out, "4\n[7, 0, 1, 2, 3]\n5\n");
}

#[test]
fn a_loop_condition_on_len_sees_a_host_pop() {
    // With `len(a)` hoisted, the third iteration read past the new end.
    let src = "\
fn total(a: [int]) -> int {
    var t = 0;
    var i = 0;
    while i < len(a) {
        t += a[i];
        if a[i] == 2 { let gone = drop_last(a); }
        i += 1;
    }
    return t;
}
print(total([1, 2, 3]));
";
    let (out, err) = run_everywhere(src);
    assert_eq!(err, None);
    assert_eq!(out, "3\n");
}

#[test]
fn a_bound_computed_before_a_host_pop_keeps_its_checks() {
    // Bounds-check elimination trusted `n = len(a)` across the host call
    // and removed the check: the loop read the popped element.
    let src = "\
fn sum(a: [int]) -> int {
    let n = len(a);
    let last = drop_last(a);
    var t = 0;
    for i in 0..n { t += a[i]; }
    return t + last;
}
print(sum([1, 2, 3]));
";
    let (out, err) = run_everywhere(src);
    assert_eq!(out, "");
    let err = err.expect("index out of bounds");
    assert!(
        err.contains("index out of bounds") && err.contains("resize.wdl:5:"),
        "{err}"
    );
}

#[test]
fn an_array_lent_as_a_slice_cannot_be_resized_by_the_same_call() {
    let src = "var a = [1, 2];\ngrow_lent(a, a);\n";
    let (out, err) = run_everywhere(src);
    assert_eq!(out, "");
    let err = err.expect("host error");
    assert!(
        err.contains("host function `grow_lent` failed") && err.contains("slice"),
        "{err}"
    );
    // Different arrays are fine.
    let (out, err) = run_everywhere("var a = [1, 2];\ngrow_lent(a, [5, 6, 7]);\nprint(a);\n");
    assert_eq!(err, None);
    assert_eq!(out, "[1, 2, 3]\n");
}
