//! Two more shapes of loops unrolled by the real `unroll` pass (issue 14,
//! coverage of generated programs): a loop that returns `true` from its
//! body, so that the function's result is `p ∨ c` with `c` read from the
//! loop's exit token (R11 observes the operands of `∧`/`∨`,
//! [`super::observe`]); and a loop whose induction variable and test are
//! the same nodes as those of another loop the pass leaves alone (loop
//! doubling looks at the after side's own loops, [`super::unroll`]). Each
//! validates (and alarms with its rule taken out, checked by hand), a
//! wrong variant alarms, and property tests run every `Equal` on the
//! interpreter.

use super::testhost::ArrayHost;
use super::tests_exits::{before_after, run};
use super::*;
use crate::abi::{TrapCode, Word};
use crate::interp::Interpreter;
use crate::ir::{parse_function, print_function_as, FuncId, Program, Type};

/// `i = start; loop { i2 = i + step; if i2 cmp bound { break }; push(a,
/// i); if p { return true }; i = i2 }; return len(a) > k`.
fn returning(start: i64, step: i64, bound: i64, cmp: &str, k: i64) -> String {
    format!(
        "fn fn0 \"f\"([int], bool) -> bool {{
block0(v0: [int], v1: bool):
    v2: int = iconst {start}
    v3: int = iconst {step}
    v4: int = iconst {bound}
    v5: int = iconst {k}
    jump block1(v2)
block1(v6: int):
    v7: int = iadd v6, v3
    v8: bool = icmp {cmp} v7, v4
    br v8, block4, block2
block2:
    array_push v0, v6
    br v1, block5, block6
block5:
    v9: bool = bconst true
    return v9
block6:
    jump block1(v7)
block4:
    v10: int = array_len v0
    v11: bool = icmp gt v10, v5
    return v11
}}"
    )
}

/// What `f` returns and prints when called with a fresh array of `len`
/// elements and `p`, and the array's final length.
fn run_on_array(f: &Function, len: usize, p: bool) -> (Result<Word, TrapCode>, usize) {
    let mut prog = Program::default();
    prog.funcs.push(f.clone());
    let mut host = ArrayHost::default();
    let a = host.array_new_for_test(Type::Int, &vec![7; len]);
    let interp = Interpreter::new(&prog, &mut host);
    let r = interp
        .call(&mut host, FuncId::from_u32(0), &[a, Word::from(p)])
        .map_err(|t| t.code);
    // SAFETY: `a` is the address of an `ArrayObj` that `host` owns and
    // keeps alive (boxed) until it is dropped at the end of this function.
    let final_len = unsafe { (*(a as *const crate::abi::ArrayObj)).len } as usize;
    (r, final_len)
}

fn agree_on_arrays(a: &Function, b: &Function) -> Result<(), String> {
    for len in 0..5 {
        for p in [false, true] {
            let (x, y) = (run_on_array(a, len, p), run_on_array(b, len, p));
            if x != y {
                return Err(format!("on len {len}, p {p}: {x:?} vs {y:?}"));
            }
        }
    }
    Ok(())
}

/// The result is `φ{p → true, ¬p → len(a) > 3}`, built as `p ∨ (len(a) >
/// 3)`, and `len(a)` is read at the loop's exit token, a φ over `p` whose
/// `p` branch nothing observes (under `p` the function returned from the
/// body). The unrolled loop has one exit token, so the two compare only
/// once R11 restricts the φ to `¬p`, which the `∨` says.
#[test]
fn a_token_read_under_an_or_validates() {
    let text = returning(0, 1, 1, "gt", 3);
    let (before, after) = before_after(&text, &["unroll"]);
    assert_ne!(before, after, "the pass unrolls the loop");
    assert_eq!(validate(&before, &after), Verdict::Equal);
    let printed = print_function_as(&Program::default(), FuncId::from_u32(0), &after);
    assert!(printed.contains("icmp gt v10, v5"), "{printed}");
    let wrong = parse_function(&printed.replace("icmp gt v10, v5", "icmp ge v10, v5")).unwrap();
    assert!(agree_on_arrays(&before, &wrong).is_err());
    let v = validate(&before, &wrong);
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
}

