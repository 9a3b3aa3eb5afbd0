//! Functions after jump threading (`jt`, Fritz §9.3) whose gates the
//! builder splits as the threaded CFG has them (`build::split`), and the
//! `&&`/`||` gates that R3 must simplify alike on both sides
//! (`Rules::simplify_and`): each validates, and a wrong variant of the
//! threaded function alarms.

use super::*;
use crate::ir::{parse_program, Program};
use crate::passes::{Pipeline, PipelineOptions};

/// `for i in 0..n { if tb(1, a[i % 3] > 0) && tb(2, a[(i + 1) % 3] > 1)
/// { s += 1 } else { print(i) } } return s`: the `&&` inside a loop body,
/// which `jt` threads into the else block.
const AND_IN_LOOP: &str = "fn fn0 \"tb\"(int, bool) -> bool {
block0(v0: int, v1: bool):
    print v0
    return v1
}

fn fn1 \"f\"(int, [int]) -> int @3:4 {
block0(v0: int, v1: [int]):
    v2: int = iconst 0
    v3: int = iconst 0
    jump block1(v3, v2)
block1(v4: int, v25: int):
    v5: bool = icmp lt v4, v0
    br v5, block2, block4
block2:
    v6: int = iconst 1
    v8: int = iconst 3
    v9: int = irem v4, v8 @6:22
    bounds_check v1, v9 @6:19
    v10: int = array_get v1, v9
    v11: int = iconst 0
    v12: bool = icmp gt v10, v11
    v13: bool = call fn0 \"tb\"(v6, v12) @6:12
    br v13, block5, block6(v13)
block5:
    v15: int = iconst 2
    v16: int = iconst 1
    v17: int = iadd v4, v16
    v18: int = iconst 3
    v19: int = irem v17, v18 @6:51
    bounds_check v1, v19 @6:42
    v20: int = array_get v1, v19
    v21: int = iconst 1
    v22: bool = icmp gt v20, v21
    v23: bool = call fn0 \"tb\"(v15, v22) @6:35
    jump block6(v23)
block6(v14: bool):
    br v14, block7, block8
block7:
    v26: int = iconst 1
    v27: int = iadd v25, v26
    jump block9(v27)
block8:
    print v4
    jump block9(v25)
block9(v33: int):
    jump block3
block3:
    v29: int = iconst 1
    v30: int = iadd v4, v29
    jump block1(v30, v33)
block4:
    return v25
}";

fn program(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Runs `passes` on `text` with the validator attached; returns the
/// program before and after, and the row of pass `row`.
fn run(text: &str, passes: &[&str], row: &str) -> (Program, Program, PassStats, Vec<Finding>) {
    let before = program(text);
    let mut p = before.clone();
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(passes)
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let stats = v.stats.iter().find(|s| s.name == row).unwrap().clone();
    (before, p, stats, v.findings)
}

/// The else block of the threaded `&&` is a join of the two operands'
/// false edges; the original's else block runs on the φ of the `&&`
/// join. Both are gated alike once the builder splits the join's φ's by
/// the branch on its parameter.
#[test]
fn an_and_threaded_into_its_else_block_in_a_loop_validates() {
    let (_, _, row, findings) = run(AND_IN_LOOP, &["canon", "jt"], "jt");
    assert!(row.changed >= 1, "{row:?}");
    assert_eq!(row.equal, row.changed, "{findings:?}");
}

/// [`AND_IN_LOOP`] with the first operand's false edge sent straight to
/// `target` (threaded by hand), canonicalized.
fn hand_threaded(target: &str) -> (Function, Function) {
    let before = program(AND_IN_LOOP);
    let text = AND_IN_LOOP.replace(
        "br v13, block5, block6(v13)",
        &format!("br v13, block5, {target}"),
    );
    let after = program(&text);
    let f = |p: &Program| {
        let mut g = p.funcs.values().find(|f| f.name == "f").unwrap().clone();
        crate::canon::canonicalize(&mut g);
        g
    };
    (f(&before), f(&after))
}

/// Threaded by hand into the else block (`block8`), as `jt` does.
#[test]
fn an_and_threaded_by_hand_validates() {
    let (before, after) = hand_threaded("block8");
    assert!(validate(&before, &after).is_equal());
}

/// The first operand's false edge sent to the then block (`block7`)
/// counts when only `a` holds: the threaded gates must not hide it.
#[test]
fn an_and_threaded_into_the_wrong_block_alarms() {
    let (before, after) = hand_threaded("block7");
    assert!(matches!(validate(&before, &after), Verdict::Alarm(_)));
}

/// `if at_bool(g, p) { print(1) } else { print(2) }` with the generated
/// programs' `at_bool` (three returns). Inlined, the returns meet in a
/// join that only branches on the returned value, which `jt` threads
/// into both arms; the builder splits the join's φ's by that branch
/// (`split_phi`), as it splits the unfolded call's on the original side.
const BRANCH_ON_CALL: &str = "global g0 \"g\": [bool]

fn fn0 \"at_bool\"([bool], int) -> bool @1:4 {
block0(v0: [bool], v1: int):
    v2: int = array_len v0
    v3: int = iconst 0
    v4: bool = icmp eq v2, v3
    br v4, block1, block2
block1:
    v5: bool = bconst false
    return v5
block2:
    v6: int = array_len v0
    v7: int = irem v1, v6 @3:15
    v8: int = iconst 0
    v9: bool = icmp lt v7, v8
    br v9, block3, block4
block3:
    v10: int = array_len v0
    v11: int = iadd v7, v10
    bounds_check v0, v11 @4:24
    v12: bool = array_get v0, v11
    return v12
block4:
    bounds_check v0, v7 @5:13
    v13: bool = array_get v0, v7
    return v13
}

