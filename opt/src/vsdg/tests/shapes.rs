//! The digest §6.5 shapes added with bounded splitting and predicate
//! normalization: T2, T4, T6, T11, T13 and a retested predicate, each over
//! every predicate assignment (evaluations per marked node, tests per path,
//! static copies).

use super::{
    assignments, eval, independent_branches, same_and_no_worse, show, static_copies, trip,
};

/// T2 (Fig 4.10): `A = a*a+1` needed on two exclusive paths, once through
/// a pure `g(A) = A*7`: never speculated, two static copies.
#[test]
fn t2_exclusive_with_extra_op() {
    let (before, after) = trip(
        "fn fn0 \"t2\"(bool, bool, int, int) -> int {
block0(v0: bool, v1: bool, v2: int, v3: int):
    br v0, block1, block2
block1:
    br v1, block3, block4
block3:
    jump block5(v3)
block4:
    v4: int = imul v2, v2 @100:1
    v5: int = iconst 1
    v6: int = iadd v4, v5 @101:1
    v7: int = iconst 7
    v8: int = imul v6, v7 @102:1
    jump block5(v8)
block5(v9: int):
    jump block6(v9)
block2:
    v10: int = imul v2, v2 @100:1
    v11: int = iconst 1
    v12: int = iadd v10, v11 @101:1
    jump block6(v12)
block6(v13: int):
    return v13
}",
    );
    for args in assignments(2, &[3, 4]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        let demanded = !(args[0] == 1 && args[1] == 1);
        assert_eq!(a.evals.get(&100).copied().unwrap_or(0), demanded as usize);
        assert_eq!(a.evals.get(&101).copied().unwrap_or(0), demanded as usize);
    }
    assert_eq!(static_copies(&after, 100), 2);
}

/// `p || q` (`or`) or `p && q` materialized as a boolean (the decided
/// arm yields a constant, or `p` itself when `pass_p`, as the frontend
/// lowers it; the other arm yields `q`), then branched on: `A` (line 100)
/// when it holds, else `B` (line 101).
fn t4(or: bool, pass_p: bool) -> String {
    let decided = if pass_p {
        "    jump block3(v0)".to_string()
    } else {
        format!("    v4: bool = bconst {or}\n    jump block3(v4)")
    };
    let other = "    jump block3(v1)".to_string();
    let (arm1, arm2) = if or {
        (decided, other)
    } else {
        (other, decided)
    };
    format!(
        "fn fn0 \"t4\"(bool, bool, int, int) -> int {{
block0(v0: bool, v1: bool, v2: int, v3: int):
    br v0, block1, block2
block1:
{arm1}
block2:
{arm2}
block3(v5: bool):
    br v5, block4, block5
block4:
    v6: int = imul v2, v2 @100:1
    jump block6(v6)
block5:
    v7: int = imul v3, v3 @101:1
    jump block6(v7)
block6(v8: int):
    return v8
}}"
    )
}

/// T4 (Fig 3.6): `γ(γ(p,true,q),A,B) → γ(p,A,γ(q,A,B))`: no boolean is
/// materialized, `q` is tested only when `p` does not decide, each of
/// `A`, `B` runs exactly when selected, and each has one static copy
/// (tail sharing).
#[test]
fn t4_short_circuit_predicate_is_normalized() {
    for (or, pass_p) in [(true, false), (false, false), (true, true), (false, true)] {
        let text = t4(or, pass_p);
        let (before, after) = trip(&text);
        for block in &after.layout[1..] {
            for &p in &after.blocks[*block].params {
                assert_ne!(after.value_type(p), crate::ir::Type::Bool, "{text}");
            }
        }
        for args in assignments(2, &[3, 4]) {
            let (b, a) = same_and_no_worse(&before, &after, &args);
            let (p, q) = (args[0] == 1, args[1] == 1);
            let decided = if or { p } else { !p };
            assert_eq!(b.tests, 2);
            assert_eq!(a.tests, if decided { 1 } else { 2 }, "{args:?}");
            let take_a = if or { p || q } else { p && q };
            assert_eq!(a.evals.get(&100).copied().unwrap_or(0), take_a as usize);
            assert_eq!(a.evals.get(&101).copied().unwrap_or(0), !take_a as usize);
        }
        // `A` and `B` each end two exclusive paths into the join: tail
        // shared, one static copy each (digest T4, Lawrence §3.4.2).
        assert_eq!(static_copies(&after, 100), 1, "{}", show(&after));
        assert_eq!(static_copies(&after, 101), 1, "{}", show(&after));
    }
}

