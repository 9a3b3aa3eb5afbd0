//! Loops unrolled by the real `unroll` pass (Fritz §9.6) that need more
//! than [`super::unroll`]'s doubling rule alone: an exit value computed in
//! each exiting block (R9, [`super::phiop`]) and loops that share a
//! counter with a loop the pass leaves alone. Each validates, and a wrong
//! variant of the unrolled function alarms.

use super::*;
use crate::ir::{parse_program, Program};
use crate::passes::{Pipeline, PipelineOptions};

fn program(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

fn f(text: &str) -> Function {
    match crate::ir::parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Runs `canon, unroll` on `text` with the validator attached; returns
/// the unroll pass's row, the findings and the program after the run.
fn unrolled(text: &str) -> (PassStats, Vec<Finding>, Program) {
    let mut p = program(text);
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "unroll"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let row = v.stats.iter().find(|s| s.name == "unroll").unwrap().clone();
    (row, v.findings, p)
}

/// `while true { k += 1; if k % 7 == 0 { return k; } }`: the loop exits
/// from its body with a value computed in the body.
const BY_WHILE_TRUE: &str = "fn fn0 \"w\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iconst 7
    v3: int = iconst 0
    jump block1(v0)
block1(v4: int):
    v5: int = iadd v4, v1
    v6: int = irem v5, v2
    v7: bool = icmp eq v6, v3
    br v7, block2, block3
block3:
    jump block1(v5)
block2:
    return v5
}";

/// [`BY_WHILE_TRUE`] as the unroll pass leaves it: each copy returns its
/// own `k + 1` (`ret2` is what the copy returns).
fn by_while_true_unrolled(ret2: &str) -> Function {
    f(&format!(
        "fn fn0 \"w\"(int) -> int {{
block0(v0: int):
    v1: int = iconst 1
    v2: int = iconst 7
    v3: int = iconst 0
    jump block1(v0)
block1(v4: int):
    v5: int = iadd v4, v1
    v6: int = irem v5, v2
    v7: bool = icmp eq v6, v3
    br v7, block2(v5), block3
block3:
    jump block4(v5)
block2(v8: int):
    return v8
block4(v9: int):
    v10: int = iadd v9, v1
    v11: int = irem v10, v2
    v12: bool = icmp eq v11, v3
    br v12, block2({ret2}), block5
block5:
    jump block1(v10)
}}"
    ))
}

/// R9: the original returns `IAdd(φ{exit₁ → η(k), exit₂ → η(k')}, 1)`
/// once doubled, the unrolled loop `φ{exit₁ → IAdd(η(k), 1), exit₂ →
/// IAdd(IAdd(η(k), 1), 1)}`; factoring the `IAdd` out of the φ equates
/// them. The real pass validates; returning the copy's `k` instead of
/// `k + 1` (the φ's branches then differ in more than the factored
/// argument) alarms.
#[test]
fn an_exit_value_computed_in_each_copy_validates_by_factoring() {
    let (row, findings, _) = unrolled(BY_WHILE_TRUE);
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}");
    let before = f(BY_WHILE_TRUE);
    let mut canon = before.clone();
    crate::canon::canonicalize(&mut canon);
    assert_eq!(
        validate(&canon, &by_while_true_unrolled("v10")),
        Verdict::Equal
    );
    for bad in ["v9", "v5"] {
        assert!(
            matches!(
                validate(&canon, &by_while_true_unrolled(bad)),
                Verdict::Alarm(_)
            ),
            "{bad}"
        );
    }
}

