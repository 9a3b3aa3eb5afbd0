//! The test shapes of the VSDG digest §6.5 (Lawrence Figs 3.1, 3.2, 4.1,
//! 4.3, §5.4), each run over every predicate assignment on an instrumented
//! evaluator that counts evaluations per marked source node and branch
//! tests per path, before and after the round trip.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use crate::canon::{canonicalize, check_canonical};
use crate::ir::{parse_function, verify_function, BinaryOp, Function, InstKind, Terminator};

use super::round_trip;

/// One run: the result (or a trap), evaluations per source line, the
/// number of conditional branches taken, and the effects in order.
#[derive(Debug, PartialEq)]
pub(super) struct Run {
    pub(super) result: Result<i64, &'static str>,
    pub(super) evals: FxHashMap<u32, usize>,
    pub(super) tests: usize,
    /// Global stores (`set gN v`) and host calls (`call hN`), in order.
    pub(super) effects: Vec<String>,
}

/// Evaluates an integer/boolean function (bools as 0/1). Globals start at
/// 0; a host call takes no arguments and adds 10 to every global stored
/// so far, so moving a global read across a call changes the result.
pub(super) fn eval(f: &Function, args: &[i64]) -> Run {
    let mut env: SecondaryMap<crate::ir::Value, i64> = SecondaryMap::new();
    let mut evals: FxHashMap<u32, usize> = FxHashMap::default();
    let mut globals: FxHashMap<crate::ir::GlobalId, i64> = FxHashMap::default();
    let mut effects = Vec::new();
    let mut tests = 0;
    let mut block = f.entry();
    let mut incoming: Vec<i64> = args.to_vec();
    for _ in 0..1_000_000 {
        let data = &f.blocks[block];
        for (&p, &v) in data.params.iter().zip(&incoming) {
            env[p] = v;
        }
        for &inst in &data.insts {
            let d = f.inst(inst);
            if d.loc.line != 0 {
                *evals.entry(d.loc.line).or_default() += 1;
            }
            let v = match d.kind {
                InstKind::IConst(k) => k,
                InstKind::BConst(b) => b as i64,
                InstKind::Copy(a) => env[a],
                InstKind::Unary(crate::ir::UnaryOp::BNot, a) => (env[a] == 0) as i64,
                InstKind::Unary(crate::ir::UnaryOp::INeg, a) => env[a].wrapping_neg(),
                InstKind::Binary(op, a, b) => {
                    let (x, y) = (env[a], env[b]);
                    match op {
                        BinaryOp::IAdd => x.wrapping_add(y),
                        BinaryOp::ISub => x.wrapping_sub(y),
                        BinaryOp::IMul => x.wrapping_mul(y),
                        BinaryOp::IDiv | BinaryOp::IRem if y == 0 => {
                            return Run {
                                result: Err("division by zero"),
                                evals,
                                tests,
                                effects,
                            }
                        }
                        BinaryOp::IDiv => x.wrapping_div(y),
                        BinaryOp::IRem => x.wrapping_rem(y),
                        BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => c.eval(x, y) as i64,
                        other => panic!("evaluator lacks {other:?}"),
                    }
                }
                InstKind::GlobalGet(g) => globals.get(&g).copied().unwrap_or(0),
                InstKind::GlobalSet(g, a) => {
                    effects.push(format!("set {g} {}", env[a]));
                    globals.insert(g, env[a]);
                    0
                }
                InstKind::HostCall(h, ref a) if a.is_empty() => {
                    effects.push(format!("call {h}"));
                    globals.values_mut().for_each(|x| *x += 10);
                    0
                }
                ref other => panic!("evaluator lacks {other:?}"),
            };
            if let Some(r) = d.result {
                env[r] = v;
            }
        }
        match &data.term {
            Terminator::Return(v) => {
                return Run {
                    result: Ok(v.map_or(0, |v| env[v])),
                    evals,
                    tests,
                    effects,
                }
            }
            Terminator::Switch {
                value,
                cases,
                default,
            } => {
                let edge = match value {
                    None => default,
                    Some(v) => {
                        tests += 1;
                        cases
                            .iter()
                            .find(|(k, _)| *k == env[*v])
                            .map_or(default, |(_, e)| e)
                    }
                };
                incoming = edge.args.iter().map(|&a| env[a]).collect();
                block = edge.block;
            }
        }
    }
    panic!("evaluation did not finish");
}

