//! Bounds-check elimination for counted loops over an array
//! (`for i in 0..len(a) { ... a[i] ... }`).
//!
//! Canonical form makes the shape easy to recognise: the loop header `h`
//! has an induction parameter `i` that enters from the dedicated preheader
//! as a non-negative constant and comes back from the unique latch as
//! `i + 1`; `h` ends in `br (i < n), t, exit` where `n = len(a)` is
//! computed outside the loop and the body neither resizes arrays (push,
//! pop) nor calls functions. A `bounds_check a, i` in a block dominated by
//! `t` (whose only predecessor is `h`) then always passes: `0 <= i < n =
//! len(a)`. The check is removed; the unchecked access stays.
//!
//! `len(a)` must also be unchanged between its computation and the loop:
//! the blocks on the dominator-tree path from its definition to the
//! preheader each have a single predecessor and contain no pop or call.

use crate::editor::{Editor, LoopId};
use crate::ir::{BinaryOp, Block, Cmp, InstKind, Terminator, Value, ValueDef};

/// The constant an int value is defined as, if any.
fn int_const(ed: &Editor, v: Value) -> Option<i64> {
    match ed.func().values[v].def {
        ValueDef::Inst(i) => match ed.inst(i).kind {
            InstKind::IConst(k) => Some(k),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}

/// Whether a block contains an instruction that can shrink an array.
fn may_shrink(ed: &Editor, b: Block, after: usize) -> bool {
    ed.insts(b)[after..]
        .iter()
        .any(|&i| matches!(ed.inst(i).kind, InstKind::ArrayPop(_) | InstKind::Call(..)))
}

/// The array `a` and induction parameter `i` of a counted loop `l` whose
/// body block `t` is entered only when `i < len(a)`, or None.
fn counted_loop(ed: &Editor, l: LoopId) -> Option<(Value, Value, Block)> {
    let h = ed.header(l);
    let Terminator::Switch {
        value: Some(c),
        cases,
        default,
    } = ed.term(h)
    else {
        return None;
    };
    if cases.len() != 1 || cases[0].0 != 1 || !cases[0].1.args.is_empty() {
        return None;
    }
    let t = cases[0].1.block;
    if t == default.block || ed.preds(t).len() != 1 || !ed.loop_contains(l, t) {
        return None;
    }
    let ValueDef::Inst(ci) = ed.func().values[*c].def else {
        return None;
    };
    let InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), i, n) = ed.inst(ci).kind else {
        return None;
    };
    let ValueDef::Param(pb, idx) = ed.func().values[i].def else {
        return None;
    };
    if pb != h {
        return None;
    }
    let ValueDef::Inst(ni) = ed.func().values[n].def else {
        return None;
    };
    let InstKind::ArrayLen(a) = ed.inst(ni).kind else {
        return None;
    };
    let nb = ed.inst_block(ni)?;
    if ed.loop_contains(l, nb) {
        return None;
    }
    // i enters as a constant >= 0 and steps by +1 along the backedge.
    let ph = ed.preheader(l);
    let latch = ed.latch(l);
    let entry_arg = edge_arg(ed, ph, h, idx as usize)?;
    if int_const(ed, entry_arg).is_none_or(|k| k < 0) {
        return None;
    }
    let back = edge_arg(ed, latch, h, idx as usize)?;
    let ValueDef::Inst(bi) = ed.func().values[back].def else {
        return None;
    };
    let InstKind::Binary(BinaryOp::IAdd, x, one) = ed.inst(bi).kind else {
        return None;
    };
    if x != i || int_const(ed, one) != Some(1) {
        return None;
    }
    // No resizing or calls in the loop.
    for b in ed.body(l) {
        for &ins in ed.insts(b) {
            if matches!(
                ed.inst(ins).kind,
                InstKind::ArrayPop(_) | InstKind::ArrayPush(..) | InstKind::Call(..)
            ) {
                return None;
            }
        }
    }
    // len(a) unchanged from its computation to the preheader.
    let pos = ed.insts(nb).iter().position(|&x| x == ni)? + 1;
    let mut cur = ph;
    loop {
        if cur == nb {
            if may_shrink(ed, nb, pos) {
                return None;
            }
            break;
        }
        if ed.preds(cur).len() != 1 || may_shrink(ed, cur, 0) {
            return None;
        }
        cur = ed.idom(cur)?;
    }
    Some((a, i, t))
}

/// The `idx`-th argument of the (single) edge from `from` to `to`.
fn edge_arg(ed: &Editor, from: Block, to: Block, idx: usize) -> Option<Value> {
    let mut found = None;
    for c in ed.term(from).successors() {
        if c.block == to {
            if found.is_some() {
                return None;
            }
            found = c.args.get(idx).copied();
        }
    }
    found
}

/// Removes the provably redundant bounds checks; returns how many.
pub fn bce(ed: &mut Editor) -> usize {
    let mut n = 0;
    ed.refresh_numbers();
    for l in ed.loops() {
        let Some((a, i, t)) = counted_loop(ed, l) else {
            continue;
        };
        for b in ed.body(l) {
            if !ed.dominates(t, b) {
                continue;
            }
            let checks: Vec<_> = (ed.insts(b).iter())
                .copied()
                .filter(|&ins| ed.inst(ins).kind == InstKind::BoundsCheck(a, i))
                .collect();
            n += ed.remove_insts(&checks);
        }
    }
    n
}