/// R9 alone, on a join: `(c ? a : b) + 1` against `c ? a + 1 : b + 1`
/// validates, `c ? a + 1 : b + 2` does not.
#[test]
fn a_common_operator_is_factored_out_of_a_phi() {
    let before = f("fn fn0 \"j\"(bool, int, int) -> int {
block0(v0: bool, v1: int, v2: int):
    v3: int = iconst 1
    br v0, block1, block2
block1:
    jump block3(v1)
block2:
    jump block3(v2)
block3(v4: int):
    v5: int = iadd v4, v3
    return v5
}");
    let after = |k: &str| {
        f(&format!(
            "fn fn0 \"j\"(bool, int, int) -> int {{
block0(v0: bool, v1: int, v2: int):
    v3: int = iconst 1
    v9: int = iconst {k}
    br v0, block1, block2
block1:
    v6: int = iadd v3, v1
    jump block3(v6)
block2:
    v7: int = iadd v2, v9
    jump block3(v7)
block3(v4: int):
    return v4
}}"
        ))
    };
    assert_eq!(validate(&before, &after("1")), Verdict::Equal);
    assert!(matches!(validate(&before, &after("2")), Verdict::Alarm(_)));
}

/// `for i in 0..3 { print(i) }` then `for i in 0..10 { for j in i..10 {
/// g += 1 } }`: the first loop's counter `μ(0, i + 1)` is the same stream
/// as the outer loop's, which the pass does not unroll (only innermost
/// loops are), so it is shared with the unrolled function. The first loop
/// is still doubled and the function validates; a copy that prints the
/// wrong value alarms.
const SHARED_COUNTER: &str = "global g0 \"g\": int
fn fn0 \"m\"() -> void {
block0:
    v0: int = iconst 0
    v1: int = iconst 3
    v2: int = iconst 1
    v3: int = iconst 10
    jump block1(v0)
block1(v4: int):
    v5: bool = icmp lt v4, v1
    br v5, block2, block3
block2:
    print v4
    v6: int = iadd v4, v2
    jump block1(v6)
block3:
    jump block4(v0)
block4(v7: int):
    v8: bool = icmp lt v7, v3
    br v8, block5, block9
block5:
    jump block6(v7)
block6(v9: int):
    v10: bool = icmp lt v9, v3
    br v10, block7, block8
block7:
    v11: int = global_get g0
    v12: int = iadd v11, v2
    global_set g0, v12
    v13: int = iadd v9, v2
    jump block6(v13)
block8:
    v14: int = iadd v7, v2
    jump block4(v14)
block9:
    return
}";

#[test]
fn a_loop_sharing_its_counter_with_a_loop_left_alone_is_doubled() {
    let (row, findings, after) = unrolled(SHARED_COUNTER);
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}");
    // The copy of the first loop prints its counter's initial value.
    let id = after.funcs.keys().next().unwrap();
    let text = crate::ir::print_function(&after, id);
    let second = text.match_indices("print v").nth(1).unwrap().0;
    let line_end = second + text[second..].find('\n').unwrap();
    let bad = format!("{}print v0{}", &text[..second], &text[line_end..]);
    let bad = program(&format!("global g0 \"g\": int\n{bad}"));
    let mut before = program(SHARED_COUNTER);
    for f in before.funcs.values_mut() {
        crate::canon::canonicalize(f);
    }
    let (b, a) = (
        before.funcs.values().next().unwrap(),
        bad.funcs.values().next().unwrap(),
    );
    assert!(
        matches!(validate(b, a), Verdict::Alarm(_)),
        "{}",
        crate::ir::print_function(&bad, id)
    );
}

/// `is_prime`'s loop (`primes.wdl`): `while d * d <= n { if n % d == 0
/// { return false; } d += 2; }`, a division check and an early return in
/// the body.
const IS_PRIME: &str = "fn fn0 \"is_prime\"(int) -> bool {
block0(v0: int):
    v1: int = iconst 2
    v2: bool = icmp lt v0, v1
    br v2, block1, block2
block1:
    v3: bool = bconst false
    return v3
block2:
    v4: int = iconst 2
    v5: int = irem v0, v4
    v6: int = iconst 0
    v7: bool = icmp eq v5, v6
    br v7, block3, block4
block3:
    v8: int = iconst 2
    v9: bool = icmp eq v0, v8
    return v9
block4:
    v10: int = iconst 3
    jump block5(v10)
block5(v11: int):
    v12: int = imul v11, v11
    v14: bool = icmp le v12, v0
    br v14, block6, block7
