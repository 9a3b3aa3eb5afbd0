//! N1–N10 of digest §5.7: ten deliberately buggy variants of the real
//! passes (switched on by the test-only `passes::fault`), each run on a
//! program where it misbehaves. Every one must be caught, and the same
//! pass without the fault must validate on the same program.

use super::*;
use crate::ir::parse_program;
use crate::passes::fault::{inject, Fault};
use crate::passes::{Pipeline, PipelineOptions};

/// Runs `passes` over `program` with the validator attached; returns the
/// verdict counts (equal, alarms, unsupported) over the changed runs.
fn run(program: &str, passes: &[&str]) -> (u32, u32, u32, Vec<String>) {
    let mut p = parse_program(program).expect("parses");
    let mut v = Validator::default();
    let opts = PipelineOptions {
        verify: false,
        time: false,
    };
    Pipeline::from_names(passes)
        .expect("registered")
        .run(&mut p, &opts, &mut v)
        .expect("runs");
    let (mut e, mut a, mut u) = (0, 0, 0);
    for s in &v.stats {
        e += s.equal;
        a += s.alarms;
        u += s.unsupported;
    }
    (e, a, u, v.findings.into_iter().map(|f| f.message).collect())
}

/// Runs `passes` and then `dce` over `program` and validates the result
/// with [`validate_pipeline`] (single comparison, then per-pass chains);
/// returns (functions, validated, validated by chain).
fn whole(program: &str, passes: &[&str]) -> (u32, u32, u32) {
    let before = parse_program(program).expect("parses");
    let mut canonical = before.clone();
    for f in canonical.funcs.values_mut() {
        if !f.is_declaration() {
            crate::canon::canonicalize(f);
        }
    }
    let names: Vec<&str> = passes.iter().copied().chain(["dce"]).collect();
    let pipeline = Pipeline::from_names(&names).expect("registered");
    let opts = PipelineOptions {
        verify: false,
        time: false,
    };
    let mut after = before;
    pipeline.run(&mut after, &opts, &mut ()).expect("runs");
    let v = validate_pipeline(&canonical, &after, &pipeline, &Options::default());
    (v.total, v.equal, v.chained)
}

#[track_caller]
fn caught(fault: Fault, program: &str, passes: &[&str]) {
    let (_, alarms, unsupported, msgs) = inject(fault, || run(program, passes));
    assert!(alarms >= 1, "{fault:?} not caught: {msgs:?}");
    assert_eq!(unsupported, 0, "{msgs:?}");
    // Neither the single comparison nor a per-pass chain (which runs the
    // faulty pass again) lets the planted bug through.
    let (total, equal, _) = inject(fault, || whole(program, passes));
    assert!(equal < total, "{fault:?} validated over the pipeline");
    let (total, equal, chained) = whole(program, passes);
    assert_eq!((equal, chained), (total, 0), "correct pipeline alarms");
    let (_, alarms, unsupported, msgs) = run(program, passes);
    assert_eq!(
        (alarms, unsupported),
        (0, 0),
        "correct pass alarms: {msgs:?}"
    );
}

#[test]
fn n1_sccp_folds_to_the_wrong_edge() {
    caught(
        Fault::SccpWrongEdge,
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: bool = bconst true
    br v1, block1, block2
block1:
    jump block3(v0)
block2:
    v2: int = iconst 0
    jump block3(v2)
block3(v3: int):
    return v3
}",
        &["sccp"],
    );
}

#[test]
fn n2_gvn_commutes_subtraction() {
    caught(
        Fault::GvnCommutes,
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = isub v0, v1
    v3: int = isub v1, v0
    v4: int = imul v2, v3
    return v4
}",
        &["gvn"],
    );
}

#[test]
fn n3_condition_inverted_without_swapping_targets() {
    caught(
        Fault::InvertedCondition,
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
        &["is"],
    );
}

const LOAD_LOOP: &str = "fn fn0 \"f\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    v8: int = iconst 1
    jump block1(v2, v2)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v1
    br v5, block2, block3(v4)
block2:
    bounds_check v0, v2
    v6: int = array_get v0, v2
    v7: int = iadd v4, v6
    array_set v0, v2, v3
    v9: int = iadd v3, v8
    jump block1(v9, v7)
block3(v10: int):
    return v10
}";

#[test]
fn n4_licm_hoists_a_load_over_a_store() {
    caught(Fault::LicmHoistsLoads, LOAD_LOOP, &["licm"]);
}

const SUM_LOOP: &str = "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v7: int = iconst 1
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block3(v3)
block2:
    v5: int = imul v2, v2
    v6: int = iadd v3, v5
    v8: int = iadd v2, v7
    jump block1(v8, v6)
block3(v9: int):
    return v9
}";

#[test]
fn n5_off_by_one_loop_bound() {
    caught(Fault::OffByOne, SUM_LOOP, &["licm"]);
}

#[test]
fn n6_loop_result_replaced_by_its_initial_value() {
    caught(Fault::LoopResultIsInit, SUM_LOOP, &["copyprop"]);
}

#[test]
fn n7_dse_removes_a_store_that_is_read() {
    caught(
        Fault::DropsStore,
        "fn fn0 \"f\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    bounds_check v0, v2
    array_set v0, v2, v1
    v3: int = array_get v0, v2
    return v3
}",
        &["dce"],
    );
}

#[test]
fn n8_division_speculated_above_its_guard() {
    caught(
        Fault::SpeculatesDivision,
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: int = iconst 1
    jump block1(v2, v2)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v1
    br v6, block2, block5(v5)
block2:
    v7: bool = icmp ne v0, v2
    br v7, block3, block4(v5)
block3:
    v8: int = idiv v1, v0
    v9: int = iadd v5, v8
    jump block4(v9)
block4(v10: int):
    v11: int = iadd v4, v3
    jump block1(v11, v10)
block5(v12: int):
    return v12
}",
        &["licm"],
    );
}

#[test]
fn n9_constant_fold_without_wrapping() {
    caught(
        Fault::FoldsWithoutWrap,
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 9223372036854775807
    v2: int = iconst 1
    v3: int = iadd v1, v2
    v4: int = iadd v3, v0
    return v4
}",
        &["sccp"],
    );
}

#[test]
fn n10_merged_block_gets_swapped_arguments() {
    caught(
        Fault::SwapsJoinArgs,
        "fn fn0 \"f\"(int, int) -> int {
block0(v0: int, v1: int):
    jump block1(v0, v1)
block1(v2: int, v3: int):
    v4: int = isub v2, v3
    return v4
}",
        &["straighten"],
    );
}
