//! Long boolean chains (`lang-tests/.../control/long_chains.wdl`): a
//! `||` of `n` comparisons, an `else if` chain of `n` arms, and a loop
//! whose condition is such a `||`, as the frontend lowers them, against
//! the `-O2` pipeline's result. Each validates, and the work it takes is
//! counted ([`super::WORK`]: rounds, graph nodes and argument slots made,
//! diagram nodes made), not timed: the rounds stay bounded and the rest
//! grows at most about quadratically in `n` (the path condition of the
//! `k`-th return after threading is a conjunction of `k` literals, so the
//! graph itself holds `n²/2` argument slots).
//!
//! Before R3-by-diagrams merged rewritten gates
//! ([`super::rules::Rules::merge_gates`]), a `||` chain took about `n/2`
//! rounds (its disjunctions flattened one level per round) and ran out of
//! 64 rounds at 70 operands; conjunctions of path conditions cost the
//! diagram store `n³/6` nodes ([`super::bdd::Bdd::junction`]), and R3's
//! absorption search on a disjunction of `n` terms the fourth power of
//! `n` per round.

use super::*;
use crate::ir::{parse_program, FuncId, Program};
use crate::passes::{Pipeline, PipelineOptions};

/// `fn f(x: int) -> bool { return x == 0 || x == 3 || ... }` with `n`
/// operands, as lowered: a chain of joins, each on a `bool` parameter.
fn or_chain(n: usize) -> String {
    let mut s = String::from("fn fn0 \"f\"(int) -> bool {\nblock0(v0: int):\n");
    s += "    v1: int = iconst 0\n    v2: bool = icmp eq v0, v1\n";
    let mut cur = 2; // the value tested at the end of the current block
    let mut v = 3;
    for k in 1..n {
        let (join, rhs) = (2 * k, 2 * k - 1);
        s += &format!("    br v{cur}, block{join}(v{cur}), block{rhs}\n");
        s += &format!(
            "block{rhs}:\n    v{v}: int = iconst {}\n    v{}: bool = icmp eq v0, v{v}\n    jump block{join}(v{})\n",
            3 * k,
            v + 1,
            v + 1
        );
        s += &format!("block{join}(v{}: bool):\n", v + 2);
        cur = v + 2;
        v += 3;
    }
    s += &format!("    return v{cur}\n}}\n");
    s
}

/// `var c = -1; if x == 0 { c = 0 } else if x == 7 { c = 1 } ...` with
/// `n` arms, then `return c`, as lowered: nested joins.
fn else_if_chain(n: usize) -> String {
    let mut s = String::from("fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n");
    s += "    v1: int = iconst -1\n";
    // Block numbers: test k in `t(k)`, then-arm in `a(k)`, join in `j(k)`.
    let (t, a, j) = (|k: usize| 3 * k, |k: usize| 3 * k + 1, |k: usize| 3 * k + 2);
    let mut v = 2;
    for k in 0..n {
        if k > 0 {
            s += &format!("block{}:\n", t(k));
        }
        s += &format!(
            "    v{v}: int = iconst {}\n    v{}: bool = icmp eq v0, v{v}\n",
            7 * k,
            v + 1
        );
        let els = if k + 1 < n {
            format!("block{}", t(k + 1))
        } else {
            format!("block{}(v1)", j(k))
        };
        s += &format!("    br v{}, block{}, {els}\n", v + 1, a(k));
        s += &format!(
            "block{}:\n    v{}: int = iconst {k}\n    jump block{}(v{})\n",
            a(k),
            v + 2,
            j(k),
            v + 2
        );
        v += 3;
    }
    // The joins, innermost first, each passing its value outwards.
    for k in (0..n).rev() {
        s += &format!("block{}(v{}: int):\n", j(k), v);
        if k == 0 {
            s += &format!("    return v{v}\n");
        } else {
            s += &format!("    jump block{}(v{v})\n", j(k - 1));
        }
        v += 1;
    }
    s += "}\n";
    s
}

/// `var i = 0; while i == 0 || ... || i == n - 1 { i += 1 } return i`.
fn or_loop(n: usize) -> String {
    let mut s = String::from("fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n");
    s += "    v1: int = iconst 0\n    jump block1(v1)\n";
    s += "block1(v2: int):\n    v3: int = iconst 0\n    v4: bool = icmp eq v2, v3\n";
    // The loop test in blocks 1, 3, 5, ...; joins in blocks 4, 6, ....
    let mut cur = 4;
    let mut v = 5;
    let mut b = 3;
    for k in 1..n {
        let (rhs, join) = (b, b + 1);
        s += &format!("    br v{cur}, block{join}(v{cur}), block{rhs}\n");
        s += &format!(
            "block{rhs}:\n    v{v}: int = iconst {k}\n    v{}: bool = icmp eq v2, v{v}\n    jump block{join}(v{})\n",
            v + 1,
            v + 1
        );
        s += &format!("block{join}(v{}: bool):\n", v + 2);
        cur = v + 2;
        v += 3;
        b += 2;
    }
    s += &format!("    br v{cur}, block{b}, block{}\n", b + 1);
    s += &format!(
        "block{b}:\n    v{v}: int = iconst 1\n    v{}: int = iadd v2, v{v}\n    jump block1(v{})\n",
        v + 1,
        v + 1
    );
    s += &format!("block{}:\n    return v2\n}}\n", b + 1);
    s
}