block6:
    v15: int = irem v0, v11
    v16: int = iconst 0
    v17: bool = icmp eq v15, v16
    br v17, block8, block9
block8:
    v18: bool = bconst false
    return v18
block9:
    v19: int = iconst 2
    v20: int = iadd v11, v19
    jump block5(v20)
block7:
    v21: bool = bconst true
    return v21
}";

/// [`IS_PRIME`] as the unroll pass leaves it, with the second copy's
/// lines `v24` (its loop test), `v25` (its division) and the branch on
/// `v27` (its early exit) given.
fn is_prime_unrolled(test: &str, div: &str, exit: &str) -> Function {
    let head = &IS_PRIME[..IS_PRIME.find("    jump block5(v20)").unwrap()];
    f(&format!(
        "{head}    jump block10(v20)
block7:
    v21: bool = bconst true
    return v21
block10(v22: int):
    v23: int = imul v22, v22
    {test}
    br v24, block11, block7
block11:
    {div}
    v26: int = iconst 0
    v27: bool = icmp eq v25, v26
    {exit}
block12:
    v28: int = iconst 2
    v29: int = iadd v22, v28
    jump block5(v29)
}}"
    ))
}

#[test]
fn an_early_exit_after_a_division_check_validates_by_flattening() {
    // The real pass.
    let (row, findings, _) = unrolled(IS_PRIME);
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}");
    let mut canon = f(IS_PRIME);
    crate::canon::canonicalize(&mut canon);
    let good = [
        "v24: bool = icmp le v23, v0",
        "v25: int = irem v0, v22",
        "br v27, block8, block12",
    ];
    assert!(
        validate(&canon, &is_prime_unrolled(good[0], good[1], good[2])).is_equal(),
        "the hand-unrolled loop validates"
    );
    // The second copy tests `<` (skips the last divisor), divides by the
    // first copy's divisor (another trap check, another remainder), or
    // returns `true` from its early exit.
    for (i, bad) in [
        "v24: bool = icmp lt v23, v0",
        "v25: int = irem v0, v11",
        "br v27, block7, block12",
    ]
    .into_iter()
    .enumerate()
    {
        let mut lines = good;
        lines[i] = bad;
        assert!(
            matches!(
                validate(&canon, &is_prime_unrolled(lines[0], lines[1], lines[2])),
                Verdict::Alarm(_)
            ),
            "{bad}"
        );
    }
}

/// `set_all(a, 9)` then `set_all(a, 10)` inlined into a function, after
/// `bce` versioned both loops on `n <= len(a)` (`a = [false; 9]`, a
/// global; runtime-errors/index_bool_at_len.wdl): each copy of each loop
/// is unrolled.
const SET_ALL_TWICE: &str = "\
global g0 \"a\": [bool]
main fn0

fn fn0 \"m\"() -> void {
block0:
    v0: bool = bconst false
    v1: int = iconst 9
    v2: [bool] = array_repeat v0, v1
    global_set g0, v2
    v3: [bool] = global_get g0
    v27: int = iconst 9
    v14: int = iconst 0
    v16: bool = bconst true
    v17: int = iconst 1
    v29: int = array_len v3
    v30: bool = icmp le v27, v29
    br v30, block18(v14), block17(v14)
block3(v13: int):
    v15: bool = icmp lt v13, v27
    br v15, block4, block15
block4:
    bounds_check v3, v13
    array_set v3, v13, v16
    v18: int = iadd v13, v17
    jump block3(v18)
block6:
    v5: [bool] = global_get g0
    v6: int = iconst 8
    bounds_check v5, v6
    v7: bool = array_get v5, v6
    print v7
    v8: [bool] = global_get g0
    v28: int = iconst 10
    v22: int = iconst 0
    v24: bool = bconst true
    v25: int = iconst 1
    v36: int = array_len v8
    v37: bool = icmp le v28, v36
    br v37, block24(v22), block23(v22)
block9(v21: int):
    v23: bool = icmp lt v21, v28
    br v23, block10, block21
