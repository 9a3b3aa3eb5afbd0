//! Test cases for the transformations that change the shape of calls and
//! loops: inlining (call unfolding, [`super::unfold`]). Each correct
//! transformation validates and a wrong variant of it alarms.

use super::*;
use crate::ir::{parse_program, FuncId, Program};
use crate::passes::{Pipeline, PipelineOptions};

fn program(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// `sq` called in the loop of `sum`, `sum` called by `main`.
const CALLS: &str = "fn fn0 \"sq\"(int) -> int {
block0(v0: int):
    v1: int = imul v0, v0
    return v1
}
fn fn1 \"sum\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 0
    jump block1(v2, v1)
block1(v3: int, v5: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block4
block2:
    v6: int = call fn0 \"sq\"(v3)
    v7: int = iadd v5, v6
    v8: int = iconst 1
    v9: int = iadd v3, v8
    jump block1(v9, v7)
block4:
    return v5
}
fn fn2 \".main\"() -> void {
block0:
    v0: int = iconst 4
    v1: int = call fn1 \"sum\"(v0)
    print v1
    return
}
";

/// `sum` with `sq` inlined into its loop; `bad` squares wrongly.
fn inlined_sum(bad: bool) -> Function {
    let op = if bad { "iadd" } else { "imul" };
    f(&format!(
        "fn fn1 \"sum\"(int) -> int {{
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 0
    jump block1(v2, v1)
block1(v3: int, v5: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block4(v5)
block2:
    v13: int = {op} v3, v3
    v7: int = iadd v5, v13
    v8: int = iconst 1
    v9: int = iadd v3, v8
    jump block1(v9, v7)
block4(v10: int):
    return v10
}}"
    ))
}

fn f(text: &str) -> Function {
    match crate::ir::parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    }
}

#[test]
fn inlining_validates_by_unfolding_calls() {
    let p = program(CALLS);
    let callees = Callees::new(p.clone(), 1000);
    let mut before = p.funcs[FuncId::from_u32(1)].clone();
    crate::canon::canonicalize(&mut before);
    let opts = Options::default();
    // Without the callees the call is an uninterpreted effect.
    assert!(matches!(
        validate(&before, &inlined_sum(false)),
        Verdict::Alarm(_)
    ));
    assert_eq!(
        validate_in(&before, &inlined_sum(false), Some(&callees), &opts),
        Verdict::Equal
    );
    assert!(matches!(
        validate_in(&before, &inlined_sum(true), Some(&callees), &opts),
        Verdict::Alarm(_)
    ));
}

/// The attempts (calls uninterpreted, calls unfolded) that `run` makes.
fn attempts(run: impl FnOnce()) -> [usize; 2] {
    ATTEMPTS.with(|n| n.set([0; 2]));
    run();
    ATTEMPTS.with(|n| n.get())
}

/// A function whose calls were inlined is validated with calls unfolded
/// first: the attempt with calls uninterpreted would alarm, and runs only
/// when unfolding does not validate (then both run, as before).
#[test]
fn inlined_calls_are_unfolded_first() {
    let p = program(CALLS);
    let callees = Callees::new(p.clone(), 1000);
    let mut before = p.funcs[FuncId::from_u32(1)].clone();
    crate::canon::canonicalize(&mut before);
    let opts = Options::default();
    assert!(Callees::calls_inlined(&before, &inlined_sum(false)));
    let mut v = None;
    let n = attempts(|| {
        v = Some(validate_in(
            &before,
            &inlined_sum(false),
            Some(&callees),
            &opts,
        ))
    });
    assert_eq!(v, Some(Verdict::Equal));
    assert_eq!(n, [0, 1], "only the unfolded attempt runs");
    let n = attempts(|| {
        v = Some(validate_in(
            &before,
            &inlined_sum(true),
            Some(&callees),
            &opts,
        ))
    });
    assert!(matches!(v, Some(Verdict::Alarm(_))), "{v:?}");
    assert_eq!(n, [1, 1]);
    // Calls that agree: the plain attempt first, and alone when it validates.
    assert!(!Callees::calls_inlined(&before, &before));
    let n = attempts(|| v = Some(validate_in(&before, &before, Some(&callees), &opts)));
    assert_eq!(v, Some(Verdict::Equal));
    assert_eq!(n, [1, 0]);
}