/// Two loops `i = 0; while i + 1 <= n`: the first too large to unroll,
/// the second small. Their `i` and their test are the same nodes, so the
/// second's continue condition is shared with the after side (by the
/// first loop, which both sides have), although the after side has the
/// second loop only unrolled.
fn twin(n: i64, cmp: &str, step: i64) -> String {
    // More than `passes::unroll::MAX_INSTS` (40) instructions.
    let prints = "    print v6\n".repeat(41);
    format!(
        "fn fn0 \"f\"(int) -> int {{
block0(v0: int):
    v2: int = iconst 0
    v3: int = iconst {step}
    v4: int = iconst {n}
    jump block1(v2)
block1(v5: int):
    v6: int = iadd v5, v3
    v7: bool = icmp {cmp} v6, v4
    br v7, block3, block2
block2:
{prints}    jump block1(v6)
block3:
    jump block4(v2)
block4(v8: int):
    v9: int = iadd v8, v3
    v10: bool = icmp {cmp} v9, v4
    br v10, block6, block5
block5:
    print v9
    jump block4(v9)
block6:
    v11: int = iadd v9, v0
    return v11
}}"
    )
}

/// The second loop is doubled although its test is shared; its second
/// copy leaving with the trip before's value alarms.
#[test]
fn a_loop_sharing_its_test_with_a_loop_left_alone_validates() {
    let (before, after) = before_after(&twin(5, "gt", 1), &["unroll"]);
    assert_ne!(before, after, "the pass unrolls the second loop");
    assert_eq!(validate(&before, &after), Verdict::Equal);
    let printed = print_function_as(&Program::default(), FuncId::from_u32(0), &after);
    assert!(printed.contains("br v15, block6(v14), block8"), "{printed}");
    let wrong = parse_function(
        &printed.replace("br v15, block6(v14), block8", "br v15, block6(v13), block8"),
    )
    .unwrap();
    assert_ne!(run(&before, &[3]), run(&wrong, &[3]));
    let v = validate(&before, &wrong);
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
}

mod property {
    //! T2 for both shapes: random starts, steps, bounds and tests through
    //! `unroll` and up to two other passes, and hand mutations of the
    //! unrolled loops; every `Equal` is run on the interpreter.

    use proptest::prelude::*;

    use super::*;

    /// Tests that end every loop (the induction variable only grows).
    const CMP: &[&str] = &["gt", "ge"];
    const PASSES: &[&str] = &["sccp", "copyprop", "dce", "gvn", "licm", "jt", "straighten"];

    /// Wrong unrollings (of `unroll`'s output for the two shapes): the
    /// second copy pushes, prints or leaves with the first copy's value,
    /// starts from the trip's start, or the length is compared with `>=`.
    const MUTATIONS: &[(&str, &str)] = &[
        ("array_push v0, v12", "array_push v0, v6"),
        ("icmp gt v10, v5", "icmp ge v10, v5"),
        ("jump block7(v7)", "jump block7(v6)"),
        ("print v14", "print v13"),
        ("br v15, block6(v14), block8", "br v15, block6(v13), block8"),
    ];

    fn agree(before: &Function, after: &Function, arrays: bool) -> Result<(), String> {
        if arrays {
            return agree_on_arrays(before, after);
        }
        for x in [0u64, 1, 2, (-3i64) as u64] {
            if run(before, &[x]) != run(after, &[x]) {
                return Err(format!("on {x}"));
            }
        }
        Ok(())
    }