block10:
    bounds_check v8, v21
    array_set v8, v21, v24
    v26: int = iadd v21, v25
    jump block9(v26)
block12:
    v10: [bool] = global_get g0
    print v10
    return
block13(v31: int):
    v32: bool = icmp lt v31, v27
    br v32, block14, block16
block14:
    array_set v3, v31, v16
    v33: int = iadd v31, v17
    jump block13(v33)
block15:
    jump block6
block16:
    jump block6
block17(v34: int):
    jump block3(v34)
block18(v35: int):
    jump block13(v35)
block19(v38: int):
    v39: bool = icmp lt v38, v28
    br v39, block20, block22
block20:
    array_set v8, v38, v24
    v40: int = iadd v38, v25
    jump block19(v40)
block21:
    jump block12
block22:
    jump block12
block23(v41: int):
    jump block9(v41)
block24(v42: int):
    jump block19(v42)
}";

#[test]
fn the_odd_half_of_a_doubled_checked_loop_proves_its_check() {
    // The loop doubled by the validator gets the continue condition
    // `E(cont) ∧ O(cont)` for its μ's, so R8 proves the odd half's check
    // `a[μ' + 1]` (by the induction `μ' >= 0`) as it proves the real
    // unrolled loop's.
    let (row, findings, p) = unrolled(SET_ALL_TWICE);
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}");
    // The second copy of the `n = 10` loop without its check: index 9,
    // which traps, is the second copy's.
    let text = crate::ir::print_function(&p, crate::ir::FuncId::from_u32(0));
    let at = text
        .rmatch_indices("bounds_check v8,")
        .next()
        .expect("two checks")
        .0;
    let end = at + text[at..].find('\n').unwrap() + 1;
    let line_start = text[..at].rfind('\n').unwrap() + 1;
    let wrong = f(&format!("{}{}", &text[..line_start], &text[end..]));
    let mut canon = program(SET_ALL_TWICE).funcs[crate::ir::FuncId::from_u32(0)].clone();
    crate::canon::canonicalize(&mut canon);
    assert!(validate(&canon, &p.funcs[crate::ir::FuncId::from_u32(0)]).is_equal());
    assert!(
        matches!(validate(&canon, &wrong), Verdict::Alarm(_)),
        "{}",
        &text[line_start..end]
    );
}

/// control/nested_loops_return's `find` after `bce`: the inner loop
/// returns `str(i) + "," + str(j)` from its body, through both loops.
const FIND_IN_ROWS: &str = "\
main fn0

fn fn0 \"find\"([[int]], int) -> str {
block0(v0: [[int]], v1: int):
    v2: int = iconst 0
    v3: int = array_len v0
    v6: int = iconst 0
    v22: int = iconst 1
    v26: int = iconst 1
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v3
    br v5, block2, block4
block2:
    jump block5(v6)
block5(v7: int):
    v10: [int] = array_get v0, v4
    v11: int = array_len v10
    v12: bool = icmp lt v7, v11
    br v12, block6, block7
block6:
    v13: [int] = array_get v0, v4
    bounds_check v13, v7
    v14: int = array_get v13, v7
    v16: bool = icmp eq v14, v1
    br v16, block8(v7, v4), block9
block8(v29: int, v30: int):
    v17: str = to_str v30
    v18: str = sconst \",\"
    v19: str = str_concat v17, v18
    v20: str = to_str v29
    v21: str = str_concat v19, v20
    return v21
block9:
    v23: int = iadd v7, v22
    jump block5(v23)
block7:
    v27: int = iadd v4, v26
    jump block1(v27)
block4:
    v28: str = sconst \"none\"
    return v28
}";

