//! The validator's test cases of digest §5.7: P1–P12 (correct
//! transformations validate), F1–F6 (documented incompleteness), and the
//! IR filetests of every pass validated pass by pass. N1–N10 (mutants of
//! the real passes) are in `passes::fault`'s tests.

use super::*;
use crate::ir::{parse_function, parse_program};
use crate::passes::{Pipeline, PipelineOptions};

fn f(text: &str) -> Function {
    match parse_function(text) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// The verdict for `before` and `after` given as text.
pub(crate) fn verdict(before: &str, after: &str) -> Verdict {
    validate(&f(before), &f(after))
}

#[track_caller]
fn equal(before: &str, after: &str) {
    let v = verdict(before, after);
    assert!(v.is_equal(), "expected Equal, got {v:?}");
}

#[track_caller]
fn alarm(before: &str, after: &str) -> Report {
    match verdict(before, after) {
        Verdict::Alarm(r) => r,
        v => panic!("expected an alarm, got {v:?}"),
    }
}

#[test]
fn p1_constant_folding_and_shift() {
    equal(
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 3
    v2: int = iadd v1, v1
    v3: int = imul v0, v2
    v4: int = iadd v3, v3
    return v4
}",
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 6
    v2: int = imul v0, v1
    v3: int = iconst 1
    v4: int = ishl v2, v3
    return v4
}",
    );
}

#[test]
fn p2_reordered_and_renamed_block() {
    equal(
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iadd v0, v1
    v3: int = imul v0, v1
    v4: int = isub v2, v3
    return v4
}",
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v7: int = imul v1, v0
    v8: int = iadd v1, v0
    v9: int = isub v8, v7
    return v9
}",
    );
}

const P3_BEFORE: &str = "fn fn0 \"f\"(bool) -> int {
block0(v0: bool):
    br v0, block1, block2
block1:
    v1: int = iconst 1
    jump block3(v1, v1, v1)
block2:
    v2: int = iconst 2
    v3: int = iconst 1
    jump block3(v2, v2, v3)
block3(v4: int, v5: int, v6: int):
    v7: bool = icmp eq v4, v5
    br v7, block4, block5
block4:
    jump block6(v6)
block5:
    v8: int = iconst 0
    jump block6(v8)
block6(v9: int):
    return v9
}";

const RETURN_1: &str = "fn fn0 \"f\"(bool) -> int {
block0(v0: bool):
    v1: int = iconst 1
    return v1
}";

#[test]
fn p3_gvn_and_sccp_across_paths() {
    equal(P3_BEFORE, RETURN_1);
}

const P4_BEFORE: &str = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 3
    v3: int = iadd v0, v2
    v4: int = iconst 0
    jump block1(v4, v3)
block1(v5: int, v6: int):
    v7: bool = icmp lt v5, v1
    br v7, block2, block3(v6)
block2:
    v8: int = iadd v0, v2
    v9: int = iconst 1
    v10: int = iadd v5, v9
    jump block1(v10, v8)
block3(v11: int):
    return v11
}";

#[test]
fn p4_licm_constant_propagation_and_loop_deletion() {
    equal(
        P4_BEFORE,
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 3
    v3: int = iadd v2, v0
    return v3
}",
    );
}

#[test]
fn p5_zero_trip_loop_deleted() {
    equal(
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v0)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v1
    br v4, block2, block3(v3)
block2:
    v5: int = iconst 1
    v6: int = iadd v2, v5
    v7: int = imul v3, v3
    print v7
    jump block1(v6, v7)
block3(v8: int):
    return v8
}",
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    return v0
}",
    );
}

#[test]
fn p6_branch_inversion() {
    equal(
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: bool = icmp lt v0, v1
    br v2, block1, block2
block1:
    print v0
    jump block3(v0)
block2:
    print v1
    jump block3(v1)
block3(v3: int):
    return v3
}",
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: bool = icmp ge v0, v1
    br v2, block2, block1
block1:
    print v0
    jump block3(v0)
block2:
    print v1
    jump block3(v1)
block3(v3: int):
    return v3
}",
    );
}

#[test]
fn p7_store_forwarding_through_distinct_allocations() {
    equal(
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: [int] = array_lit [v2]
    v4: [int] = array_lit [v2]
    array_set v3, v2, v0
    array_set v4, v2, v1
    v5: int = array_get v3, v2
    return v5
}",
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: [int] = array_lit [v2]
    v4: [int] = array_lit [v2]
    array_set v3, v2, v0
    array_set v4, v2, v1
    return v0
}",
    );
}

