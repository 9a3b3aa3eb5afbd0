//! Tests of R8 (`range`): bounds checks dropped on the facts where they are
//! observed. Every combination of a counted loop's start, comparison,
//! bound, step and a `pop` in its body is validated with its check removed;
//! each `Equal` is run on the interpreter (T1), and the in-range shapes
//! must be `Equal` (the rule is not vacuous).

use super::testhost::ArrayHost;
use super::*;
use crate::abi::TrapCode;
use crate::interp::Interpreter;
use crate::ir::{parse_function, FuncId, Program};

fn f(text: &str) -> Function {
    match parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Runs `func` on `args` with a real array heap ([`ArrayHost`]): the
/// loops run, so an `Equal` that dropped a check that can fail shows.
fn run(func: &Function, args: [i64; 2]) -> Result<u64, TrapCode> {
    let mut p = Program::default();
    p.funcs.push(func.clone());
    let mut host = ArrayHost::default();
    let interp = Interpreter::new(&p, &mut host);
    interp
        .call(
            &mut host,
            FuncId::from_u32(0),
            &[args[0] as u64, args[1] as u64],
        )
        .map_err(|t| t.code)
}

/// A loop summing `[1; n]` from `init` while `i cmp bound` by `step`,
/// optionally popping in its body, with its bounds check (`check`) or
/// without; with `diamond` the element is added or subtracted in the two
/// arms of an `if`, so the loop's continue condition is a disjunction
/// over the two paths to the latch that only later rounds simplify.
fn summing(
    init: i64,
    cmp: &str,
    bound: &str,
    step: i64,
    pop: bool,
    check: bool,
    diamond: bool,
) -> String {
    let bound = match bound {
        "len" => "    v6: int = iadd v5, v20\n".to_string(),
        "len+1" => "    v6: int = iadd v5, v2\n".to_string(),
        "len-1" => "    v6: int = isub v5, v2\n".to_string(),
        _ => "    v6: int = iadd v1, v20\n".to_string(),
    };
    let pop = if pop {
        "    v14: int = array_pop v3\n"
    } else {
        ""
    };
    let check = if check {
        "    bounds_check v3, v7 @1:1\n"
    } else {
        ""
    };
    let accumulate = if diamond {
        "    v15: bool = icmp lt v10, v1
    br v15, block4, block5
block4:
    v16: int = iadd v8, v10
    jump block6(v16)
block5:
    v17: int = isub v8, v10
    jump block6(v17)
block6(v11: int):
"
    } else {
        "    v11: int = iadd v8, v10\n"
    };
    format!(
        "fn fn0 \"f\"(int, int) -> int {{
block0(v0: int, v1: int):
    v2: int = iconst 1
    v20: int = iconst 0
    v3: [int] = array_repeat v2, v0
    v4: int = iconst {init}
    v5: int = array_len v3
{bound}    jump block1(v4, v20)
block1(v7: int, v8: int):
    v9: bool = icmp {cmp} v7, v6
    br v9, block2, block3
block2:
{pop}{check}    v10: int = array_get v3, v7
{accumulate}    v12: int = iconst {step}
    v13: int = iadd v7, v12
    jump block1(v13, v11)
block3:
    return v8
}}
"
    )
}

const INPUTS: &[[i64; 2]] = &[[0, 0], [1, 0], [3, 2], [5, 7], [4, 4], [2, -1], [6, 3]];

#[test]
fn checks_proved_by_the_loop_bound_go_and_every_equal_agrees() {
    let mut equal = Vec::new();
    for init in [-1, 0, 1] {
        for cmp in ["lt", "le"] {
            for bound in ["len", "len+1", "len-1", "m"] {
                for step in [1, 2] {
                    for pop in [false, true] {
                        for diamond in [false, true] {
                            let shape =
                                |check| summing(init, cmp, bound, step, pop, check, diamond);
                            let before = f(&shape(true));
                            let after = f(&shape(false));
                            let mut canonical = before.clone();
                            crate::canon::canonicalize(&mut canonical);
                            let mut opt = after.clone();
                            crate::canon::canonicalize(&mut opt);
                            if validate(&canonical, &opt).is_equal() {
                                for &x in INPUTS {
                                    assert_eq!(
                                        run(&before, x),
                                        run(&after, x),
                                        "{init} {cmp} {bound} {step} {pop} {diamond} on {x:?}"
                                    );
                                }
                                equal.push((init, cmp, bound, step, pop, diamond));
                            }
                        }
                    }
                }
            }
        }
    }
    // The in-range shapes: a start >= 0, `<` the length, step 1, no pop,
    // with or without a diamond in the body (whose continue condition R8
    // reads only once the rounds have simplified it: `Graph::loop_cont`
    // follows the rewrites of the loop's η's).
    for init in [0, 1] {
        for diamond in [false, true] {
            assert!(
                equal.contains(&(init, "lt", "len", 1, false, diamond)),
                "{init} {diamond}: {equal:?}"
            );
        }
    }
    assert!(equal.len() <= 8, "{equal:?}");
}