fn fn1 \"f\"(int) -> int @8:4 {
block0(v0: int):
    v1: [bool] = global_get g0
    v2: bool = call fn0 \"at_bool\"(v1, v0) @9:8
    br v2, block1, block2
block1:
    v3: int = iconst 1
    print v3
    jump block3
block2:
    v4: int = iconst 2
    print v4
    jump block3
block3:
    v5: int = iconst 0
    return v5
}";

#[test]
fn a_branch_on_an_inlined_call_with_several_returns_validates() {
    let passes = ["canon", "inline", "jt"];
    for pass in ["inline", "jt"] {
        let (_, _, row, findings) = run(BRANCH_ON_CALL, &passes, pass);
        assert!(row.changed >= 1, "{row:?}");
        assert_eq!(row.equal, row.changed, "{pass}: {findings:?}");
    }
}

/// `a || b` threaded by hand: the first operand's true edge goes
/// straight to the then block. The else gate is `¬(a ∨ (¬a ∧ b))` on
/// one side and `¬a ∧ ¬b` on the other (`Rules::simplify_and`).
#[test]
fn an_or_threaded_into_its_then_block_validates() {
    let or = AND_IN_LOOP.replace("br v13, block5, block6(v13)", "br v13, block6(v13), block5");
    let before = program(&or);
    let after = program(&or.replace("br v13, block6(v13), block5", "br v13, block7, block5"));
    let f = |p: &Program| {
        let mut g = p.funcs.values().find(|f| f.name == "f").unwrap().clone();
        crate::canon::canonicalize(&mut g);
        g
    };
    assert!(validate(&f(&before), &f(&after)).is_equal());
}

mod property {
    //! Soundness of the threaded gates (T2 of digest §5.7 for `thread`):
    //! random loops with a short-circuit `&&` or `||` in their body, as
    //! the real `jt` (and the passes after it) leave them or with the
    //! first operand's edge threaded by hand to every block, right or
    //! wrong. Every `Equal` verdict is run on the interpreter.

    use proptest::prelude::*;

    use super::super::soundness::{agree, BIN, CMP};
    use super::super::{validate, Verdict};
    use crate::ir::{parse_function, FuncId, Function, Program};
    use crate::passes::{Pipeline, PipelineOptions};