/// T6 (Fig 4.12, PRE through φ): `t = a+b; a2 = p ? c : a; z = a2+b`. On
/// `!p`, `z` is `t` (distributed into the arm, it hash-conses), so `+`
/// runs once; on `p`, `c+b` runs besides `t`.
#[test]
fn t6_node_distribution_enables_hash_consing() {
    let (before, after) = trip(
        "fn fn0 \"t6\"(bool, int, int, int) -> int {
block0(v0: bool, v1: int, v2: int, v3: int):
    v4: int = iadd v1, v2 @100:1
    br v0, block1, block2(v1)
block1:
    jump block2(v3)
block2(v5: int):
    v6: int = iadd v5, v2 @101:1
    v7: int = imul v4, v6
    return v7
}",
    );
    for args in assignments(1, &[3, 4, 5]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        let adds = |r: &super::Run| {
            r.evals.get(&100).copied().unwrap_or(0) + r.evals.get(&101).copied().unwrap_or(0)
        };
        assert_eq!(adds(&b), 2);
        assert_eq!(adds(&a), if args[0] == 1 { 2 } else { 1 }, "{args:?}");
    }
}

/// T11 (Fig 7.9, γ tupling): `x = p ? 1 : 2; y = p ? a : b; x + y` tests
/// `p` once.
#[test]
fn t11_gamma_tupling_tests_once() {
    let (before, after) = trip(
        "fn fn0 \"t11\"(bool, int, int) -> int {
block0(v0: bool, v1: int, v2: int):
    br v0, block1, block2
block1:
    v3: int = iconst 1
    jump block3(v3)
block2:
    v4: int = iconst 2
    jump block3(v4)
block3(v5: int):
    v10: int = imul v5, v1 @100:1
    br v0, block4, block5
block4:
    jump block6(v1)
block5:
    jump block6(v2)
block6(v6: int):
    v7: int = iadd v5, v6
    v8: int = iadd v7, v10
    return v8
}",
    );
    for args in assignments(1, &[3, 4]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        assert_eq!(b.tests, 2);
        assert_eq!(a.tests, 1, "{args:?}");
    }
}

/// A predicate tested again inside its own arm folds (the nested case of
/// tupling): `if p { if p { A } else { B } } else { C }` never runs `B`
/// and tests `p` once.
#[test]
fn retested_predicate_folds_in_its_arm() {
    let (before, after) = trip(
        "fn fn0 \"rt\"(bool, int) -> int {
block0(v0: bool, v1: int):
    br v0, block1, block2
block1:
    br v0, block3, block4
block3:
    v2: int = imul v1, v1 @100:1
    jump block5(v2)
block4:
    v3: int = iadd v1, v1 @101:1
    jump block5(v3)
block5(v4: int):
    jump block6(v4)
block2:
    jump block6(v1)
block6(v5: int):
    return v5
}",
    );
    for args in assignments(1, &[6]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        assert_eq!(a.tests, 1);
    }
    assert_eq!(static_copies(&after, 101), 0);
}

/// T13 (Fig 5.2, operator sharing): `p ? op(x) : q ? op(y) : z` with an
/// expensive `op`: each copy runs at most once per path, never with an
/// extra test.
#[test]
fn t13_operator_on_exclusive_paths() {
    let (before, after) = trip(
        "fn fn0 \"t13\"(bool, bool, int, int, int) -> int {
block0(v0: bool, v1: bool, v2: int, v3: int, v4: int):
    br v0, block1, block2
block1:
    v5: int = imul v2, v2 @100:1
    v6: int = imul v5, v2 @101:1
    jump block4(v6)
block2:
    br v1, block3, block4(v4)
block3:
    v7: int = imul v3, v3 @102:1
    v8: int = imul v7, v3 @103:1
    jump block4(v8)
block4(v9: int):
    return v9
}",
    );
    for args in assignments(2, &[3, 4, 5]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        assert_eq!(a.tests, b.tests);
        let (p, q) = (args[0] == 1, args[1] == 1);
        assert_eq!(a.evals.get(&101).copied().unwrap_or(0), p as usize);
        assert_eq!(a.evals.get(&103).copied().unwrap_or(0), (!p && q) as usize);
    }
    assert_eq!(eval(&after, &[0, 0, 3, 4, 5]).result, Ok(5));
}

/// T3 past the γ-ordering cap (digest §6.4): when the shared value is one
/// cheap add, duplicating the second branch costs more than speculating
/// it, so it runs once before both branches — never twice, and no test is
/// added.
#[test]
fn t3_cheap_shared_value_is_speculated() {
    let (before, after) = trip(&independent_branches(
        "t3cheap",
        "iadd",
        true,
        &["iadd", "isub"],
    ));
    for args in assignments(2, &[3, 4]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        assert_eq!(a.evals.get(&100).copied().unwrap_or(0), 1, "{args:?}");
        assert_eq!(a.tests, 2, "{args:?}");
    }
    assert_eq!(static_copies(&after, 100), 1);
}

/// γ-ordering of three independent branches sharing `A` (gating condition
/// `γ1 ⊕ γ2 ⊕ γ3`): `A` runs once exactly when some branch demands it,
/// and each predicate is tested once per path.
#[test]
fn t3_three_independent_branches() {
    let (before, after) = trip(&independent_branches(
        "t3x3",
        "imul",
        false,
        &["iadd", "imul", "isub"],
    ));
    for args in assignments(3, &[3, 4]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        let demanded = args[..3].contains(&1);
        assert_eq!(
            a.evals.get(&100).copied().unwrap_or(0),
            demanded as usize,
            "{args:?}"
        );
        assert_eq!(a.tests, 3, "{args:?}");
    }
}