/// The rounds (all attempts) of `run` ([`WORK`]).
fn rounds(run: impl FnOnce()) -> usize {
    WORK.with(|w| w.set([0; 4]));
    run();
    WORK.with(|w| w.get()[0])
}

/// The plain attempt that follows an unfolded attempt that alarmed runs at
/// most [`Options::fallback_rounds`] rounds: it judges calls that were
/// inlined as uninterpreted, and on the corpus never validated after more
/// than 5 rounds. The verdict is the unfolded attempt's alarm either way.
#[test]
fn the_plain_attempt_after_an_unfolded_alarm_has_a_round_budget() {
    let p = program(CALLS);
    let callees = Callees::new(p.clone(), 1000);
    let mut before = p.funcs[FuncId::from_u32(1)].clone();
    crate::canon::canonicalize(&mut before);
    let bad = inlined_sum(true);
    let with = |fallback_rounds: usize| {
        let opts = Options {
            fallback_rounds,
            ..Options::default()
        };
        let mut v = None;
        let n = rounds(|| v = Some(validate_in(&before, &bad, Some(&callees), &opts)));
        assert!(matches!(v, Some(Verdict::Alarm(_))), "{v:?}");
        n
    };
    let unfolded = rounds(|| {
        check(&before, &bad, Some(&callees), &Options::default());
    });
    let full = with(64);
    assert!(
        full > unfolded + 1,
        "the plain attempt takes {} rounds",
        full - unfolded
    );
    assert_eq!(with(1), unfolded + 1);
    assert!(with(FALLBACK_PLAIN_ROUNDS) <= unfolded + FALLBACK_PLAIN_ROUNDS);
}

/// [`Callees::calls_inlined`]: fewer calls of some function and no more
/// of any; a call copied (as unrolling does) is not inlining.
#[test]
fn calls_inlined_counts_static_calls() {
    let p = program(CALLS);
    let sum = p.funcs[FuncId::from_u32(1)].clone();
    let main = p.funcs[FuncId::from_u32(2)].clone();
    assert!(Callees::calls_inlined(&sum, &inlined_sum(false)));
    assert!(!Callees::calls_inlined(&inlined_sum(false), &sum));
    assert!(!Callees::calls_inlined(&main, &main));
    let twice = f("fn fn2 \".main\"() -> void {
block0:
    v0: int = iconst 4
    v1: int = call fn1 \"sum\"(v0)
    v2: int = call fn1 \"sum\"(v1)
    print v2
    return
}");
    let other = f("fn fn2 \".main\"() -> void {
block0:
    v0: int = iconst 4
    v1: int = call fn0 \"sq\"(v0)
    print v1
    return
}");
    assert!(Callees::calls_inlined(&twice, &main));
    assert!(!Callees::calls_inlined(&main, &twice));
    // One call of `sum` replaced by one of `sq`: not fewer calls overall.
    assert!(!Callees::calls_inlined(&main, &other));
}