/// `find`: the check is in the body, which also exits the loop.
const FIND: &str = "fn fn0 \"find\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    v3: int = array_len v0
    v20: int = iconst -1
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v3
    br v5, block2, block4(v20)
block2:
    CHECK    v6: int = array_get v0, v4
    v7: bool = icmp eq v6, v1
    br v7, block4(v4), block3
block3:
    v8: int = iconst 1
    v9: int = iadd v4, v8
    jump block1(v9)
block4(v10: int):
    return v10
}
";

#[test]
fn a_check_in_a_body_that_exits_goes() {
    let before = FIND.replace("CHECK", "bounds_check v0, v4 @1:1\n");
    let after = FIND.replace("CHECK", "");
    let mut b = f(&before);
    crate::canon::canonicalize(&mut b);
    let mut a = f(&after);
    crate::canon::canonicalize(&mut a);
    assert!(validate(&b, &a).is_equal(), "{:?}", validate(&b, &a));
}

#[test]
fn a_check_after_the_loop_stays() {
    // `a[i]` after `for i in 0..len(a)`: there `i == len(a)`.
    let text = |check: &str| {
        format!(
            "fn fn0 \"last\"([int]) -> int {{
block0(v0: [int]):
    v2: int = iconst 0
    v3: int = array_len v0
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v3
    br v5, block2, block3
block2:
    bounds_check v0, v4 @1:1
    v8: int = iconst 1
    v9: int = iadd v4, v8
    jump block1(v9)
block3:
{check}    v6: int = array_get v0, v4
    return v6
}}
"
        )
    };
    let mut b = f(&text("    bounds_check v0, v4 @1:2\n"));
    crate::canon::canonicalize(&mut b);
    let mut a = f(&text(""));
    crate::canon::canonicalize(&mut a);
    assert!(!validate(&b, &a).is_equal());
    // The check in the loop goes and the one after it stays: sound.
    let mut a2 =
        f(&text("    bounds_check v0, v4 @1:2\n").replace("    bounds_check v0, v4 @1:1\n", ""));
    crate::canon::canonicalize(&mut a2);
    assert!(validate(&b, &a2).is_equal(), "{:?}", validate(&b, &a2));
}

/// `for i in 0..n { y[i] += x[i] }`: BCE versions the loop on
/// `n <= min(len(y), len(x))`.
const AXPY: &str = "fn fn0 \"axpy\"([int], [int], int) -> void {
block0(v0: [int], v1: [int], v2: int):
    v3: int = iconst 0
    jump block1(v3)
block1(v4: int):
    v5: bool = icmp lt v4, v2
    br v5, block2, block3
block2:
    bounds_check v0, v4 @1:1
    v6: int = array_get v0, v4
    bounds_check v1, v4 @1:2
    v7: int = array_get v1, v4
    v8: int = iadd v6, v7
    array_set v0, v4, v8
    v9: int = iconst 1
    v10: int = iadd v4, v9
    jump block1(v10)
block3:
    return
}
";

