//! Loops unrolled by the real `unroll` pass whose exits need more than
//! matching loops: a loop that runs once (the after side's unrolled loop
//! is peeled away, the original must be doubled first, [`super::unroll`]),
//! an exit through a loop-invariant flag (exit diagrams keep invariant
//! atoms, [`super::gates`]), and the exit token of a loop that returns
//! from its body, read under a gate that the observation condition's
//! syntax hides ([`super::observe`]). Each validates, a wrong variant
//! alarms, and a property test runs every `Equal` on the interpreter.

use super::testhost::ArrayHost;
use super::*;
use crate::abi::{TrapCode, Word};
use crate::interp::Interpreter;
use crate::ir::{parse_program, FuncId, Program, Type};
use crate::passes::{Pipeline, PipelineOptions};

pub(super) fn program(text: &str) -> Program {
    match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Function 0 of `text` in canonical form, and after `passes`.
pub(super) fn before_after(text: &str, passes: &[&str]) -> (Function, Function) {
    let mut p = program(text);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon"])
        .unwrap()
        .run(&mut p, &opts, &mut ())
        .unwrap();
    let before = p.funcs[FuncId::from_u32(0)].clone();
    Pipeline::from_names(passes)
        .unwrap()
        .run(&mut p, &opts, &mut ())
        .unwrap();
    (before, p.funcs[FuncId::from_u32(0)].clone())
}

/// What `f` returns and prints on `args`.
pub(super) fn run(f: &Function, args: &[Word]) -> (Result<Word, TrapCode>, Vec<(Type, Word)>) {
    let mut p = Program::default();
    p.funcs.push(f.clone());
    let mut host = ArrayHost::default();
    let interp = Interpreter::new(&p, &mut host);
    let r = interp
        .call(&mut host, FuncId::from_u32(0), args)
        .map_err(|t| t.code);
    (r, host.printed.clone())
}

/// `for i in 0..1 { print(i) }`: the loop runs once.
const ONCE: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1)
block1(v3: int):
    v4: bool = icmp lt v3, v2
    br v4, block2, block3
block2:
    print v3
    v5: int = iadd v3, v2
    jump block1(v5)
block3:
    return v0
}";

/// [`ONCE`] unrolled by hand, the first copy printing `p1`.
fn once_unrolled(p1: &str) -> Function {
    crate::ir::parse_function(&format!(
        "fn fn0 \"f\"(int) -> int {{
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1)
block1(v3: int):
    v4: bool = icmp lt v3, v2
    br v4, block2, block3
block2:
    print {p1}
    v5: int = iadd v3, v2
    jump block4(v5)
block3:
    return v0
block4(v6: int):
    v7: bool = icmp lt v6, v2
    br v7, block5, block3
block5:
    print v6
    v8: int = iadd v6, v2
    jump block1(v8)
}}"
    ))
    .unwrap()
}

/// The unrolled loop leaves in its first trip, so R4's peel removes it
/// from the after side; the original is doubled although the after side
/// has no loop left. Printing the wrong value in the first copy alarms.
#[test]
fn a_loop_that_runs_once_validates_against_its_unrolled_copy() {
    let (before, after) = before_after(ONCE, &["unroll"]);
    assert_ne!(before, after, "the pass unrolls the loop");
    assert_eq!(validate(&before, &after), Verdict::Equal);
    assert_eq!(validate(&before, &once_unrolled("v3")), Verdict::Equal);
    assert!(matches!(
        validate(&before, &once_unrolled("v2")),
        Verdict::Alarm(_)
    ));
}

/// `while flag && i < n { print(i); i += 1 }; return i`: each copy of the
/// unrolled loop tests the invariant `flag`, so its exit gates are
/// `¬flag ∨ η(c, flag ∧ i ≥ n)` against the original's `η(c, ¬flag ∨ i ≥
/// n)`.
const FLAG: &str = "fn fn0 \"f\"(int, bool) -> int {
block0(v0: int, v1: bool):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2)
block1(v4: int):
    br v1, block2, block4
block2:
    v5: bool = icmp lt v4, v0
    br v5, block3, block4
block3:
    print v4
    v6: int = iadd v4, v3
    jump block1(v6)
block4:
    return v4
}";

