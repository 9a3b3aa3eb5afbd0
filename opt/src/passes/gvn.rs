//! Global value numbering over the dominator tree (dominator-based
//! redundancy elimination): a pure instruction that computes the same
//! operation on the same operands as one in a dominating position is
//! replaced by it. Scoped hash table along a pre-order walk of the
//! maintained dominator tree; only instructions without side effects that
//! read no memory take part. A replacement that would use a value outside
//! its loop (breaking LCSSA) is skipped.

use rustc_hash::FxHashMap;

use crate::editor::Editor;
use crate::ir::{BinaryOp, Block, Cmp, InstKind, User, Value};

/// Runs GVN; returns the number of instructions removed. Linear in the
/// size of the function (expected): one hash probe per instruction, and
/// the redundant instructions of a block are removed together.
pub fn gvn(ed: &mut Editor) -> usize {
    ed.refresh_numbers();
    let mut table: FxHashMap<InstKind, Value> = FxHashMap::default();
    let mut n = 0;
    // (block, entering?) events; the undo log records keys added per block.
    let mut stack: Vec<(Block, bool)> = vec![(ed.entry(), true)];
    let mut undo: Vec<Vec<InstKind>> = Vec::new();
    let mut redundant = Vec::new();
    while let Some((b, enter)) = stack.pop() {
        if !enter {
            for k in undo.pop().unwrap_or_default() {
                table.remove(&k);
            }
            continue;
        }
        let mut added = Vec::new();
        for idx in 0..ed.insts(b).len() {
            let i = ed.insts(b)[idx];
            let data = ed.inst(i);
            let Some(r) = data.result else { continue };
            if data.kind.has_side_effects() || data.kind.reads_memory() {
                continue;
            }
            if matches!(data.kind, InstKind::SConst(_)) {
                continue;
            }
            let kind = mutant_key(&data.kind);
            if let Some(&prev) = table.get(&kind) {
                let ok = ed.uses(r).iter().all(|&u| {
                    let ub = match u {
                        User::Inst(x) => ed.inst_block(x),
                        User::Term(tb) => Some(tb),
                    };
                    ub.is_some_and(|ub| ed.lcssa_ok(prev, ub))
                });
                if ok {
                    ed.replace_all_uses(r, prev);
                    redundant.push(i);
                }
                continue;
            }
            let key = kind;
            table.insert(key.clone(), r);
            added.push(key);
        }
        n += ed.remove_insts(&redundant);
        redundant.clear();
        undo.push(added);
        stack.push((b, false));
        for &c in ed.dom_children(b).iter().rev() {
            stack.push((c, true));
        }
    }
    n
}

/// The table key of an instruction: the instruction itself, except under
/// the test-only fault N2, which wrongly treats `<` and `-` as commutative.
fn mutant_key(kind: &InstKind) -> InstKind {
    use super::fault::{on, Fault};
    match *kind {
        InstKind::Binary(op @ (BinaryOp::ICmp(Cmp::Lt) | BinaryOp::ISub), a, b)
            if on(Fault::GvnCommutes) && b < a =>
        {
            InstKind::Binary(op, b, a)
        }
        _ => kind.clone(),
    }
}