#[test]
fn a_versioned_loop_validates_by_the_case_split_and_a_wrong_test_alarms() {
    let mut before = f(AXPY);
    crate::canon::canonicalize(&mut before);
    let mut p = Program::default();
    p.funcs.push(before.clone());
    let opts = crate::passes::PipelineOptions {
        verify: true,
        time: false,
    };
    crate::passes::Pipeline::from_names(&["canon", "bce"])
        .unwrap()
        .run(&mut p, &opts, &mut ())
        .unwrap();
    let after = p.funcs[FuncId::from_u32(0)].clone();
    let text = crate::ir::print_function(&p, FuncId::from_u32(0));
    assert!(text.contains("imin"), "BCE versions the loop: {text}");
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}\n{text}",
        validate(&before, &after)
    );
    // `n <= max(len(y), len(x))` does not keep both indices in range.
    let wrong = f(&text.replace("imin", "imax"));
    assert!(!validate(&before, &wrong).is_equal(), "{text}");
}

/// `make` of `arrays/bool_layout.wdl` with the array a parameter:
/// `a[i] = true` under an `if` in a counted loop `for i in 0..n`. At `-O2` BCE versions the loop on
/// `n <= len(a)` and unroll doubles both copies, so the second half's check
/// reads the array length at the token φ of the first half's `if`.
const MAKE: &str = "fn fn0 \"make\"(int, int, [bool]) -> [bool] {
block0(v0: int, v1: int, v3: [bool]):
    v4: int = iconst 0
    jump block1(v4)
block1(v5: int):
    v6: bool = icmp lt v5, v0
    br v6, block2, block4
block2:
    v8: int = irem v5, v1 @4:14
    v9: int = iconst 0
    v10: bool = icmp eq v8, v9
    br v10, block5, block6
block5:
    v12: bool = bconst true
    bounds_check v3, v5 @4:30
    array_set v3, v5, v12
    jump block6
block6:
    jump block3
block3:
    v13: int = iconst 1
    v14: int = iadd v5, v13
    jump block1(v14)
block4:
    return v3
}
";

#[test]
fn a_versioned_and_unrolled_loop_with_a_store_under_an_if_validates() {
    let before = f(MAKE);
    let mut p = Program::default();
    p.funcs.push(before.clone());
    let opts = crate::passes::PipelineOptions {
        verify: true,
        time: false,
    };
    crate::passes::Pipeline::for_level(2)
        .run(&mut p, &opts, &mut ())
        .unwrap();
    let after = p.funcs[FuncId::from_u32(0)].clone();
    let text = crate::ir::print_function(&p, FuncId::from_u32(0));
    assert!(
        text.matches("bounds_check").count() == 2 && text.contains("icmp le v0"),
        "versioned and unrolled: {text}"
    );
    let mut canonical = before.clone();
    crate::canon::canonicalize(&mut canonical);
    assert!(
        validate(&canonical, &after).is_equal(),
        "{:?}\n{text}",
        validate(&canonical, &after)
    );
    // The guard the wrong way round runs the unchecked copy when
    // `n > len(a)`.
    let guard = text
        .lines()
        .find(|l| l.contains("icmp le v0"))
        .expect("the versioning guard");
    let (lhs, _) = guard.split_once(" = ").unwrap();
    let args = guard.split("icmp le ").nth(1).unwrap();
    let (x, y) = args.split_once(", ").unwrap();
    let y = y.split_whitespace().next().unwrap();
    let swapped = format!("{lhs} = icmp le {y}, {x}");
    let wrong = f(&text.replace(guard, &swapped));
    assert!(!validate(&canonical, &wrong).is_equal(), "{swapped}");
}

/// `for i in 0..n { a[i] = i; }` before an outer loop whose counter
/// `c = μ_1(0, c + 1)` is the same stream as `i` (the inner `for j` keeps
/// the outer loop from being unrolled). Refinement merges `i` with `c`.
const MERGED_COUNTER: &str = "\
fn fn0 \"f\"(int) -> int @1:4 {
block0(v0: int):
    v1: int = iconst 0
    v2: [int] = array_repeat v1, v0 @2:13
    v3: int = iconst 0
    jump block1(v3)
block1(v4: int):
    v5: bool = icmp lt v4, v0
    br v5, block2, block4
block2:
    bounds_check v2, v4 @3:22
    array_set v2, v4, v4
    jump block3
block3:
    v7: int = iconst 1
    v8: int = iadd v4, v7
    jump block1(v8)
block4:
    v9: int = iconst 0
    v10: int = iconst 0
    jump block5(v10, v9)
block5(v11: int, v23: int):
    v12: int = iconst 100
    v13: bool = icmp lt v11, v12
    br v13, block6, block7