/// Parses, canonicalizes, round-trips and checks the result; returns the
/// original and the round-tripped function.
pub(super) fn trip(text: &str) -> (Function, Function) {
    let mut f = parse_function(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    canonicalize(&mut f);
    let before = f.clone();
    round_trip(&mut f).unwrap_or_else(|e| panic!("{e}"));
    check(&f);
    (before, f)
}

/// Panics unless `f` verifies and is canonical.
pub(super) fn check(f: &Function) {
    let mut p = crate::ir::Program::default();
    let id = p.funcs.push(f.clone());
    verify_function(&p, id)
        .unwrap_or_else(|e| panic!("{e:?}\n{}", crate::ir::print_function(&p, id)));
    check_canonical(f).unwrap_or_else(|e| panic!("{e:?}"));
}

/// The text of `f`, for failure messages.
pub(super) fn show(f: &Function) -> String {
    let mut p = crate::ir::Program::default();
    let id = p.funcs.push(f.clone());
    crate::ir::print_function(&p, id)
}

/// Every assignment of `bools` booleans followed by the fixed `ints`.
pub(super) fn assignments(bools: usize, ints: &[i64]) -> Vec<Vec<i64>> {
    (0..1u32 << bools)
        .map(|m| {
            let mut a: Vec<i64> = (0..bools).map(|i| (m >> i & 1) as i64).collect();
            a.extend_from_slice(ints);
            a
        })
        .collect()
}

/// Same results as the original; no marked node evaluated more often
/// than in the original, none more than once; no more branch tests.
pub(super) fn same_and_no_worse(before: &Function, after: &Function, args: &[i64]) -> (Run, Run) {
    let (b, a) = (eval(before, args), eval(after, args));
    assert_eq!(a.result, b.result, "args {args:?}");
    assert_eq!(a.effects, b.effects, "args {args:?}");
    for (line, &n) in &a.evals {
        if *line >= 100 {
            assert!(n <= 1, "line {line} evaluated {n} times on {args:?}");
        }
    }
    assert!(
        a.tests <= b.tests,
        "more tests on {args:?}: {} > {}",
        a.tests,
        b.tests
    );
    (b, a)
}

/// The γ-ordering shape (digest T3, Fig 3.2): `A = a_op x, (x or y)`
/// (line 100) computed first, then one independent branch per entry of
/// `uses`: branch `k` tests bool parameter `k` and, when it holds, yields
/// `use_op A, k+1`, else `y`; the function returns the sum of the branch
/// results. Parameters: one bool per branch, then the ints `x`, `y`.
pub(super) fn independent_branches(name: &str, a_op: &str, a_rhs_y: bool, uses: &[&str]) -> String {
    let n = uses.len();
    let (x, y) = (n, n + 1);
    let params: Vec<String> = (0..n)
        .map(|i| format!("v{i}: bool"))
        .chain([format!("v{x}: int"), format!("v{y}: int")])
        .collect();
    let types: Vec<&str> = (0..n).map(|_| "bool").chain(["int", "int"]).collect();
    let mut s = format!(
        "fn fn0 \"{name}\"({}) -> int {{\nblock0({}):\n",
        types.join(", "),
        params.join(", ")
    );
    let a = n + 2;
    let rhs = if a_rhs_y { y } else { x };
    s += &format!("    v{a}: int = {a_op} v{x}, v{rhs} @100:1\n");
    let mut next = a + 1;
    let mut results = Vec::new();
    for (k, op) in uses.iter().enumerate() {
        let (arm, join) = (2 * k + 1, 2 * k + 2);
        let (c, r, p) = (next, next + 1, next + 2);
        next += 3;
        s += &format!("    br v{k}, block{arm}, block{join}(v{y})\nblock{arm}:\n");
        s += &format!("    v{c}: int = iconst {}\n", k + 1);
        s += &format!("    v{r}: int = {op} v{a}, v{c}\n    jump block{join}(v{r})\n");
        s += &format!("block{join}(v{p}: int):\n");
        results.push(p);
    }
    let mut sum = results[0];
    for &r in &results[1..] {
        s += &format!("    v{next}: int = iadd v{sum}, v{r}\n");
        sum = next;
        next += 1;
    }
    s + &format!("    return v{sum}\n}}")
}

/// A counted loop `for i in 0..n { s += a_op a, b }` (the loop-invariant
/// operation at source line `line`); parameters `n`, `a`, `b`.
pub(super) fn invariant_loop(a_op: &str, line: u32) -> String {
    format!(
        "fn fn0 \"inv\"(int, int, int) -> int {{
block0(v0: int, v1: int, v2: int):
    v3: int = iconst 0
    jump block1(v3, v3)
block1(v4: int, v5: int):
    v6: bool = icmp lt v4, v0
    br v6, block2, block3(v5)
block2:
    v7: int = {a_op} v1, v2 @{line}:1
    v8: int = iadd v5, v7
    v9: int = iconst 1
    v10: int = iadd v4, v9
    jump block1(v10, v8)
block3(v11: int):
    return v11
}}"
    )
}