#[test]
fn p8_loop_with_arrays_normalizes_to_a_shift() {
    // Govereau §2.4.2 with arrays for pointers: x == y on every path, so
    // t is always t1, and *t2 + *t2 is m << 1.
    equal(
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    v4: [int] = array_lit [v3]
    v5: [int] = array_lit [v1]
    jump block1(v2, v4)
block1(v6: int, v7: [int]):
    v8: bool = icmp lt v6, v0
    br v8, block2, block6(v7)
block2:
    v9: int = iconst 3
    v10: int = irem v6, v9
    v11: bool = icmp ne v10, v2
    br v11, block3, block4
block3:
    jump block5(v3, v3)
block4:
    v12: int = iconst 2
    jump block5(v12, v12)
block5(v13: int, v14: int):
    v15: bool = icmp eq v13, v14
    v16: int = iadd v6, v3
    br v15, block7, block8
block7:
    jump block9(v4)
block8:
    jump block9(v5)
block9(v17: [int]):
    jump block1(v16, v17)
block6(v18: [int]):
    v19: int = iconst 42
    array_set v18, v2, v19
    v20: int = array_get v5, v2
    v21: int = iadd v20, v20
    return v21
}",
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    v4: [int] = array_lit [v3]
    v5: [int] = array_lit [v1]
    jump block1(v2)
block1(v6: int):
    v8: bool = icmp lt v6, v0
    br v8, block2, block6
block2:
    v9: int = iconst 3
    v10: int = irem v6, v9
    v16: int = iadd v6, v3
    jump block1(v16)
block6:
    v19: int = iconst 42
    array_set v4, v2, v19
    v21: int = ishl v1, v3
    return v21
}",
    );
}

#[test]
fn p9_overwritten_store_removed() {
    equal(
        "fn fn0 \"f\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    v3: int = iconst 7
    array_set v0, v2, v3
    array_set v0, v2, v1
    return v1
}",
        "fn fn0 \"f\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    array_set v0, v2, v1
    return v1
}",
    );
}

const P10_BEFORE: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block3(v3)
block2:
    v5: int = imul v2, v2
    v6: int = iadd v3, v5
    v7: int = iconst 1
    v8: int = iadd v2, v7
    jump block1(v8, v6)
block3(v9: int):
    return v9
}";

#[test]
fn p10_isomorphic_loops_merge_by_refinement() {
    equal(
        P10_BEFORE,
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v12: int, v13: int):
    v14: bool = icmp gt v0, v13
    br v14, block2, block3(v12)
block2:
    v15: int = iconst 1
    v16: int = iadd v15, v13
    v17: int = imul v13, v13
    v18: int = iadd v17, v12
    jump block1(v18, v16)
block3(v9: int):
    return v9
}",
    );
}

#[test]
fn p11_nested_licm_to_the_outer_body() {
    let before = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v5)
block2:
    jump block3(v2, v5)
block3(v7: int, v8: int):
    v9: bool = icmp lt v7, v1
    br v9, block4, block5(v8)
block4:
    v10: int = imul v4, v4
    v11: int = iadd v8, v10
    v12: int = iadd v7, v3
    jump block3(v12, v11)
block5(v13: int):
    v14: int = iadd v4, v3
    jump block1(v14, v13)
block6(v15: int):
    return v15
}";
    let after = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v5)
block2:
    v10: int = imul v4, v4
    jump block3(v2, v5)
block3(v7: int, v8: int):
    v9: bool = icmp lt v7, v1
    br v9, block4, block5(v8)
block4:
    v11: int = iadd v10, v8
    v12: int = iadd v7, v3
    jump block3(v12, v11)
block5(v13: int):
    v14: int = iadd v4, v3
    jump block1(v14, v13)
block6(v15: int):
    return v15
}";
    equal(before, after);
}

#[test]
fn f1_reassociation_alarms() {
    let r = alarm(
        "fn fn0 \"f\"(int, int, int) -> int {
block0(v0: int, v1: int, v2: int):
    v3: int = iadd v0, v1
    v4: int = iadd v3, v2
    return v4
}",
        "fn fn0 \"f\"(int, int, int) -> int {
block0(v0: int, v1: int, v2: int):
    v3: int = iadd v1, v2
    v4: int = iadd v0, v3
    return v4
}",
    );
    assert_eq!(r.part, "result");
}

#[test]
fn f2_distributivity_alarms() {
    alarm(
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 3
    v3: int = imul v0, v2
    v4: int = imul v1, v2
    v5: int = iadd v3, v4
    return v5
}",
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 3
    v3: int = iadd v0, v1
    v4: int = imul v3, v2
    return v4
}",
    );
}

