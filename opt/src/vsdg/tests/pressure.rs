//! Register pressure of the sequentialized code (digest §6.5 T12, §6.6 (d);
//! Lawrence §6.4, Figs 6.5/6.6): live values and Belady spill counts
//! measured on the emitted IR.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::canon::canonicalize;
use crate::ir::{parse_function, Function, Value};

use super::super::round_trip_with;
use super::{assignments, eval, invariant_loop, same_and_no_worse, show, static_copies};

/// Parses and canonicalizes `text`, round-trips it with `registers`
/// registers; returns the original and the result.
fn trip_with(text: &str, registers: usize) -> (Function, Function) {
    let mut f = parse_function(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    canonicalize(&mut f);
    let before = f.clone();
    round_trip_with(&mut f, registers).unwrap_or_else(|e| panic!("{e}"));
    super::check(&f);
    (before, f)
}

/// Instruction results and block parameters (the entry's excepted: the
/// arguments are live on entry whatever the order) live after each
/// instruction of `f`, by backward liveness over the CFG: the most.
pub(super) fn max_live(f: &Function) -> usize {
    let live_in = live_ins(f);
    let entry = f.entry();
    let counted = |v: Value| !f.blocks[entry].params.contains(&v);
    let mut most = 0;
    for &b in &f.layout {
        let mut live = live_out(f, b, &live_in);
        let count = |s: &FxHashSet<Value>| s.iter().filter(|&&v| counted(v)).count();
        most = most.max(count(&live));
        for &i in f.blocks[b].insts.iter().rev() {
            let d = f.inst(i);
            if let Some(r) = d.result {
                live.remove(&r);
            }
            d.kind.for_each_arg(|v| {
                live.insert(v);
            });
            // Values live after the instruction before this one.
            most = most.max(count(&live));
        }
    }
    most
}

fn live_out(
    f: &Function,
    b: crate::ir::Block,
    live_in: &FxHashMap<crate::ir::Block, FxHashSet<Value>>,
) -> FxHashSet<Value> {
    let mut live = FxHashSet::default();
    let term = &f.blocks[b].term;
    term.for_each_arg(|v| {
        live.insert(v);
    });
    for t in term.successors() {
        if let Some(s) = live_in.get(&t.block) {
            live.extend(s.iter().copied());
        }
    }
    live
}

fn live_ins(f: &Function) -> FxHashMap<crate::ir::Block, FxHashSet<Value>> {
    let mut live_in: FxHashMap<crate::ir::Block, FxHashSet<Value>> = FxHashMap::default();
    loop {
        let mut changed = false;
        for &b in f.layout.iter().rev() {
            let mut live = live_out(f, b, &live_in);
            for &i in f.blocks[b].insts.iter().rev() {
                let d = f.inst(i);
                if let Some(r) = d.result {
                    live.remove(&r);
                }
                d.kind.for_each_arg(|v| {
                    live.insert(v);
                });
            }
            for &p in &f.blocks[b].params {
                live.remove(&p);
            }
            if live_in.get(&b).map_or(0, |s| s.len()) != live.len() {
                changed = true;
                live_in.insert(b, live);
            }
        }
        if !changed {
            return live_in;
        }
    }
}

/// Values a straight-line function (one block) spills with `regs`
/// registers under Belady's rule, arguments not counted: digest §6.6 (d).
fn spills(f: &Function, regs: usize) -> usize {
    assert_eq!(f.layout.len(), 1, "{}", show(f));
    let b = f.blocks[f.entry()].clone();
    // Use positions of each instruction result; the terminator is last.
    let mut uses: FxHashMap<Value, Vec<usize>> = FxHashMap::default();
    for (k, &i) in b.insts.iter().enumerate() {
        f.inst(i)
            .kind
            .for_each_arg(|v| uses.entry(v).or_default().push(k));
    }
    b.term
        .for_each_arg(|v| uses.entry(v).or_default().push(b.insts.len()));
    let mut held: Vec<Value> = Vec::new();
    let mut spilled = 0;
    for (k, &i) in b.insts.iter().enumerate() {
        let next = |v: &Value| uses[v].iter().copied().find(|&u| u > k);
        f.inst(i).kind.for_each_arg(|v| {
            if uses.contains_key(&v) && !b.params.contains(&v) && !held.contains(&v) {
                held.push(v);
            }
        });
        held.retain(|v| next(v).is_some());
        if let Some(r) = f.inst(i).result {
            if uses.contains_key(&r) {
                held.push(r);
            }
        }
        while held.len() > regs {
            let (at, _) = held
                .iter()
                .enumerate()
                .max_by_key(|(_, v)| next(v))
                .expect("held");
            held.swap_remove(at);
            spilled += 1;
        }
    }
    spilled
}

/// T12: a balanced sum of 8 distinct pure leaves written breadth-first
/// (every leaf first, then the sums).
const T12: &str = "fn fn0 \"t12\"(int, int, int, int, int, int, int, int) -> int {
block0(v0: int, v1: int, v2: int, v3: int, v4: int, v5: int, v6: int, v7: int):
    v8: int = imul v0, v1 @100:1
    v9: int = imul v1, v2 @101:1
    v10: int = imul v2, v3 @102:1
    v11: int = imul v3, v4 @103:1
    v12: int = imul v4, v5 @104:1
    v13: int = imul v5, v6 @105:1
    v14: int = imul v6, v7 @106:1
    v15: int = imul v7, v0 @107:1
    v16: int = iadd v8, v9
    v17: int = iadd v10, v11
    v18: int = iadd v12, v13
    v19: int = iadd v14, v15
    v20: int = iadd v16, v17
    v21: int = iadd v18, v19
    v22: int = iadd v20, v21
    return v22
}";