/// The two attempts of [`validate_in`] give the same verdict in either
/// order (the order is only a matter of time), on correct and wrong
/// inlining, recursion, and every function of a program optimized by the
/// whole pipeline.
#[test]
fn either_attempt_order_gives_the_same_verdict() {
    let p = program(CALLS);
    let callees = Callees::new(p.clone(), 1000);
    let opts = Options::default();
    let mut before = p.funcs[FuncId::from_u32(1)].clone();
    crate::canon::canonicalize(&mut before);
    let mut pairs = vec![
        (before.clone(), inlined_sum(false)),
        (before.clone(), inlined_sum(true)),
        (inlined_sum(false), before.clone()),
        (before.clone(), before.clone()),
    ];
    let mut optimized = p.clone();
    Pipeline::for_level(2)
        .run(
            &mut optimized,
            &PipelineOptions {
                verify: true,
                time: false,
            },
            &mut (),
        )
        .unwrap();
    for (id, fa) in optimized.funcs.iter() {
        let mut fb = p.funcs[id].clone();
        crate::canon::canonicalize(&mut fb);
        pairs.push((fb, fa.clone()));
    }
    for (b, a) in &pairs {
        let plain = validate_in_order(b, a, Order::PlainFirst(&callees), &opts);
        let unfolded = validate_in_order(b, a, Order::UnfoldedFirst(&callees), &opts);
        assert_eq!(plain, unfolded, "{}", a.name());
    }
}

#[test]
fn the_inline_pass_validates_pass_by_pass_and_as_a_pipeline() {
    let original = program(CALLS);
    let mut p = original.clone();
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "inline", "inline", "sccp", "dce"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let inline = v.stats.iter().find(|s| s.name == "inline").unwrap();
    assert!(inline.changed >= 2, "{:?}", v.stats);
    assert_eq!(inline.equal, inline.changed, "{:#?}", v.findings);
    let mut before = original.clone();
    for f in before.funcs.values_mut() {
        crate::canon::canonicalize(f);
    }
    let whole = validate_program(&before, &p, &Options::default());
    assert_eq!(whole.equal, whole.total, "{:#?}", whole.findings);
}

/// A recursive callee stays an uninterpreted call: unrolling a recursion
/// by hand (a correct transformation) alarms, documented incompleteness.
#[test]
fn recursive_calls_are_not_unfolded() {
    let p = program(
        "fn fn0 \"down\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: bool = icmp le v0, v1
    br v2, block1, block2
block1:
    return v1
block2:
    v3: int = iconst 1
    v4: int = isub v0, v3
    v5: int = call fn0 \"down\"(v4)
    return v5
}",
    );
    let callees = Callees::new(p.clone(), 1000);
    assert!(callees.is_recursive(FuncId::from_u32(0)));
    let mut before = p.funcs[FuncId::from_u32(0)].clone();
    crate::canon::canonicalize(&mut before);
    let after = f("fn fn0 \"down\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: bool = icmp le v0, v1
    br v2, block1, block2
block1:
    return v1
block2:
    v3: int = iconst 1
    v4: int = isub v0, v3
    v6: bool = icmp le v4, v1
    br v6, block3, block4
block3:
    return v1
block4:
    v7: int = isub v4, v3
    v8: int = call fn0 \"down\"(v7)
    return v8
}");
    let v = validate_in(&before, &after, Some(&callees), &Options::default());
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
    assert_eq!(
        validate_in(&before, &before, Some(&callees), &Options::default()),
        Verdict::Equal
    );
}

/// A callee with a loop inlined into a loop of the caller: the callee's
/// exit test becomes part of the caller's path conditions, where it is
/// `η(c, ¬c)`, true at the exit (gate diagrams, `gates`).
#[test]
fn a_loop_inlined_into_a_loop_validates() {
    let original = program(
        "fn fn0 \"steps\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v0, v1)
block1(v2: int, v3: int):
    v4: int = iconst 1
    v5: bool = icmp ne v2, v4
    br v5, block2, block3
block2:
    v6: int = iconst 2
    v7: int = idiv v2, v6
    v8: int = iadd v3, v4
    jump block1(v7, v8)
block3:
    return v3
}
fn fn1 \".main\"() -> void {
block0:
    v0: int = iconst 1
    v1: int = iconst 100
    jump block1(v0)
block1(v2: int):
    v3: bool = icmp lt v2, v1
    br v3, block2, block3
block2:
    v4: int = call fn0 \"steps\"(v2)
    print v4
    v5: int = iadd v2, v0
    jump block1(v5)
block3:
    return
}",
    );
    let mut p = original.clone();
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "inline"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let inline = v.stats.iter().find(|s| s.name == "inline").unwrap();
    assert_eq!((inline.changed, inline.equal), (1, 1), "{:#?}", v.findings);
}