/// The function of `text`, canonical, and its `-O2` result.
fn optimized(text: &str) -> (Function, Function) {
    let mut program: Program = match parse_program(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    };
    let mut before = program.funcs[FuncId::from_u32(0)].clone();
    crate::canon::canonicalize(&mut before);
    let opts = PipelineOptions {
        verify: true,
        time: false,
    };
    Pipeline::for_level(2)
        .run(&mut program, &opts, &mut ())
        .expect("the pipeline runs");
    (before, program.funcs[FuncId::from_u32(0)].clone())
}

/// Validates the chain of `n` made by `make` and returns its work:
/// rounds, graph nodes, argument slots, diagram nodes.
fn work(make: fn(usize) -> String, n: usize) -> [usize; 4] {
    let (before, after) = optimized(&make(n));
    assert_ne!(before, after, "the pipeline changes the chain of {n}");
    WORK.with(|w| w.set([0; 4]));
    let v = validate(&before, &after);
    assert!(v.is_equal(), "chain of {n}: {v:?}");
    WORK.with(|w| w.get())
}

/// Asserts that from chains of `n` to chains of `4n` the rounds do not
/// grow, the graph's nodes grow linearly (at most 6 times, for 4 times
/// the operands), and its argument slots and the diagram nodes at most
/// quadratically (24 times, `4²` with slack).
fn bounded(name: &str, make: fn(usize) -> String, n: usize) {
    let small = work(make, n);
    let large = work(make, 4 * n);
    println!("{name}: {n}: {small:?}, {}: {large:?}", 4 * n);
    assert!(
        large[0] <= small[0] + 1,
        "{name}: rounds {small:?} -> {large:?}"
    );
    assert!(
        large[1] <= 6 * small[1].max(1),
        "{name}: nodes {small:?} -> {large:?}"
    );
    for i in 2..4 {
        assert!(
            large[i] <= 24 * small[i].max(1),
            "{name}: work {i} grows faster than n²: {small:?} -> {large:?}"
        );
    }
}

#[test]
fn a_long_or_chain_validates_in_few_rounds_and_quadratic_work() {
    bounded("||", or_chain, 20);
}

#[test]
fn a_long_else_if_chain_validates_with_bounded_work() {
    bounded("else if", else_if_chain, 10);
}

#[test]
fn a_loop_on_a_long_or_validates_in_few_rounds_and_quadratic_work() {
    bounded("while ||", or_loop, 20);
}

/// The complement probes ([`super::graph::PROBES`]) of validating the
/// chain of `n` made by `make`.
fn probes(make: fn(usize) -> String, n: usize) -> usize {
    let (before, after) = optimized(&make(n));
    super::graph::PROBES.with(|p| p.set(0));
    assert!(validate(&before, &after).is_equal(), "chain of {n}");
    super::graph::PROBES.with(|p| p.get())
}

/// Conjunctions that extend a complement-free one compare only their new
/// arguments with the rest, and a conjunction rebuilt as it was is found
/// as it was: the complement search stays linear in the chain's length.
/// It compared every argument of every path condition in every round
/// before (quadratic: the `k`-th return's condition has `k` literals).
#[test]
fn complement_search_is_linear_in_a_long_chain() {
    for (name, make, n) in [
        ("||", or_chain as fn(usize) -> String, 20),
        ("else if", else_if_chain, 10),
        ("while ||", or_loop, 20),
    ] {
        let (small, large) = (probes(make, n), probes(make, 4 * n));
        println!("{name}: probes {n}: {small}, {}: {large}", 4 * n);
        assert!(
            large <= 6 * small.max(1),
            "{name}: complement probes {small} -> {large}"
        );
    }
}

/// The diagram nodes (`WORK[3]`, over all rounds) of validating the
/// chain of `n` made by `make`.
fn diagram_nodes(make: fn(usize) -> String, n: usize) -> usize {
    work(make, n)[3]
}

/// The `k`-th path condition of a `||` chain outside loops extends the one
/// before by a literal, and its diagram is one node on top of that one's
/// ([`super::gates`]' variable order, [`super::graph::Graph::extension`]):
/// the diagram nodes grow linearly with the chain. Built from scratch in
/// the order the atoms were met, each path condition copied the one it
/// extends (`n²/2` nodes: 14–16 times as many for 4 times the operands).
#[test]
fn path_conditions_of_a_chain_share_their_diagrams() {
    let (small, large) = (diagram_nodes(or_chain, 20), diagram_nodes(or_chain, 80));
    println!("||: diagram nodes 20: {small}, 80: {large}");
    assert!(
        large <= 6 * small.max(1),
        "diagram nodes {small} -> {large}"
    );
}