const F3_BEFORE: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1
block1:
    v2: bool = icmp lt v1, v0
    br v2, block2, block3
block2:
    jump block1
block3:
    return v0
}";

const F3_AFTER: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    return v0
}";

#[test]
fn f3_deleting_a_possibly_infinite_loop() {
    equal(F3_BEFORE, F3_AFTER);
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let v = validate_with(&f(F3_BEFORE), &f(F3_AFTER), &strict);
    assert!(matches!(v, Verdict::Alarm(_)), "{v:?}");
}

#[test]
fn f4_float_folds_are_exact() {
    // The validator folds with the interpreter, so an exact fold
    // validates (the digest's F4 asked for an alarm until folds are exact)
    // and an inexact one alarms.
    let before = "fn fn0 \"f\"() -> float {
block0:
    v0: float = fconst 0.1
    v1: float = fconst 0.2
    v2: float = fadd v0, v1
    return v2
}";
    let exact = format!(
        "fn fn0 \"f\"() -> float {{
block0:
    v0: float = fconst {:?}
    return v0
}}",
        0.1f64 + 0.2
    );
    equal(before, &exact);
    alarm(
        before,
        "fn fn0 \"f\"() -> float {
block0:
    v0: float = fconst 0.3
    return v0
}",
    );
}

#[test]
fn f5_irreducible_is_unsupported() {
    let irreducible = "fn fn0 \"f\"(bool) -> int {
block0(v0: bool):
    br v0, block1, block2
block1:
    jump block2
block2:
    br v0, block1, block3
block3:
    v1: int = iconst 1
    return v1
}";
    assert!(matches!(
        verdict(irreducible, RETURN_1),
        Verdict::Unsupported(_)
    ));
}

#[test]
fn f6_loop_moved_to_another_depth_alarms() {
    // An inner loop that does not depend on the outer one, hoisted out of
    // it: its μ depth changes from 2 to 1.
    let before = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v5)
block2:
    jump block3(v2, v2)
block3(v7: int, v8: int):
    v9: bool = icmp lt v7, v1
    br v9, block4, block5(v8)
block4:
    v11: int = iadd v8, v7
    v12: int = iadd v7, v3
    jump block3(v12, v11)
block5(v13: int):
    v14: int = iadd v4, v3
    jump block1(v14, v13)
block6(v15: int):
    return v15
}";
    let after = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block3(v2, v2)
block3(v7: int, v8: int):
    v9: bool = icmp lt v7, v1
    br v9, block4, block5(v8)
block4:
    v11: int = iadd v8, v7
    v12: int = iadd v7, v3
    jump block3(v12, v11)
block5(v13: int):
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v0
    br v6, block2, block6(v5)
block2:
    v14: int = iadd v4, v3
    jump block1(v14, v13)
block6(v15: int):
    return v15
}";
    alarm(before, after);
}

#[test]
fn a_changed_result_is_reported_with_its_location() {
    let r = alarm(
        P10_BEFORE,
        &P10_BEFORE.replace("v5: int = imul v2, v2", "v5: int = iadd v2, v2"),
    );
    assert!(r.before.contains("IMul"), "{r}");
    assert!(r.before_at.is_some(), "{r}");
}