/// `a[0]` checked before a loop unrolled by two (it exits through a φ of
/// two η's) whose body stores into `a` (or, with `pop`, shrinks it), then
/// read again after the loop, checked or not (`recheck`).
fn check_across_unrolled(recheck: bool, pop: bool) -> Function {
    let check = if recheck {
        "bounds_check v0, v2 @3:1"
    } else {
        ""
    };
    let body = if pop {
        "v12: int = array_pop v0 @2:1"
    } else {
        "array_set v0, v2, v5"
    };
    f(&format!(
        "fn fn0 \"f\"([int], int) -> int {{
block0(v0: [int], v1: int):
    v2: int = iconst 0
    bounds_check v0, v2 @1:1
    v3: int = array_get v0, v2
    v4: int = iconst 1
    jump block1(v2)
block1(v5: int):
    v6: bool = icmp lt v5, v1
    br v6, block2, block4
block2:
    {body}
    v7: int = iadd v5, v4
    v8: bool = icmp lt v7, v1
    br v8, block3, block5
block3:
    array_set v0, v2, v7
    v9: int = iadd v7, v4
    jump block1(v9)
block4:
    jump block6
block5:
    jump block6
block6:
    {check}
    v10: int = array_get v0, v2
    v11: int = iadd v3, v10
    return v11
}}"
    ))
}

/// R6 across an unrolled loop (the fannkuch case once blamed on GVN, now
/// BCE's dominated-check removal after unrolling): the walk back to the
/// earlier check follows both exits of the loop. It must not pass over a
/// loop that may shrink the array.
#[test]
fn a_check_before_an_unrolled_loop_passes_after_it() {
    let (before, after) = (
        check_across_unrolled(true, false),
        check_across_unrolled(false, false),
    );
    assert_eq!(validate(&before, &after), Verdict::Equal);
    let (before, after) = (
        check_across_unrolled(true, true),
        check_across_unrolled(false, true),
    );
    assert!(matches!(validate(&before, &after), Verdict::Alarm(_)));
}

/// `s = Σ i*i for i in 0..n`.
const SQUARES: &str = "fn fn0 \"sq\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block3(v4)
block2:
    v6: int = imul v3, v3
    v7: int = iadd v4, v6
    v8: int = iadd v3, v2
    jump block1(v8, v7)
block3(v9: int):
    return v9
}";

/// [`SQUARES`] unrolled by two by hand: `test` is the copy's exit test
/// (`true` drops it: wrong for odd `n`), `op` its accumulation.
fn squares_unrolled(test: &str, op: &str) -> Function {
    f(&format!(
        "fn fn0 \"sq\"(int) -> int {{
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block3(v4)
block2:
    v6: int = imul v3, v3
    v7: int = iadd v4, v6
    v8: int = iadd v3, v2
    jump block4(v8, v7)
block4(v10: int, v11: int):
    v12: bool = {test}
    br v12, block5, block6(v11)
block5:
    v13: int = imul v10, v10
    v14: int = {op} v11, v13
    v15: int = iadd v10, v2
    jump block1(v15, v14)
block3(v9: int):
    jump block7(v9)
block6(v16: int):
    jump block7(v16)
block7(v17: int):
    return v17
}}"
    ))
}

/// Loop doubling ([`super::unroll`]): a loop unrolled by two validates
/// against the loop; dropping the copy's exit test or changing its body
/// alarms.
#[test]
fn a_loop_unrolled_by_two_validates() {
    let before = f(SQUARES);
    let good = squares_unrolled("icmp lt v10, v0", "iadd");
    assert_eq!(validate(&before, &good), Verdict::Equal);
    for bad in [
        squares_unrolled("bconst true", "iadd"),
        squares_unrolled("icmp le v10, v0", "iadd"),
        squares_unrolled("icmp lt v10, v0", "isub"),
    ] {
        assert!(matches!(validate(&before, &bad), Verdict::Alarm(_)));
    }
}