/// The unrolled loop validates; a second copy that leaves through its
/// `i < n` test with the value of the trip before alarms (leaving through
/// its `flag` test never happens: the first copy tested `flag` already).
#[test]
fn an_exit_through_an_invariant_flag_validates() {
    let (before, after) = before_after(FLAG, &["unroll"]);
    assert_ne!(before, after, "the pass unrolls the loop");
    assert_eq!(validate(&before, &after), Verdict::Equal);
    let text = crate::ir::print_function_as(&Program::default(), FuncId::from_u32(0), &after);
    assert!(text.contains("br v9, block7, block4(v8)"), "{text}");
    let wrong = crate::ir::parse_function(
        &text.replace("br v9, block7, block4(v8)", "br v9, block7, block4(v4)"),
    )
    .unwrap();
    let v = validate(&before, &wrong);
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
}

/// A loop that runs once and returns from its body under `e`; after it,
/// `if len(g) > 1 { pop(g) }` reads the loop's exit token, which is a φ
/// over `e`. R11 must see that the token is observed only under `¬e`
/// although the observation condition's syntax tests `len(g)`, which
/// reads the token.
const RETURN_IN_BODY: &str = "global g0 \"g\": [int]
fn fn0 \"f\"(bool) -> void {
block0(v0: bool):
    v2: int = iconst -1
    v3: int = iconst 0
    v4: int = iconst 1
    jump block1(v2)
block1(v5: int):
    v6: bool = icmp lt v5, v3
    br v6, block2, block4
block2:
    v11: [int] = global_get g0
    global_set g0, v11
    br v0, block5, block6
block5:
    return
block6:
    v7: int = iadd v5, v4
    jump block1(v7)
block4:
    v12: [int] = global_get g0
    v8: int = array_len v12
    v9: bool = icmp gt v8, v4
    br v9, block7, block8
block7:
    v13: [int] = global_get g0
    v10: int = array_pop v13
    jump block8
block8:
    print v4
    return
}";

/// The unrolled loop validates; popping under the wrong test alarms.
#[test]
fn an_exit_token_observed_under_a_hidden_gate_validates() {
    let (before, after) = before_after(RETURN_IN_BODY, &["unroll"]);
    assert_ne!(before, after, "the pass unrolls the loop");
    assert_eq!(validate(&before, &after), Verdict::Equal);
    let text = crate::ir::print_function_as(&program(RETURN_IN_BODY), FuncId::from_u32(0), &after);
    assert!(text.contains("icmp gt v8, v4"), "{text}");
    let bad = crate::ir::parse_function(&text.replace("icmp gt v8, v4", "icmp ge v8, v4")).unwrap();
    assert!(matches!(validate(&before, &bad), Verdict::Alarm(_)));
}

mod property {
    //! T2 for the three rules: random loops of the three shapes above
    //! (start, bound, step, comparison and flag picked at random) through
    //! `unroll` and up to three other passes; every `Equal` is run on the
    //! interpreter and must return and print the same.

    use proptest::prelude::*;

    use super::*;

    const CMP: &[&str] = &["lt", "le", "ne", "gt"];
    const PASSES: &[&str] = &["sccp", "copyprop", "dce", "gvn", "licm", "jt", "straighten"];