block6:
    v14: int = iconst 0
    v15: int = iconst 3
    jump block8(v14, v11)
block8(v16: int, v18: int):
    v17: bool = icmp lt v16, v15
    br v17, block9, block11
block9:
    v19: int = iadd v18, v16
    jump block10
block10:
    v20: int = iconst 1
    v21: int = iadd v16, v20
    jump block8(v21, v19)
block11:
    v24: int = iconst 2
    v25: int = irem v23, v24 @8:14
    v26: int = iconst 0
    v27: bool = icmp eq v25, v26
    br v27, block12, block13
block12:
    v28: int = iadd v18, v23
    jump block14(v28)
block13:
    v29: int = iconst 1
    v30: int = isub v18, v29
    jump block14(v30)
block14(v34: int):
    v32: int = iconst 1
    v33: int = iadd v23, v32
    jump block5(v34, v33)
block7:
    return v11
}
";

/// The same with the outer loop reading `a[c]`: its check is not in range
/// (`c` grows past `n` until `s >= 100`).
const MERGED_COUNTER_READ: &str = "\
fn fn0 \"f\"(int) -> int @1:4 {
block0(v0: int):
    v1: int = iconst 0
    v2: [int] = array_repeat v1, v0 @2:13
    v3: int = iconst 0
    jump block1(v3)
block1(v4: int):
    v5: bool = icmp lt v4, v0
    br v5, block2, block4
block2:
    bounds_check v2, v4 @3:22
    array_set v2, v4, v4
    jump block3
block3:
    v7: int = iconst 1
    v8: int = iadd v4, v7
    jump block1(v8)
block4:
    v9: int = iconst 0
    v10: int = iconst 0
    jump block5(v10, v9)
block5(v11: int, v25: int):
    v12: int = iconst 100
    v13: bool = icmp lt v11, v12
    br v13, block6, block7
block6:
    v14: int = iconst 0
    v15: int = iconst 3
    jump block8(v14, v11)
block8(v16: int, v18: int):
    v17: bool = icmp lt v16, v15
    br v17, block9, block11
block9:
    v19: int = iadd v18, v16
    jump block10
block10:
    v20: int = iconst 1
    v21: int = iadd v16, v20
    jump block8(v21, v19)
block11:
    bounds_check v2, v25 @8:15
    v26: int = array_get v2, v25
    v27: int = iadd v18, v26
    v28: int = iconst 1
    v29: int = iadd v25, v28
    jump block5(v27, v29)
block7:
    return v11
}
";

/// Runs the real `unroll` pass on `func`.
fn unrolled(func: &Function) -> (Function, String) {
    let mut p = Program::default();
    p.funcs.push(func.clone());
    let opts = crate::passes::PipelineOptions {
        verify: true,
        time: false,
    };
    crate::passes::Pipeline::from_names(&["unroll"])
        .unwrap()
        .run(&mut p, &opts, &mut ())
        .unwrap();
    let text = crate::ir::print_function(&p, FuncId::from_u32(0));
    (p.funcs[FuncId::from_u32(0)].clone(), text)
}

/// classic/fannkuch's regression after `len([v; n]) = n` (fff39c7): the
/// unrolled copy `μ(0, i + 2)` of the first loop is merged with nothing,
/// so R8 proves its checks with its own continue condition; the original
/// `i` is merged with the outer counter `c`, and R8 read only the
/// continue condition of the class's representative (`c`'s loop, which
/// does not bound it): the original kept its check, the copy did not, and
/// loop doubling then compared a checked loop with an unchecked one.
#[test]
fn a_counter_merged_with_another_loops_counter_is_bounded_by_its_own_loop() {
    let mut before = f(MERGED_COUNTER);
    crate::canon::canonicalize(&mut before);
    let (after, text) = unrolled(&before);
    // The first loop is unrolled (its check twice), the outer one is not.
    assert_eq!(text.matches("bounds_check").count(), 2, "unrolled: {text}");
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}\n{text}",
        validate(&before, &after)
    );
}

