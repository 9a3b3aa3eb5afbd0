//! Global value numbering over the dominator tree (dominator-based
//! redundancy elimination): a pure instruction that computes the same
//! operation on the same operands as one in a dominating position is
//! replaced by it. Scoped hash table along a pre-order walk of the
//! maintained dominator tree; only instructions without side effects that
//! read no memory take part. A replacement that would use a value outside
//! its loop (breaking LCSSA) is skipped.

use rustc_hash::FxHashMap;

use crate::editor::Editor;
use crate::ir::{Block, InstKind, Value};

/// Runs GVN; returns the number of instructions removed.
pub fn gvn(ed: &mut Editor) -> usize {
    ed.refresh_numbers();
    let mut table: FxHashMap<String, Value> = FxHashMap::default();
    let mut n = 0;
    // (block, entering?) events; the undo log records keys added per block.
    let mut stack: Vec<(Block, bool)> = vec![(ed.entry(), true)];
    let mut undo: Vec<Vec<String>> = Vec::new();
    while let Some((b, enter)) = stack.pop() {
        if !enter {
            for k in undo.pop().unwrap_or_default() {
                table.remove(&k);
            }
            continue;
        }
        let mut added = Vec::new();
        for i in ed.insts(b).to_vec() {
            let data = ed.inst(i);
            let Some(r) = data.result else { continue };
            if data.kind.has_side_effects() || data.kind.reads_memory() {
                continue;
            }
            if matches!(data.kind, InstKind::SConst(_)) {
                continue;
            }
            let key = format!("{:?}", data.kind);
            if let Some(&prev) = table.get(&key) {
                let ok = ed.uses(r).iter().all(|&u| {
                    let ub = match u {
                        crate::ir::User::Inst(x) => ed.inst_block(x),
                        crate::ir::User::Term(tb) => Some(tb),
                    };
                    ub.is_some_and(|ub| ed.lcssa_ok(prev, ub))
                });
                if ok {
                    ed.replace_all_uses(r, prev);
                    ed.remove_inst(i);
                    n += 1;
                }
                continue;
            }
            table.insert(key.clone(), r);
            added.push(key);
        }
        undo.push(added);
        stack.push((b, false));
        for &c in ed.dom_children(b).iter().rev() {
            stack.push((c, true));
        }
    }
    n
}