    /// `i = start; while flag? && i cmp bound { print(i * k); if ret? &&
    /// i == stop { return i } i += step }; return i + n`.
    fn render(start: i64, bound: i64, step: i64, cmp: &str, flag: bool, ret: bool) -> String {
        let guard = if flag {
            "br v1, block2, block4"
        } else {
            "jump block2"
        };
        let body_end = if ret {
            "v9: bool = icmp eq v4, v0
    br v9, block5, block6
block5:
    return v4
block6:
    v6: int = iadd v4, v3
    jump block1(v6)"
        } else {
            "v6: int = iadd v4, v3
    jump block1(v6)"
        };
        format!(
            "fn fn0 \"f\"(int, bool) -> int {{
block0(v0: int, v1: bool):
    v2: int = iconst {start}
    v3: int = iconst {step}
    v10: int = iconst {bound}
    jump block1(v2)
block1(v4: int):
    {guard}
block2:
    v5: bool = icmp {cmp} v4, v10
    br v5, block3, block4
block3:
    v8: int = imul v4, v3
    print v8
    {body_end}
block4:
    v7: int = iadd v4, v0
    return v7
}}"
        )
    }

    const ARGS: &[[Word; 2]] = &[[0, 0], [1, 1], [2, 1], [3, 0], [(-1i64) as u64, 1], [5, 1]];

    fn agree(a: &Function, b: &Function) -> Result<(), String> {
        for args in ARGS {
            let (ra, rb) = (run(a, args), run(b, args));
            if ra != rb {
                return Err(format!("on {args:?}: {ra:?} vs {rb:?}"));
            }
        }
        Ok(())
    }

    /// `text` with the last occurrence of `from` replaced by `to`.
    fn replace_last(text: &str, from: &str, to: &str) -> String {
        match text.rfind(from) {
            Some(i) => format!("{}{to}{}", &text[..i], &text[i + from.len()..]),
            None => text.to_string(),
        }
    }

    /// A wrong unrolling: the second copy prints `i * n` (0) or `i +
    /// step` (1), or the last return gives `n` (2). Each still ends (a
    /// mutation that never ends would print without bound).
    fn mutate(printed: &str, which: usize) -> String {
        match which {
            0 => replace_last(printed, ", v3\n    print", ", v0\n    print"),
            1 => replace_last(printed, "imul", "iadd"),
            _ => match printed.rfind("return v") {
                Some(i) => {
                    let rest = &printed[i + 8..];
                    let digits =
                        rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                    format!("{}return v0{}", &printed[..i], &rest[digits..])
                }
                None => printed.to_string(),
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn equal_verdicts_of_unrolled_exits_agree(
            start in -3i64..3,
            len in 0i64..4,
            step in 1i64..3,
            cmp in 0..CMP.len(),
            flag in any::<bool>(),
            ret in any::<bool>(),
            rest in prop::collection::vec(0..PASSES.len(), 0..3),
        ) {
            let text = render(start, start + len * step, step, CMP[cmp], flag, ret);
            let mut names = vec!["unroll"];
            names.extend(rest.iter().map(|&i| PASSES[i]));
            let (before, after) = before_after(&text, &names);
            if validate(&before, &after) == Verdict::Equal {
                prop_assert!(agree(&before, &after).is_ok(), "{text}\n{names:?}: {:?}", agree(&before, &after));
            }
        }

        /// Wrong unrollings: the second copy's exit edge or printed value
        /// changed by hand.
        #[test]
        fn equal_verdicts_of_wrong_unrollings_agree(
            start in -3i64..3,
            len in 0i64..4,
            step in 1i64..3,
            cmp in 0..CMP.len(),
            flag in any::<bool>(),
            ret in any::<bool>(),
            which in 0usize..3,
        ) {
            let text = render(start, start + len * step, step, CMP[cmp], flag, ret);
            let (before, after) = before_after(&text, &["unroll"]);
            let printed = crate::ir::print_function_as(&Program::default(), FuncId::from_u32(0), &after);
            let mutated = mutate(&printed, which);
            let Ok(wrong) = crate::ir::parse_function(&mutated) else {
                return Ok(());
            };
            if validate(&before, &wrong) == Verdict::Equal {
                prop_assert!(agree(&before, &wrong).is_ok(), "{text}\n---\n{mutated}\n{:?}", agree(&before, &wrong));
            }
        }
    }

    /// The properties are not vacuous: most unrolled loops validate, and
    /// every wrong one that changes the behaviour alarms.
    #[test]
    fn right_unrollings_validate_and_wrong_ones_are_caught() {
        let (mut right, mut n, mut wrong, mut caught) = (0, 0, 0, 0);
        for seed in 0..48i64 {
            let (start, len, step) = (seed % 5 - 2, seed % 4, 1 + seed % 2);
            let cmp = CMP[(seed / 4) as usize % CMP.len()];
            let (flag, ret) = (seed % 3 == 0, seed % 7 < 3);
            let text = render(start, start + len * step, step, cmp, flag, ret);
            let (before, after) = before_after(&text, &["unroll"]);
            if before == after {
                continue;
            }
            n += 1;
            right += usize::from(validate(&before, &after).is_equal());
            let printed =
                crate::ir::print_function_as(&Program::default(), FuncId::from_u32(0), &after);
            for which in 0..3 {
                let Ok(bad) = crate::ir::parse_function(&mutate(&printed, which)) else {
                    continue;
                };
                if agree(&before, &bad).is_err() {
                    wrong += 1;
                    caught += usize::from(!validate(&before, &bad).is_equal());
                }
            }
        }
        assert!(n > 20, "{n} loops unrolled");
        assert!(
            right * 10 >= n * 9,
            "{right} of {n} unrolled loops validate"
        );
        assert_eq!(caught, wrong, "{caught} of {wrong} wrong unrollings caught");
    }
}