/// T12 (Figs 6.5/6.6): with 4 registers the tree is evaluated depth-first
/// with no spill (its Sethi–Ullman need is 4), where the source's
/// breadth-first order holds all 8 leaves; with the normal register count
/// the source order is kept (interleaving is allowed when it fits).
#[test]
fn t12_depth_first_under_pressure_does_not_spill() {
    let args = [3, -4, 5, 7, -11, 13, 17, 19];
    let (before, after) = trip_with(T12, 4);
    same_and_no_worse(&before, &after, &args);
    assert_eq!(max_live(&before), 8, "{}", show(&before));
    assert!(spills(&before, 4) > 0);
    assert_eq!(max_live(&after), 4, "{}", show(&after));
    assert_eq!(spills(&after, 4), 0, "{}", show(&after));
    for line in 100..108 {
        assert_eq!(static_copies(&after, line), 1);
    }
    let (_, roomy) = trip_with(T12, super::super::sched::REGISTERS);
    assert_eq!(max_live(&roomy), 8, "{}", show(&roomy));
    assert_eq!(eval(&roomy, &args).result, eval(&before, &args).result);
}

/// The spill count never exceeds the naive (source) order's, for every
/// register count: the scheduler falls back to that order when depth-first
/// does not help.
#[test]
fn t12_never_spills_more_than_source_order() {
    for regs in 1..=9 {
        let (before, after) = trip_with(T12, regs);
        assert!(
            spills(&after, regs) <= spills(&before, regs),
            "{regs} registers: {}",
            show(&after)
        );
        assert_eq!(
            eval(&after, &[1, 2, 3, 4, 5, 6, 7, 8]).result,
            eval(&before, &[1, 2, 3, 4, 5, 6, 7, 8]).result
        );
    }
}

/// A cheap value (`a + b`, arguments only) needed before a branch and at
/// the end: under pressure it is computed again at the end (cloned, not
/// held across the branch's join and the tree after it); without
/// pressure it is computed once.
const CLONE: &str = "fn fn0 \"clone\"(bool, int, int, int) -> int {
block0(v0: bool, v1: int, v2: int, v3: int):
    v4: int = iadd v1, v2 @60:1
    br v0, block1, block2(v3)
block1:
    v5: int = imul v4, v3
    jump block2(v5)
block2(v6: int):
    v7: int = imul v6, v3
    v8: int = imul v6, v1
    v9: int = iadd v7, v8
    v10: int = imul v6, v2
    v11: int = imul v6, v6
    v12: int = iadd v10, v11
    v13: int = iadd v9, v12
    v14: int = iadd v13, v4
    return v14
}";

/// Johnson's node cloning (§6.1.3): a clone instead of a spill.
#[test]
fn cheap_node_is_cloned_under_pressure() {
    let (before, after) = trip_with(CLONE, 3);
    for args in assignments(1, &[3, 5, 7]) {
        assert_eq!(eval(&after, &args).result, eval(&before, &args).result);
    }
    assert_eq!(static_copies(&after, 60), 2, "{}", show(&after));
    assert!(max_live(&after) <= 3, "{}", show(&after));
    assert!(max_live(&before) > 3, "{}", show(&before));
    let (_, roomy) = trip_with(CLONE, super::super::sched::REGISTERS);
    assert_eq!(static_copies(&roomy, 60), 1, "{}", show(&roomy));
}

/// Under pressure, a cheap loop invariant stays in the preheader: clones
/// never leave their region, so none enters the loop body (§6.2: never
/// clone into a more shared region; digest §6.3 loop invariants).
#[test]
fn invariant_is_not_cloned_into_the_loop() {
    let text = invariant_loop("iadd", 60);
    for regs in [1, 2] {
        let (before, after) = trip_with(&text, regs);
        assert_eq!(static_copies(&after, 60), 1, "{}", show(&after));
        for n in 0..4 {
            let (b, a) = (eval(&before, &[n, 3, 5]), eval(&after, &[n, 3, 5]));
            assert_eq!(a.result, b.result);
            assert_eq!(
                a.evals.get(&60).copied().unwrap_or(0),
                1,
                "{}",
                show(&after)
            );
        }
    }
}