/// Loops unrolled by the real pass: a counted loop, a loop with a branch
/// in its body, a loop that stores into an array and a loop with an early
/// exit.
const LOOPS: &str = "fn fn0 \"count\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block3(v4)
block2:
    v6: int = imul v3, v3
    v7: int = iadd v4, v6
    v8: int = iadd v3, v2
    jump block1(v8, v7)
block3(v9: int):
    return v9
}
fn fn1 \"branchy\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    v20: int = iconst 3
    jump block1(v1, v1)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v0
    br v5, block2, block6(v4)
block2:
    v6: int = irem v3, v20
    v7: bool = icmp eq v6, v1
    br v7, block3, block4
block3:
    v8: int = iadd v4, v3
    jump block5(v8)
block4:
    v9: int = isub v4, v2
    jump block5(v9)
block5(v10: int):
    v11: int = iadd v3, v2
    jump block1(v11, v10)
block6(v12: int):
    return v12
}
fn fn2 \"fill\"([int]) -> void {
block0(v0: [int]):
    v1: int = iconst 0
    v2: int = iconst 1
    v3: int = array_len v0
    jump block1(v1)
block1(v4: int):
    v5: bool = icmp lt v4, v3
    br v5, block2, block3
block2:
    bounds_check v0, v4 @1:1
    array_set v0, v4, v4
    v6: int = iadd v4, v2
    jump block1(v6)
block3:
    return
}
fn fn3 \"find\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    v4: int = array_len v0
    jump block1(v2)
block1(v5: int):
    v6: bool = icmp lt v5, v4
    br v6, block2, block4(v5)
block2:
    bounds_check v0, v5 @1:1
    v7: int = array_get v0, v5
    v8: bool = icmp eq v7, v1
    br v8, block5(v5), block3
block3:
    v9: int = iadd v5, v3
    jump block1(v9)
block4(v10: int):
    jump block6(v10)
block5(v11: int):
    jump block6(v11)
block6(v12: int):
    return v12
}
";

#[test]
fn the_unroll_pass_validates() {
    let mut p = program(LOOPS);
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "unroll", "straighten", "gvn", "copyprop", "dce"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let unroll = v.stats.iter().find(|s| s.name == "unroll").unwrap();
    assert_eq!(unroll.changed, 4, "{:?}", v.stats);
    // `find`, whose loop also exits from its body, validates since its
    // exit gates compare under the return φ's gates (R10).
    assert!(v.findings.is_empty(), "{:#?}", v.findings);
    let mut before = program(LOOPS);
    for f in before.funcs.values_mut() {
        crate::canon::canonicalize(f);
    }
    let whole = validate_program(&before, &p, &Options::default());
    assert_eq!(whole.equal, whole.total, "{:#?}", whole.findings);
}

/// `a[i] += a[i]` (two checks of one index) and `for i in 0..len(a) {
/// a[i] = i }` (a check the loop's range proves).
const CHECKS: &str = "fn fn0 \"twice\"([int], int) -> void {
block0(v0: [int], v1: int):
    bounds_check v0, v1 @1:1
    v2: int = array_get v0, v1
    v3: int = iadd v2, v2
    bounds_check v0, v1 @1:2
    array_set v0, v1, v3
    return
}
fn fn1 \"fill\"([int]) -> void {
block0(v0: [int]):
    v1: int = iconst 0
    v2: int = iconst 1
    v3: int = array_len v0
    jump block1(v1)
block1(v4: int):
    v5: bool = icmp lt v4, v3
    br v5, block2, block3
block2:
    bounds_check v0, v4 @1:1
    array_set v0, v4, v4
    v6: int = iadd v4, v2
    jump block1(v6)
block3:
    return
}
";