const T1_NESTED: &str = "fn fn0 \"t1\"(bool, bool, int, int) -> int {
block0(v0: bool, v1: bool, v2: int, v3: int):
    br v0, block1, block2
block1:
    br v1, block3, block4
block3:
    v4: int = iconst 3
    v5: int = imul v3, v4
    jump block5(v5)
block4:
    v6: int = imul v2, v2 @100:1
    v7: int = iconst 1
    v8: int = iadd v6, v7
    jump block5(v8)
block5(v9: int):
    jump block6(v9)
block2:
    v10: int = imul v2, v2 @100:1
    v11: int = iconst 1
    v12: int = iadd v10, v11
    jump block6(v12)
block6(v13: int):
    return v13
}";

const T1_SPECULATIVE: &str = "fn fn0 \"t1s\"(bool, bool, int, int) -> int {
block0(v0: bool, v1: bool, v2: int, v3: int):
    v4: int = imul v2, v2 @100:1
    v5: int = iconst 1
    v6: int = iadd v4, v5
    br v0, block1, block3(v6)
block1:
    br v1, block2, block3(v6)
block2:
    v7: int = iconst 3
    v8: int = imul v3, v7
    jump block3(v8)
block3(v9: int):
    return v9
}";

/// T1 (Fig 3.1/4.1/4.3): `a*a+1` runs exactly when demanded, in both the
/// nested and the speculating source form, and has one static copy.
#[test]
fn t1_exclusive_is_evaluated_only_when_demanded() {
    for text in [T1_NESTED, T1_SPECULATIVE] {
        let (before, after) = trip(text);
        for args in assignments(2, &[3, 4]) {
            let (_, a) = same_and_no_worse(&before, &after, &args);
            let demanded = !(args[0] == 1 && args[1] == 1);
            assert_eq!(
                a.evals.get(&100).copied().unwrap_or(0),
                demanded as usize,
                "{args:?}"
            );
        }
        // Tail-shared: the short-circuit CFG of Fig 4.3 has one copy.
        assert_eq!(static_copies(&after, 100), 1, "{}", show(&after));
    }
}

/// T3 (Fig 3.2/4.5, γ-ordering §3.4.1): `A` shared by two independent
/// branches runs 0 times when neither demands it and exactly once
/// otherwise; `p` and `q` are each tested once on every path (no retest of
/// `p`, unlike Upton's Fig 4.11); `A` has two static copies.
#[test]
fn t3_independent_is_evaluated_at_most_once() {
    let (before, after) = trip(&independent_branches(
        "t3",
        "imul",
        false,
        &["iadd", "imul"],
    ));
    for args in assignments(2, &[3, 4]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        let demanded = args[0] == 1 || args[1] == 1;
        assert_eq!(
            a.evals.get(&100).copied().unwrap_or(0),
            demanded as usize,
            "{args:?}"
        );
        assert_eq!(a.tests, 2, "{args:?}");
    }
    assert_eq!(static_copies(&after, 100), 2);
}

/// T5 (PDCE): the expensive value is computed only on the path using it.
#[test]
fn t5_partially_dead_code_sinks() {
    let (before, after) = trip(
        "fn fn0 \"t5\"(bool, int) -> int {
block0(v0: bool, v1: int):
    v2: int = imul v1, v1 @100:1
    v3: int = imul v2, v1 @101:1
    v4: int = iconst 0
    br v0, block1, block2
block1:
    jump block3(v3)
block2:
    jump block3(v4)
block3(v5: int):
    return v5
}",
    );
    for args in assignments(1, &[7]) {
        let (_, a) = same_and_no_worse(&before, &after, &args);
        let want = args[0] as usize;
        assert_eq!(a.evals.get(&100).copied().unwrap_or(0), want, "{args:?}");
        assert_eq!(a.evals.get(&101).copied().unwrap_or(0), want, "{args:?}");
    }
}

