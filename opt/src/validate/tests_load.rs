//! Tests of R5 through token φ's ([`super::rules`]'s `floor`): a read
//! after an `if` whose arms change nothing it reads is the read before the
//! `if` (Govereau §4.0.3: φ selects pointwise). Unit cases, wrong variants
//! that must alarm, and random arms whose every `Equal` is run (T1).

use proptest::prelude::*;

use super::testhost::ArrayHost;
use super::*;
use crate::abi::TrapCode;
use crate::interp::Interpreter;
use crate::ir::{parse_function, FuncId, Program, Type};

fn f(text: &str) -> Function {
    let mut func = match parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    };
    crate::canon::canonicalize(&mut func);
    func
}

/// The effects an arm may have on the array `v0` (`v1` is an `int`).
const ARMS: &[&str] = &[
    "",
    "    print v1\n",
    "    v30: int = iconst 0\n    bounds_check v0, v30 @1:1\n    array_set v0, v30, v1\n",
    "    v31: int = iconst 1\n    bounds_check v0, v31 @1:2\n    v32: int = array_get v0, v31\n    print v32\n",
    "    array_push v0, v1\n",
    "    v33: int = array_pop v0 @1:3\n",
    "    v34: int = iconst 0\n    bounds_check v0, v34 @1:4\n    array_set v0, v34, v34\n",
];

/// `read` (`len` or `elem`: `a[0]`) of `v0` before an `if v2` with arms
/// `then`/`els`, and again after it; returns `after - before`, or with
/// `folded` the difference replaced by `0` (what a pass that moves the
/// second read above the `if` would make of it).
fn read_around_if(read: &str, then: &str, els: &str, folded: bool) -> String {
    let (r1, r2) = match read {
        "len" => (
            "    v3: int = array_len v0\n".to_string(),
            "    v5: int = array_len v0\n".to_string(),
        ),
        _ => (
            "    v20: int = iconst 0\n    bounds_check v0, v20 @2:1\n    v3: int = array_get v0, v20\n"
                .to_string(),
            "    v21: int = iconst 0\n    bounds_check v0, v21 @2:2\n    v5: int = array_get v0, v21\n"
                .to_string(),
        ),
    };
    // The else arm's values are renamed so an arm may appear twice.
    let mut els = els.to_string();
    for k in 0..5 {
        els = els.replace(&format!("v3{k}"), &format!("v4{k}"));
    }
    let ret = if folded {
        "    v6: int = iconst 0\n"
    } else {
        "    v6: int = isub v5, v3\n"
    };
    format!(
        "fn fn0 \"f\"([int], int, bool) -> int {{
block0(v0: [int], v1: int, v2: bool):
{r1}    br v2, block1, block2
block1:
{then}    jump block3
block2:
{els}    jump block3
block3:
{r2}{ret}    return v6
}}
"
    )
}

fn run(func: &Function, v1: i64, v2: bool, elems: &[i64]) -> (Result<u64, TrapCode>, Vec<u64>) {
    let mut p = Program::default();
    p.funcs.push(func.clone());
    let mut host = ArrayHost::default();
    let words: Vec<u64> = elems.iter().map(|&e| e as u64).collect();
    let a = host.array_new_for_test(Type::Int, &words);
    let interp = Interpreter::new(&p, &mut host);
    let r = interp
        .call(&mut host, FuncId::from_u32(0), &[a, v1 as u64, v2 as u64])
        .map_err(|t| t.code);
    (r, host.printed.iter().map(|p| p.1).collect())
}

#[test]
fn a_length_read_after_an_if_that_keeps_lengths_is_the_read_before() {
    // A store in one arm, output in the other: the length is unchanged.
    let before = f(&read_around_if("len", ARMS[2], ARMS[1], false));
    let after = f(&read_around_if("len", ARMS[2], ARMS[1], true));
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}",
        validate(&before, &after)
    );
    // A push in one arm changes it: folding the difference must alarm.
    let before = f(&read_around_if("len", ARMS[2], ARMS[4], false));
    let after = f(&read_around_if("len", ARMS[2], ARMS[4], true));
    assert!(!validate(&before, &after).is_equal());
}