    fn right(text: &str, rest: &[usize], arrays: bool) -> Result<(), String> {
        let mut names = vec!["unroll"];
        names.extend(rest.iter().map(|&i| PASSES[i]));
        let (before, after) = before_after(text, &names);
        if validate(&before, &after) == Verdict::Equal {
            agree(&before, &after, arrays).map_err(|e| format!("{names:?}: {e}"))?;
        }
        Ok(())
    }

    fn wrong(text: &str, which: usize, arrays: bool) -> Result<(), String> {
        let (before, after) = before_after(text, &["unroll"]);
        let printed = print_function_as(&Program::default(), FuncId::from_u32(0), &after);
        let (from, to) = MUTATIONS[which];
        if !printed.contains(from) {
            return Ok(());
        }
        let Ok(bad) = parse_function(&printed.replace(from, to)) else {
            return Ok(());
        };
        if validate(&before, &bad) == Verdict::Equal {
            agree(&before, &bad, arrays).map_err(|e| format!("{from} -> {to}: {e}"))?;
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn equal_verdicts_of_returning_loops_agree(
            start in -2i64..3,
            step in 1i64..3,
            bound in -1i64..5,
            cmp in 0..CMP.len(),
            k in 0i64..4,
            rest in prop::collection::vec(0..PASSES.len(), 0..3),
            which in 0..MUTATIONS.len(),
        ) {
            let text = returning(start, step, bound, CMP[cmp], k);
            let r = right(&text, &rest, true).and_then(|_| wrong(&text, which, true));
            prop_assert!(r.is_ok(), "{text}\n{r:?}");
        }

        #[test]
        fn equal_verdicts_of_twin_loops_agree(
            n in -1i64..7,
            step in 1i64..3,
            cmp in 0..CMP.len(),
            rest in prop::collection::vec(0..PASSES.len(), 0..3),
            which in 0..MUTATIONS.len(),
        ) {
            let text = twin(n, CMP[cmp], step);
            let r = right(&text, &rest, false).and_then(|_| wrong(&text, which, false));
            prop_assert!(r.is_ok(), "{text}\n{r:?}");
        }
    }

    /// The properties are not vacuous: every twin loop and two thirds of
    /// the returning loops validate (the others run two trips or more
    /// before leaving, whose exit gates still differ), and every wrong
    /// unrolling that changes the behaviour alarms.
    #[test]
    fn right_loops_validate_and_wrong_ones_are_caught() {
        // (unrolled, validated) per shape: returning, twin.
        let mut counts = [(0, 0); 2];
        let (mut bad, mut caught) = (0, 0);
        for seed in 0..24i64 {
            let cmp = CMP[(seed % 2) as usize];
            let step = 1 + seed % 2;
            for (shape, text) in [
                returning(seed % 3 - 1, step, seed % 5, cmp, seed % 4),
                twin(seed % 7, cmp, step),
            ]
            .into_iter()
            .enumerate()
            {
                let arrays = shape == 0;
                let (before, after) = before_after(&text, &["unroll"]);
                if before == after {
                    continue;
                }
                counts[shape].0 += 1;
                counts[shape].1 += usize::from(validate(&before, &after).is_equal());
                let printed = print_function_as(&Program::default(), FuncId::from_u32(0), &after);
                for (from, to) in MUTATIONS {
                    if !printed.contains(from) {
                        continue;
                    }
                    let Ok(w) = parse_function(&printed.replace(from, to)) else {
                        continue;
                    };
                    if agree(&before, &w, arrays).is_err() {
                        bad += 1;
                        caught += usize::from(!validate(&before, &w).is_equal());
                    }
                }
            }
        }
        let [(rn, re), (tn, te)] = counts;
        assert!(rn >= 20 && tn >= 20, "{rn} and {tn} loops unrolled");
        assert!(re * 3 >= rn * 2, "{re} of {rn} returning loops validate");
        assert_eq!(te, tn, "{te} of {tn} twin loops validate");
        assert!(bad >= 10, "{bad} wrong unrollings");
        assert_eq!(caught, bad, "{caught} of {bad} wrong unrollings caught");
    }
}