/// The other way round: `a[c]` in the outer loop is not bounded by the
/// first loop's `i < n`, though `c` and `i` are one class, so R8 does not
/// drop its check (which traps at `c = n` for `n < 14`).
#[test]
fn a_merged_counter_does_not_borrow_the_other_loops_bound() {
    let before = f(MERGED_COUNTER_READ);
    let check = "    bounds_check v2, v25 @8:15\n";
    assert!(MERGED_COUNTER_READ.contains(check));
    let wrong = f(&MERGED_COUNTER_READ.replace(check, ""));
    assert!(!validate(&before, &wrong).is_equal());
}

/// The shapes of [`checks_proved_by_the_loop_bound_go_and_every_equal_agrees`]
/// with the check-free loop unrolled by the real pass: the validator
/// doubles the checked loop, and the doubled loop's continue condition
/// (`E(cont) ∧ O(cont)`, [`super::unroll`]) lets R8 prove the checks of
/// both halves. Every `Equal` runs alike on the interpreter, and the
/// in-range shapes without a diamond validate.
#[test]
fn checks_dropped_from_an_unrolled_loop_go_only_when_in_range() {
    let mut equal = Vec::new();
    for init in [-1, 0, 1] {
        for cmp in ["lt", "le"] {
            for bound in ["len", "len+1", "len-1", "m"] {
                for pop in [false, true] {
                    for diamond in [false, true] {
                        let shape = |check| summing(init, cmp, bound, 1, pop, check, diamond);
                        let before = f(&shape(true));
                        let mut canonical = before.clone();
                        crate::canon::canonicalize(&mut canonical);
                        let mut opt = f(&shape(false));
                        crate::canon::canonicalize(&mut opt);
                        let (after, text) = unrolled(&opt);
                        if validate(&canonical, &after).is_equal() {
                            for &x in INPUTS {
                                assert_eq!(
                                    run(&before, x),
                                    run(&after, x),
                                    "{init} {cmp} {bound} {pop} {diamond} on {x:?}\n{text}"
                                );
                            }
                            equal.push((init, cmp, bound, pop, diamond));
                        }
                    }
                }
            }
        }
    }
    for init in [0, 1] {
        assert!(
            equal.contains(&(init, "lt", "len", false, false)),
            "{init}: {equal:?}"
        );
    }
    assert!(equal.len() <= 4, "{equal:?}");
}

/// R8 stops exploring after [`R8_MAX_EMPTY`] explorations in a row that
/// found nothing: [`MAKE`] at `-O2` with its versioning guard the wrong
/// way round explores once to make the case-split copy, then finds
/// nothing in every round loop doubling and R11 leave to it (four times
/// without the bound, four with a bound of three, three now). The verdict stays an alarm, and the right guard
/// still validates.
#[test]
fn r8_stops_after_explorations_that_find_nothing() {
    let before = f(MAKE);
    let mut p = Program::default();
    p.funcs.push(before.clone());
    let opts = crate::passes::PipelineOptions {
        verify: true,
        time: false,
    };
    crate::passes::Pipeline::for_level(2)
        .run(&mut p, &opts, &mut ())
        .unwrap();
    let after = p.funcs[FuncId::from_u32(0)].clone();
    let text = crate::ir::print_function(&p, FuncId::from_u32(0));
    let mut canonical = before.clone();
    crate::canon::canonicalize(&mut canonical);
    let guard = text
        .lines()
        .find(|l| l.contains("icmp le v0"))
        .expect("the versioning guard");
    let (lhs, _) = guard.split_once(" = ").unwrap();
    let args = guard.split("icmp le ").nth(1).unwrap();
    let (x, y) = args.split_once(", ").unwrap();
    let y = y.split_whitespace().next().unwrap();
    let wrong = f(&text.replace(guard, &format!("{lhs} = icmp le {y}, {x}")));
    let explorations = |g: &Function| {
        range::EXPLORATIONS.with(|n| n.set(0));
        let v = validate(&canonical, g);
        (v.is_equal(), range::EXPLORATIONS.with(|n| n.get()))
    };
    let (equal, n) = explorations(&wrong);
    assert!(!equal, "{text}");
    // One that finds the copy, then two empty ones in a row (three
    // before the bound was two).
    assert!(n <= 3, "{n} explorations");
    assert!(n <= 1 + R8_MAX_EMPTY as usize, "{n} explorations");
    assert_eq!(explorations(&after), (true, 1), "{text}");
}