#[test]
fn an_element_read_after_an_if_is_the_read_before_unless_an_arm_writes_it() {
    let before = f(&read_around_if("elem", ARMS[3], ARMS[1], false));
    let after = f(&read_around_if("elem", ARMS[3], ARMS[1], true));
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}",
        validate(&before, &after)
    );
    // `a[0] = v1` in one arm: the second read differs.
    let before = f(&read_around_if("elem", ARMS[2], ARMS[1], false));
    let after = f(&read_around_if("elem", ARMS[2], ARMS[1], true));
    assert!(!validate(&before, &after).is_equal());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every pair of arms and both reads: whenever the validator calls
    /// the folded function equal, both run alike on arrays of several
    /// lengths (T1 for the φ step of R5).
    #[test]
    fn every_equal_fold_runs_alike(
        read in prop_oneof![Just("len"), Just("elem")],
        then in 0..ARMS.len(),
        els in 0..ARMS.len(),
        v1 in -3i64..3,
    ) {
        let before = f(&read_around_if(read, ARMS[then], ARMS[els], false));
        let after = f(&read_around_if(read, ARMS[then], ARMS[els], true));
        if validate(&before, &after).is_equal() {
            for elems in [&[][..], &[5][..], &[5, 6][..], &[1, 2, 3][..]] {
                for c in [false, true] {
                    prop_assert_eq!(
                        run(&before, v1, c, elems),
                        run(&after, v1, c, elems),
                        "{} {} {} on {:?} {}", read, then, els, elems, c
                    );
                }
            }
        }
    }
}

/// `len([v; n])` after the repeat, `+ k`.
fn repeat_len(ret: &str) -> String {
    format!(
        "fn fn0 \"r\"(int, int) -> int {{
block0(v0: int, v1: int):
    v2: int = iconst 7
    v3: [int] = array_repeat v2, v0 @1:1
    v4: int = array_len v3
    v5: int = iadd v4, v1
    print v5
{ret}}}
"
    )
}

#[test]
fn the_length_of_a_repeat_is_its_count() {
    let before = f(&repeat_len("    return v4\n"));
    let after = f(&repeat_len("    return v0\n"));
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}",
        validate(&before, &after)
    );
    // `n + k` is not the length.
    let wrong = f(&repeat_len("    return v5\n"));
    assert!(!validate(&before, &wrong).is_equal());
    let run2 = |func: &Function, n: i64| {
        let mut p = Program::default();
        p.funcs.push(func.clone());
        let mut host = ArrayHost::default();
        let interp = Interpreter::new(&p, &mut host);
        let r = interp.call(&mut host, FuncId::from_u32(0), &[n as u64, 2]);
        (r.map_err(|t| t.code), host.printed)
    };
    // A negative count traps at the repeat on both sides.
    for n in [-1, 0, 3] {
        assert_eq!(run2(&before, n), run2(&after, n), "{n}");
    }
}

/// `len` of `[7; n]` read back through a global: in the first round the
/// global read is not yet forwarded to the repeat, so the length read
/// walks past the repeat (not known to be its object) to the entry token;
/// once the address is the repeat's, that read below its creation is the
/// fresh read, `n`.
fn global_repeat_len(ret: &str) -> String {
    format!(
        "fn fn0 \"g\"(int) -> int {{
block0(v0: int):
    v2: int = iconst 7
    v3: [int] = array_repeat v2, v0 @1:1
    global_set g0, v3
    v4: [int] = global_get g0
    v5: int = array_len v4
    print v5
{ret}}}
"
    )
}

#[test]
fn a_length_read_through_a_global_below_the_repeat_is_its_count() {
    let before = f(&global_repeat_len("    return v5\n"));
    let after = f(&global_repeat_len("    return v0\n"));
    assert!(
        validate(&before, &after).is_equal(),
        "{:?}",
        validate(&before, &after)
    );
    let wrong = f(&global_repeat_len("    return v2\n"));
    assert!(!validate(&before, &wrong).is_equal());
}
