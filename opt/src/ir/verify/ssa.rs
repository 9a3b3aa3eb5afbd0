//! Phase 3: reachability and SSA dominance (see the parent module).

use super::structure::Layout;
use super::Reporter;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::entities::{Block, Value};
use crate::ir::function::ValueDef;

/// Reports unreachable blocks and uses not dominated by their definitions.
pub(super) fn check(r: &mut Reporter<'_>, layout: &Layout) {
    let f = r.func;
    let cfg = ControlFlowGraph::compute(f);
    let dt = DomTree::compute(f, &cfg);
    for &b in &f.layout {
        if !dt.is_reachable(b) {
            r.block_error(b, "block is unreachable from the entry");
        }
    }
    // Whether the definition of `v` is available at position `pos` of block
    // `b` (`u32::MAX`: the terminator).
    let available = |v: Value, b: Block, pos: u32| -> bool {
        match f.values[v].def {
            ValueDef::Param(db, _) => dt.dominates(db, b),
            ValueDef::Inst(di) => match layout.inst_pos[di] {
                Some((db, dpos)) if db == b => dpos < pos,
                Some((db, _)) => dt.strictly_dominates(db, b),
                None => false,
            },
        }
    };
    for &b in &f.layout {
        if !dt.is_reachable(b) {
            continue;
        }
        let bd = &f.blocks[b];
        for (pos, &inst) in bd.insts.iter().enumerate() {
            let mut bad = Vec::new();
            f.insts[inst].kind.for_each_arg(|v| {
                if !available(v, b, pos as u32) && !bad.contains(&v) {
                    bad.push(v);
                }
            });
            for v in bad {
                r.inst_error(
                    b,
                    inst,
                    format!("use of {v} is not dominated by its definition"),
                );
            }
        }
        let mut bad = Vec::new();
        bd.term.for_each_arg(|v| {
            if !available(v, b, u32::MAX) && !bad.contains(&v) {
                bad.push(v);
            }
        });
        for v in bad {
            r.term_error(b, format!("use of {v} is not dominated by its definition"));
        }
    }
}