/// Runs the passes named in each IR filetest with the validator attached
/// and checks that every changed function validates, except the passes
/// the validator cannot follow (see the module documentation).
#[test]
fn filetests_validate_pass_by_pass() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../lang-tests/tests/filetests");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("filetests directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    let mut validated = 0;
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("readable");
        // `test opt P, Q` (lang-tests/src/filetest); the IR parser reads
        // the rest, directives being `;` comments.
        let Some(passes) = text.lines().find_map(|l| l.strip_prefix("test opt ")) else {
            continue;
        };
        let names: Vec<&str> = passes.split(',').map(str::trim).collect();
        let input: String = text
            .lines()
            .filter(|l| !l.starts_with("test "))
            .map(|l| format!("{l}\n"))
            .collect();
        let Ok(mut program) = parse_program(&input) else {
            continue;
        };
        let Ok(pipeline) = Pipeline::from_names(&names) else {
            continue;
        };
        let mut v = Validator::default();
        v.set_program(&program);
        if pipeline
            .run(&mut program, &PipelineOptions::default(), &mut v)
            .is_err()
        {
            continue;
        }
        for s in &v.stats {
            validated += s.equal;
        }
        for finding in v.findings {
            failures.push(format!(
                "{}: {} in {}: {}",
                path.display(),
                finding.pass,
                finding.func,
                finding.message
            ));
        }
    }
    let expected_gaps = ["unroll", "peel", "bce", "unswitch", "jt", "js"];
    let unexpected: Vec<&String> = failures
        .iter()
        .filter(|f| {
            !expected_gaps
                .iter()
                .any(|p| f.contains(&format!(": {p} in ")))
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    // Every `test opt` filetest feeds this harness; most change something.
    assert!(validated > 10, "only {validated} validated");
}

/// 2189816: the loop depth is computed for every node, not only those a
/// round reaches. R8 reads facts such as a loop's continue condition that
/// the round may not reach; taken for invariant (depth 0), such a fact
/// would be carried across its loop's boundary (`Rules::below`).
#[test]
fn an_unreached_node_gets_the_depth_of_its_loop() {
    use super::graph::{Graph, Op};
    use super::refine::refine;
    use super::rules::Rules;
    use crate::ir::{BinaryOp, Cmp, Type};
    let mut g = Graph::new();
    let n = g.intern(Op::Param(0), Type::Int, Vec::new());
    let zero = g.konst(Type::Int, 0);
    let one = g.konst(Type::Int, 1);
    let i = g.open_mu(1, Type::Int, zero);
    let next = g.bin(BinaryOp::IAdd, Type::Int, i, one);
    g.patch_mu(i, next);
    // `i < n`, the loop's condition, reached by no root.
    let cont = g.cmp(BinaryOp::ICmp(Cmp::Lt), i, n);
    let not_cont = g.not(cont);
    let cls = refine(&g, &[n]);
    assert!(!cls.reached.contains(&cont));
    let rules = Rules::new(&mut g, &cls, false);
    assert_eq!(rules.depth_of(cont), 1);
    assert_eq!(rules.depth_of(not_cont), 1);
    assert_eq!(rules.depth_of(n), 0);
}

/// Chains of constant `+`/`-` as inlining leaves them: one in the entry,
/// one in a loop body (which `reassoc` leaves alone), one starting from the
/// loop's exit parameter.
const CONST_CHAINS: &str = "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 1
    v3: int = iconst 5
    v4: int = iconst 0
    v17: int = iadd v1, v2
    v18: int = isub v17, v3
    v19: int = iadd v2, v18
    jump block1(v4, v0)
block1(v5: int, v6: int):
    v7: bool = icmp lt v5, v19
    br v7, block2, block3(v6)
block2:
    v8: int = iadd v6, v2
    v9: int = iadd v8, v2
    v12: int = iadd v5, v2
    jump block1(v12, v9)
block3(v13: int):
    v14: int = isub v13, v3
    v15: int = isub v14, v3
    v16: int = iadd v15, v2
    return v16
}";

#[test]
fn r7_constant_chains_as_reassoc_folds_them_validate() {
    let mut p = parse_program(CONST_CHAINS).unwrap();
    let mut v = Validator::default();
    v.set_program(&p);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::from_names(&["canon", "reassoc"])
        .unwrap()
        .run(&mut p, &opts, &mut v)
        .unwrap();
    let row = v.stats.iter().find(|s| s.name == "reassoc").unwrap();
    assert_eq!((row.changed, row.equal), (1, 1), "{:?}", v.findings);
    let id = crate::ir::FuncId::from_u32(0);
    let after = crate::ir::print_function(&p, id);
    // v18 = v1 - 4, v19 = v1 - 3, v15 = v13 - 10, v16 = v13 - 9; the
    // loop body's v9 = v8 + 1 stays.
    for (line, op, base) in [
        ("v18: int", "isub", "v1"),
        ("v19: int", "isub", "v1"),
        ("v15: int", "isub", "v13"),
        ("v16: int", "isub", "v13"),
        ("v9: int", "iadd", "v8"),
    ] {
        assert!(
            after.contains(&format!("{line} = {op} {base}, ")),
            "{line}: {after}"
        );
    }
    // Both mean the same on a sample of inputs.
    let before = f(CONST_CHAINS);
    for n in [0, 4, 9] {
        for x in [0, 7, i64::MAX, i64::MIN] {
            assert_eq!(
                soundness::run(&before, [x, n]),
                soundness::run(&p.funcs[id], [x, n])
            );
        }
    }
}

#[test]
fn r7_a_wrong_constant_chain_alarms() {
    alarm(
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    v3: int = iadd v2, v1
    return v3
}",
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 3
    v2: int = iadd v0, v1
    return v2
}",
    );
    equal(
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 9223372036854775807
    v2: int = iadd v0, v1
    v3: int = iadd v2, v1
    return v3
}",
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 2
    v2: int = isub v0, v1
    return v2
}",
    );
}
