//! Tests of R8 (`range`): bounds checks dropped on the facts where they are
//! observed. Every combination of a counted loop's start, comparison,
//! bound, step and a `pop` in its body is validated with its check removed;
//! each `Equal` is run on the interpreter (T1), and the in-range shapes
//! must be `Equal` (the rule is not vacuous).

use super::fold::PureHost;
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

fn run(func: &Function, args: [i64; 2]) -> Result<u64, TrapCode> {
    let mut p = Program::default();
    p.funcs.push(func.clone());
    let interp = Interpreter::new(&p, &mut PureHost);
    interp
        .call(
            &mut PureHost,
            FuncId::from_u32(0),
            &[args[0] as u64, args[1] as u64],
        )
        .map_err(|t| t.code)
}

/// A loop summing `[1; n]` from `init` while `i cmp bound` by `step`,
/// optionally popping in its body, with its bounds check (`check`) or
/// without.
fn summing(init: i64, cmp: &str, bound: &str, step: i64, pop: bool, check: bool) -> String {
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
    v11: int = iadd v8, v10
    v12: int = iconst {step}
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
                        let before = f(&summing(init, cmp, bound, step, pop, true));
                        let after = f(&summing(init, cmp, bound, step, pop, false));
                        let mut canonical = before.clone();
                        crate::canon::canonicalize(&mut canonical);
                        let mut opt = after.clone();
                        crate::canon::canonicalize(&mut opt);
                        if validate(&canonical, &opt).is_equal() {
                            for &x in INPUTS {
                                assert_eq!(
                                    run(&before, x),
                                    run(&after, x),
                                    "{init} {cmp} {bound} {step} {pop} on {x:?}"
                                );
                            }
                            equal.push((init, cmp, bound, step, pop));
                        }
                    }
                }
            }
        }
    }
    // The in-range shapes: a start >= 0, `<` the length, step 1, no pop.
    for init in [0, 1] {
        assert!(
            equal.contains(&(init, "lt", "len", 1, false)),
            "{init}: {equal:?}"
        );
    }
    assert!(equal.len() <= 4, "{equal:?}");
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