/// The γ-ordering size cap (digest §6.4): a second branch of more than
/// the capped number of instructions is not copied into the arms of the
/// first; the shared value is speculated once instead.
#[test]
fn t3_ordering_is_capped_by_size() {
    let mut body = String::new();
    let mut last = 5;
    for i in 0..20 {
        let v = 20 + i;
        body.push_str(&format!(
            "    v{v}: int = iadd v{last}, v4 @{}:1\n",
            200 + i
        ));
        last = v;
    }
    let text = format!(
        "fn fn0 \"t3big\"(bool, bool, int, int, int) -> int {{
block0(v0: bool, v1: bool, v2: int, v3: int, v4: int):
    v5: int = imul v2, v2 @100:1
    br v0, block1, block2(v3)
block1:
    v6: int = iconst 1
    v7: int = iadd v5, v6
    jump block2(v7)
block2(v8: int):
    br v1, block3, block4(v4)
block3:
{body}    jump block4(v{last})
block4(v11: int):
    v12: int = iadd v8, v11
    return v12
}}"
    );
    let (before, after) = trip(&text);
    for args in assignments(2, &[3, 4, 5]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        assert_eq!(a.evals.get(&100).copied().unwrap_or(0), 1, "{args:?}");
    }
    assert_eq!(static_copies(&after, 100), 1);
    assert_eq!(static_copies(&after, 219), 1);
}

/// Three arms of a γ-tree yielding two values each (Lawrence Fig 4.6):
/// `(A, B)`, `(A, C)`, `(D, B)` with one `imul` per leaf.
const PAIRS: &str = "fn fn0 \"pairs\"(bool, bool, int, int, int, int) -> int {
block0(v0: bool, v1: bool, v2: int, v3: int, v4: int, v5: int):
    br v0, block1, block2
block1:
    v6: int = imul v2, v2 @100:1
    v7: int = imul v3, v3 @101:1
    jump block5(v6, v7)
block2:
    br v1, block3, block4
block3:
    v8: int = imul v2, v2 @100:1
    v9: int = imul v4, v4 @102:1
    jump block5(v8, v9)
block4:
    v10: int = imul v5, v5 @103:1
    v11: int = imul v3, v3 @101:1
    jump block5(v10, v11)
block5(v12: int, v13: int):
    v14: int = isub v12, v13
    return v14
}";

/// §4.2 minimal duplication: the sharing graph `A–B, A–C, D–B` has the
/// minimum cover `{A, B}`, so 3 private + 2 shared = 5 static leaves
/// instead of one copy per arm and value (6); each path still evaluates
/// each of its two leaves once, with no extra test.
#[test]
fn two_value_gamma_tree_shares_by_vertex_cover() {
    let (before, after) = trip(PAIRS);
    for args in assignments(2, &[3, 4, 5, 6]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        for line in 100..=103 {
            assert_eq!(a.evals.get(&line), b.evals.get(&line), "{args:?}");
        }
    }
    let copies: usize = (100..=103).map(|l| static_copies(&after, l)).sum();
    assert_eq!(copies, 5, "{}", show(&after));
    assert_eq!(static_copies(&after, 102), 1);
    assert_eq!(static_copies(&after, 103), 1);
}

/// A value used only by a return block that five tests reach
/// (`if p0 || p1 || … || p4 { return A + x }`): the lifter unfolds the
/// return block into five regions, one per path, but they are one source
/// block and tail sharing merges them, so the copy cap (which counts per
/// source block) does not hoist `A` above the tests. `A` runs exactly on
/// the paths that return it, and has one static copy.
#[test]
fn value_of_a_shared_return_is_not_speculated() {
    let mut s = String::from(
        "fn fn0 \"sharedret\"(bool, bool, bool, bool, bool, int) -> int {
block0(v0: bool, v1: bool, v2: bool, v3: bool, v4: bool, v5: int):
    v6: int = imul v5, v5 @100:1
",
    );
    for k in 0..5 {
        if k > 0 {
            s += &format!("block{k}:\n");
        }
        s += &format!("    br v{k}, block9, block{}\n", k + 1);
    }
    s += "block5:\n    return v5\nblock9:\n    v7: int = iadd v6, v5\n    return v7\n}";
    let (before, after) = trip(&s);
    for args in assignments(5, &[3]) {
        let (b, a) = same_and_no_worse(&before, &after, &args);
        let demanded = args[..5].contains(&1);
        assert_eq!(b.evals.get(&100).copied().unwrap_or(0), 1, "{args:?}");
        assert_eq!(
            a.evals.get(&100).copied().unwrap_or(0),
            demanded as usize,
            "{args:?}: {}",
            show(&after)
        );
    }
    assert_eq!(static_copies(&after, 100), 1, "{}", show(&after));
}