/// BCE: the dominated check validates (R6), and so does a check removed
/// because the loop's range `0 <= i < len(a)` proves it (R8, `range`).
#[test]
fn bce_dominated_checks_and_range_facts_validate() {
    let mut p = program(CHECKS);
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "bce"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let bce = v.stats.iter().find(|s| s.name == "bce").unwrap();
    assert_eq!((bce.changed, bce.equal), (2, 2), "{:?}", v.stats);
    assert!(v.findings.is_empty(), "{:#?}", v.findings);
}

/// `big` (left a call by the inliner) and the trivial `t` (inlined),
/// both called by `main`, `big` first.
const BUDGET: &str = "fn fn0 \"big\"(int) -> int {
block0(v0: int):
    v1: int = imul v0, v0
    v2: int = iadd v1, v0
    v3: int = imul v2, v1
    v4: int = isub v3, v2
    v5: int = imul v4, v3
    v6: int = iadd v5, v4
    return v6
}
fn fn1 \"t\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    return v2
}
fn fn2 \".main\"(int) -> int {
block0(v0: int):
    v1: int = call fn0 \"big\"(v0)
    v2: int = call fn1 \"t\"(v1)
    return v2
}
";

/// `main` of [`BUDGET`] with `t` inlined; `bad` adds 2 instead of 1.
fn main_with_t_inlined(bad: bool) -> Function {
    let k = if bad { 2 } else { 1 };
    f(&format!(
        "fn fn2 \".main\"(int) -> int {{
block0(v0: int):
    v1: int = call fn0 \"big\"(v0)
    v3: int = iconst {k}
    v4: int = iadd v1, v3
    return v4
}}"
    ))
}

/// When the unfolding budget runs out on the before side (here after
/// `big`, which both sides unfold), the inlined `t` stays a call there
/// and the check alarms; the second attempt unfolds only the calls the
/// two sides disagree on (`t`) and validates. A wrong inlining still
/// alarms.
#[test]
fn an_inlined_call_validates_when_the_budget_runs_out_on_other_calls() {
    let p = program(BUDGET);
    let mut big = p.funcs[FuncId::from_u32(0)].clone();
    crate::canon::canonicalize(&mut big);
    // Room for `big` alone on each side.
    let callees = Callees::new(p.clone(), big.inst_count());
    let mut before = p.funcs[FuncId::from_u32(2)].clone();
    crate::canon::canonicalize(&mut before);
    let opts = Options::default();
    let needed = callees.needed(&before, &main_with_t_inlined(false));
    assert_eq!(needed.len(), 1);
    assert!(needed.contains(&FuncId::from_u32(1)));
    assert_eq!(
        validate_in(&before, &main_with_t_inlined(false), Some(&callees), &opts),
        Verdict::Equal
    );
    let v = validate_in(&before, &main_with_t_inlined(true), Some(&callees), &opts);
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
}

/// A function is needed when the calls of the functions already needed
/// make the counts differ: `g` (calling `t`) inlined while the direct call
/// of `t` stays leaves one call of `t` on each side directly, but two on
/// the before side once `g` is unfolded.
#[test]
fn needed_callees_close_over_unfolded_bodies() {
    let p = program(
        "fn fn0 \"t\"(int) -> int {
block0(v0: int):
    return v0
}
fn fn1 \"g\"(int) -> int {
block0(v0: int):
    v1: int = call fn0 \"t\"(v0)
    return v1
}
fn fn2 \".main\"(int) -> int {
block0(v0: int):
    v1: int = call fn1 \"g\"(v0)
    v2: int = call fn0 \"t\"(v1)
    return v2
}",
    );
    let callees = Callees::new(p.clone(), 1000);
    let before = p.funcs[FuncId::from_u32(2)].clone();
    // `t` inlined at the direct call, `g` inlined with its call of `t`.
    let after = f("fn fn2 \".main\"(int) -> int {
block0(v0: int):
    v1: int = call fn0 \"t\"(v0)
    return v1
}");
    let needed = callees.needed(&before, &after);
    assert_eq!(needed.len(), 2, "{needed:?}");
}
