//! Code sinking: a pure instruction moves down the dominator tree to where
//! its result is used, so paths that do not use it do not compute it.
//!
//! This is the "schedule late" half of global code motion (Click, *Global
//! Code Motion / Global Value Numbering*, PLDI 1995, §2.4): an instruction
//! goes to the nearest common dominator of its uses, but never into a
//! deeper loop than the one it was in (it would run more often). When the
//! uses lie under different dominator-tree children of the defining block
//! and no path leads from one group of uses to another (the `return`s of
//! the branches of an `if`, typically), every group gets its own copy at
//! the group's common dominator: each path then computes the value at
//! most once, and only where it is used — the partial-dead-code case of
//! Knoop, Rüthing and Steffen (*Partial Dead Code Elimination*, PLDI 1994),
//! and what the VSDG's lazy sequentialization gives tier T3 (Lawrence
//! §6.2), here for every tier.
//!
//! Moved: instructions without side effects that read no memory, and
//! division and remainder by a non-zero constant (they cannot trap). Not
//! constants (every tier materializes them where they are needed).
//!
//! Blocks are visited children before parents, each one's instructions
//! last to first, so a value's users have reached their final places
//! before the value itself is placed, and whole expression chains move
//! together. The walks up the dominator tree and the reachability checks
//! have fixed budgets, so the pass stays linear on huge functions.

use rustc_hash::FxHashSet;

use crate::editor::Editor;
use crate::ir::{Block, Inst, InstKind, User, Value};

use super::simple::deletable;

/// At most this many copies of one instruction.
const MAX_COPIES: usize = 3;
/// Dominator-tree steps allowed per instruction when grouping its uses.
const WALK_BUDGET: usize = 256;
/// Blocks visited per instruction when checking that its copies are on
/// disjoint paths.
const REACH_BUDGET: usize = 128;

/// Runs code sinking; returns the number of instructions moved or copied.
pub fn sink(ed: &mut Editor) -> usize {
    ed.refresh_numbers();
    let mut n = 0;
    for d in ed.dom_preorder().into_iter().rev() {
        for idx in (0..ed.insts(d).len()).rev() {
            let i = ed.insts(d)[idx];
            if sink_inst(ed, d, i) {
                n += 1;
            }
        }
    }
    n
}

/// Whether `i` may move to a block executed at most as often, on fewer
/// paths: it has no effect, reads no memory and cannot trap.
fn movable(ed: &Editor, kind: &InstKind) -> bool {
    !matches!(
        kind,
        InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_)
    ) && !kind.reads_memory()
        && deletable(ed, kind)
}

/// One group of uses that gets its own copy: where the copy goes and the
/// users it serves.
struct Group {
    /// The dominator-tree child of the defining block above every use.
    child: Block,
    /// The nearest common dominator of the uses (later: the copy's block).
    at: Block,
    /// The users.
    users: Vec<User>,
}

/// Sinks instruction `i` of block `d`; whether it moved.
fn sink_inst(ed: &mut Editor, d: Block, i: Inst) -> bool {
    let data = ed.inst(i);
    let Some(v) = data.result else { return false };
    if !movable(ed, &data.kind) || ed.is_unused(v) {
        return false;
    }
    let Some(groups) = group_uses(ed, d, v) else {
        return false;
    };
    if groups.len() > 1 && !disjoint(ed, d, &groups) {
        return false;
    }
    let (kind, loc, ty) = (data.kind.clone(), data.loc, ed.value_type(v));
    for g in &groups {
        let (_, copy) = ed.insert_inst(g.at, 0, kind.clone(), ty, loc);
        let copy = copy.expect("a movable instruction has a result");
        ed.replace_uses_in(v, copy, &g.users);
    }
    ed.remove_inst(i)
}

/// The uses of `v` (defined in `d`) grouped by the child of `d` they lie
/// under, each group placed at its uses' nearest common dominator lifted
/// to `d`'s loop; `None` when `v` stays: a use in `d`, a group that would
/// land in `d`, more than [`MAX_COPIES`] groups, or the walk budget spent.
fn group_uses(ed: &Editor, d: Block, v: Value) -> Option<Vec<Group>> {
    let mut budget = WALK_BUDGET;
    let mut groups: Vec<Group> = Vec::new();
    for &u in ed.uses(v) {
        let ub = match u {
            User::Inst(j) => ed.inst_block(j)?,
            User::Term(b) => b,
        };
        if ub == d {
            return None;
        }
        if let Some(g) = groups.iter_mut().find(|g| ed.dominates(g.child, ub)) {
            g.at = common_dominator(ed, g.at, ub, &mut budget)?;
            g.users.push(u);
            continue;
        }
        let mut child = ub;
        while ed.idom(child)? != d {
            budget = budget.checked_sub(1)?;
            child = ed.idom(child)?;
        }
        if groups.len() == MAX_COPIES {
            return None;
        }
        groups.push(Group {
            child,
            at: ub,
            users: vec![u],
        });
    }
    let home = ed.innermost(d);
    for g in &mut groups {
        // Never into a deeper loop: up to the nearest block of `d`'s loop
        // (a loop's preheader belongs to the enclosing loop, so one exists
        // on the way up to `d`).
        while ed.innermost(g.at) != home {
            budget = budget.checked_sub(1)?;
            g.at = ed.idom(g.at)?;
        }
        if g.at == d {
            return None;
        }
    }
    Some(groups)
}

/// The nearest common dominator of `a` and `b`, spending `budget` steps.
fn common_dominator(ed: &Editor, a: Block, b: Block, budget: &mut usize) -> Option<Block> {
    let mut c = a;
    while !ed.dominates(c, b) {
        *budget = budget.checked_sub(1)?;
        c = ed.idom(c)?;
    }
    Some(c)
}

/// Whether no path leads from one group's block to another's without
/// passing through `d` again (which computes a new value): then every
/// execution reaches at most one copy. Paths are followed inside the
/// blocks `d` strictly dominates; any path that leaves them must come
/// back through `d`.
fn disjoint(ed: &Editor, d: Block, groups: &[Group]) -> bool {
    let mut budget = REACH_BUDGET;
    for (k, g) in groups.iter().enumerate() {
        let mut seen = FxHashSet::default();
        let mut work = vec![g.at];
        while let Some(b) = work.pop() {
            for s in ed.succs(b) {
                if s == d || !ed.dominates(d, s) || !seen.insert(s) {
                    continue;
                }
                if groups.iter().enumerate().any(|(j, h)| j != k && h.at == s) {
                    return false;
                }
                let Some(left) = budget.checked_sub(1) else {
                    return false;
                };
                budget = left;
                work.push(s);
            }
        }
    }
    true
}