    /// The loop: `for i in 0..(v0 & 3) { if a && b (or a || b) { acc =
    /// acc op_t i } else { acc = acc op_e v0 } }` with `a = (acc op_a i)
    /// cmp_a k_a` and `b = (acc op_b v1) cmp_b k_b`; `first` is the first
    /// operand's branch.
    fn render(ops: [usize; 4], cmps: [usize; 2], ks: [i64; 2], first: &str) -> String {
        let b = |i: usize| BIN[ops[i] % BIN.len()];
        let c = |i: usize| CMP[cmps[i] % CMP.len()];
        format!(
            "fn fn0 \"f\"(int, int) -> int {{
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 3
    v4: int = iand v0, v3
    jump block1(v2, v1)
block1(v5: int, v6: int):
    v7: bool = icmp lt v5, v4
    br v7, block2, block9(v6)
block2:
    v8: int = {} v6, v5
    v9: int = iconst {}
    v10: bool = icmp {} v8, v9
    {first}
block3:
    v11: int = {} v6, v1
    v12: int = iconst {}
    v13: bool = icmp {} v11, v12
    jump block4(v13)
block4(v14: bool):
    br v14, block5, block6
block5:
    v15: int = {} v6, v5
    jump block7(v15)
block6:
    v16: int = {} v6, v0
    jump block7(v16)
block7(v17: int):
    v18: int = iconst 1
    v19: int = iadd v5, v18
    jump block1(v19, v17)
block9(v20: int):
    return v20
}}
",
            b(0),
            ks[0],
            c(0),
            b(1),
            ks[1],
            c(1),
            b(2),
            b(3)
        )
    }

    /// The first operand's branch of `&&` (`or` false) or `||` (true).
    fn first(or: bool, to: Option<&str>) -> String {
        let join = "block4(v10)";
        match (or, to) {
            (false, None) => format!("br v10, block3, {join}"),
            (true, None) => format!("br v10, {join}, block3"),
            (false, Some(t)) => format!("br v10, block3, {t}"),
            (true, Some(t)) => format!("br v10, {t}, block3"),
        }
    }

    const TARGETS: &[&str] = &["block4(v10)", "block5", "block6", "block3", "block7(v6)"];
    const PASSES: &[&str] = &["jt", "js", "sccp", "copyprop", "dce", "straighten", "gvn"];

    fn canonical(text: &str) -> Option<Function> {
        let mut f = parse_function(text).ok()?;
        crate::canon::canonicalize(&mut f);
        Some(f)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// The real passes, `jt` first.
        #[test]
        fn equal_verdicts_of_threaded_short_circuits_agree(
            ops in any::<[usize; 4]>(),
            cmps in any::<[usize; 2]>(),
            ks in any::<[i8; 2]>(),
            or in any::<bool>(),
            rest in prop::collection::vec(0..PASSES.len(), 0..4),
        ) {
            let ks = [i64::from(ks[0]), i64::from(ks[1])];
            let text = render(ops, cmps, ks, &first(or, None));
            let before = canonical(&text).expect("generated IR parses");
            let mut program = Program::default();
            program.funcs.push(before.clone());
            let mut names = vec!["jt"];
            names.extend(rest.iter().map(|&i| PASSES[i]));
            let opts = PipelineOptions { verify: false, time: false };
            Pipeline::from_names(&names).unwrap().run(&mut program, &opts, &mut ()).unwrap();
            let after = &program.funcs[FuncId::from_u32(0)];
            if validate(&before, after) == Verdict::Equal {
                prop_assert!(agree(&before, after).is_ok(), "{text}\n{names:?}: {:?}", agree(&before, after));
            }
        }

        /// The first operand's edge sent by hand to any block.
        #[test]
        fn equal_verdicts_of_hand_threaded_edges_agree(
            ops in any::<[usize; 4]>(),
            cmps in any::<[usize; 2]>(),
            ks in any::<[i8; 2]>(),
            or in any::<bool>(),
            to in 0..TARGETS.len(),
        ) {
            let ks = [i64::from(ks[0]), i64::from(ks[1])];
            let text = render(ops, cmps, ks, &first(or, None));
            let threaded = render(ops, cmps, ks, &first(or, Some(TARGETS[to])));
            let (Some(a), Some(b)) = (canonical(&text), canonical(&threaded)) else {
                return Ok(());
            };
            if validate(&a, &b) == Verdict::Equal {
                prop_assert!(agree(&a, &b).is_ok(), "{text}\n---\n{threaded}\n{:?}", agree(&a, &b));
            }
        }
    }

    /// The property above is not vacuous: the right threading (`&&`'s
    /// false edge to the else block, `||`'s true edge to the then block)
    /// validates, and most wrong ones that change the result alarm.
    #[test]
    fn right_threadings_validate_and_wrong_ones_are_caught() {
        let (mut right, mut caught, mut wrong) = (0, 0, 0);
        let mut n = 0;
        for seed in 0..60usize {
            let ops = [seed, seed / 3 + 1, seed / 5 + 2, seed / 7 + 3];
            let cmps = [seed, seed / 2 + 1];
            let ks = [(seed % 7) as i64 - 3, (seed % 5) as i64 - 2];
            let or = seed % 2 == 1;
            let text = render(ops, cmps, ks, &first(or, None));
            let a = canonical(&text).unwrap();
            let good = if or { "block5" } else { "block6" };
            let b = canonical(&render(ops, cmps, ks, &first(or, Some(good)))).unwrap();
            n += 1;
            right += usize::from(validate(&a, &b).is_equal());
            for t in ["block3", if or { "block6" } else { "block5" }] {
                let b = canonical(&render(ops, cmps, ks, &first(or, Some(t)))).unwrap();
                if agree(&a, &b).is_err() {
                    wrong += 1;
                    caught += usize::from(!validate(&a, &b).is_equal());
                }
            }
        }
        assert!(
            right * 10 >= n * 9,
            "{right} of {n} right threadings validate"
        );
        assert_eq!(caught, wrong, "{caught} of {wrong} wrong threadings caught");
        assert!(wrong > 10);
    }
}