/// T7: hash-consing merges `a*b` and `a*b`; the unused `a-b` is gone.
#[test]
fn t7_cse_and_dead_nodes() {
    let (before, after) = trip(
        "fn fn0 \"t7\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = imul v0, v1 @100:1
    v3: int = imul v0, v1 @100:1
    v4: int = isub v0, v1 @101:1
    v5: int = iadd v2, v3
    return v5
}",
    );
    let (b, a) = same_and_no_worse(&before, &after, &[6, 7]);
    assert_eq!(b.evals[&100], 2);
    assert_eq!(a.evals[&100], 1);
    assert_eq!(a.evals.get(&101), None);
}

/// T8 (§5.4): the invariant `a*b` leaves the loop.
#[test]
fn t8_loop_invariant_is_evaluated_once() {
    let (before, after) = trip(&invariant_loop("imul", 100));
    for n in 0..4 {
        let (b, _) = same_and_no_worse(&before, &after, &[n, 3, 5]);
        assert_eq!(b.evals.get(&100).copied().unwrap_or(0), n as usize);
    }
}

/// T10: the division stays under its zero test.
#[test]
fn t10_trapping_division_is_never_hoisted() {
    let (before, after) = trip(
        "fn fn0 \"t10\"(int, int) -> int {
block0(v0: int, v1: int):
    v2: int = iconst 0
    v3: bool = icmp ne v1, v2
    br v3, block1, block2
block1:
    v4: int = idiv v0, v1 @100:1
    jump block3(v4)
block2:
    jump block3(v2)
block3(v5: int):
    return v5
}",
    );
    for b in [0, 3] {
        let (_, a) = same_and_no_worse(&before, &after, &[12, b]);
        assert_eq!(a.result, Ok(if b == 0 { 0 } else { 4 }));
        assert_eq!(a.evals.get(&100).copied().unwrap_or(0), (b != 0) as usize);
    }
}

/// Constant predicates fold away in the constructor: one path remains.
#[test]
fn constant_predicate_leaves_one_path() {
    let (_, after) = trip(
        "fn fn0 \"k\"(int) -> int {
block0(v0: int):
    v1: bool = bconst true
    br v1, block1, block2
block1:
    v2: int = iconst 1
    jump block3(v2)
block2:
    v3: int = iconst 2
    jump block3(v3)
block3(v4: int):
    v5: int = iadd v0, v4
    return v5
}",
    );
    assert_eq!(after.layout.len(), 1);
    assert_eq!(eval(&after, &[4]).result, Ok(5));
}

/// Irreducible input (issue 11, "Lift"): the lifter says why and the round
/// trip leaves the function exactly as it was, so it stays on tier T2.
#[test]
fn irreducible_function_is_rejected_and_left_alone() {
    let text = "fn fn0 \"irr\"(bool) -> int {
block0(v0: bool):
    v1: int = iconst 0
    br v0, block1(v1), block2(v1)
block1(v2: int):
    v3: int = iconst 1
    v4: int = iadd v2, v3
    v5: bool = icmp lt v4, v3
    br v5, block2(v4), block3(v4)
block2(v6: int):
    jump block1(v6)
block3(v7: int):
    return v7
}";
    let f = parse_function(text).unwrap_or_else(|e| panic!("{e}"));
    let err = super::lift(&f).expect_err("irreducible");
    assert!(err.reason.contains("irreducible"), "{err}");
    let mut g = f.clone();
    assert_eq!(round_trip(&mut g), Err(err));
    assert_eq!(show(&g), show(&f));
}

/// How many instructions of `f` carry source line `line`: the static
/// copies of a marked node (digest §6.6 (c)).
pub(super) fn static_copies(f: &Function, line: u32) -> usize {
    f.layout
        .iter()
        .flat_map(|&b| &f.blocks[b].insts)
        .filter(|&&i| f.inst(i).loc.line == line)
        .count()
}

mod exits;
mod pressure;
mod scaling;
mod shapes;
mod state;