#[test]
fn a_return_through_two_loop_levels_validates_under_its_observation_gate() {
    // R11 restricts the exit-value φ's of the doubled loop (gated by the
    // half that left) and of the unrolled one (gated by the copy that
    // returned) to the return's gate, where they have one diagram; R8's
    // unit resolution proves the second half's check from that gate.
    let (row, findings, p) = unrolled(FIND_IN_ROWS);
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}");
    let id = crate::ir::FuncId::from_u32(0);
    let text = crate::ir::print_function(&p, id);
    let mut canon = program(FIND_IN_ROWS).funcs[id].clone();
    crate::canon::canonicalize(&mut canon);
    assert!(validate(&canon, &p.funcs[id]).is_equal());
    // The second copy returns the first copy's `j`, or its own `j` as `i`.
    let ret2 = text
        .lines()
        .filter(|l| l.contains("br ") && l.contains("block8("))
        .nth(1)
        .expect("the second copy's return edge");
    let args = ret2.split("block8(").nth(1).unwrap();
    let (j2, rest) = args.split_once(", ").unwrap();
    let i = rest.split(')').next().unwrap();
    let first = text
        .lines()
        .find(|l| l.contains("br ") && l.contains("block8("))
        .unwrap()
        .split("block8(")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    for bad in [
        format!("block8({first}, {i})"),
        format!("block8({j2}, {j2})"),
    ] {
        let wrong = f(&text.replacen(&format!("block8({j2}, {i})"), &bad, 1));
        assert!(
            matches!(validate(&canon, &wrong), Verdict::Alarm(_)),
            "{bad}\n{ret2}"
        );
    }
}

/// control/break_continue's end: `while n < 20 { n += 1; }` (unrolled by
/// the pass), then `while true { w += 1; <a loop of 3 trips>; if w == 4
/// { break; } }`, `n` and `w` globals. The second loop is entered from the
/// first one's exit token.
const LOOP_AFTER_AN_UNROLLED_ONE: &str = "\
global g0 \"n\": int
global g1 \"w\": int
main fn0

fn fn0 \"m\"() -> void {
block0:
    v0: int = iconst 0
    v1: int = iconst 1
    v2: int = iconst 20
    v3: int = iconst 4
    v4: int = iconst 3
    global_set g0, v0
    global_set g1, v0
    jump block1
block1:
    v10: int = global_get g0
    v11: bool = icmp lt v10, v2
    br v11, block2, block3
block2:
    v12: int = global_get g0
    v13: int = iadd v12, v1
    global_set g0, v13
    jump block1
block3:
    jump block4
block4:
    v20: int = global_get g1
    v21: int = iadd v20, v1
    global_set g1, v21
    jump block5(v0)
block5(v30: int):
    v31: int = iadd v30, v1
    v32: bool = icmp eq v31, v4
    br v32, block6, block7
block7:
    jump block5(v31)
block6:
    v22: int = global_get g1
    v23: bool = icmp eq v22, v3
    br v23, block8, block9
block9:
    jump block4
block8:
    v24: int = global_get g1
    print v24
    return
}";

#[test]
fn a_loop_entered_from_an_unrolled_loops_exit_waits_for_it_to_be_doubled() {
    // The `w` loop's token starts from the `n` loop's exit, so before the
    // `n` loop is doubled it is shared with nothing on the after side and
    // looks like a loop the pass unrolled. Doubled in the same round as the
    // `n` loop, it never matched the after side's `w` loop, which the pass
    // left alone (an inner loop is in it).
    let (row, findings, p) = unrolled(LOOP_AFTER_AN_UNROLLED_ONE);
    let text = crate::ir::print_function(&p, crate::ir::FuncId::from_u32(0));
    assert_eq!((row.changed, row.equal), (1, 1), "{findings:#?}\n{text}");
    // The same with `w == 5` as the exit test: alarms.
    let wrong = f(&text.replacen("iconst 4", "iconst 5", 1));
    let mut canon =
        program(LOOP_AFTER_AN_UNROLLED_ONE).funcs[crate::ir::FuncId::from_u32(0)].clone();
    crate::canon::canonicalize(&mut canon);
    assert!(validate(&canon, &p.funcs[crate::ir::FuncId::from_u32(0)]).is_equal());
    assert!(
        matches!(validate(&canon, &wrong), Verdict::Alarm(_)),
        "{text}"
    );
}
