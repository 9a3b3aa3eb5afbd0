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
