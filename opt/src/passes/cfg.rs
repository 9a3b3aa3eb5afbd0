//! Control-flow passes of Fritz ch. 9 over the editor's primitives:
//! if simplification (§9.2), jump simplification and jump threading
//! (§9.3), and straightening (§9.1). Worklists follow Fritz §10.2: a walk of
//! the dominator tree; items made stale by earlier edits are skipped, and
//! opportunities uncovered along the way wait for the next run of the pass.

use crate::editor::Editor;
use crate::ir::{InstKind, Terminator, UnaryOp, User, Value, ValueDef};

use super::sccp::taken_edge;

/// The switch key of a constant value, if it is one.
fn const_key(ed: &Editor, v: Value) -> Option<i64> {
    let ValueDef::Inst(i) = ed.func().values[v].def else {
        return None;
    };
    match ed.inst(i).kind {
        InstKind::IConst(k) => Some(k),
        InstKind::BConst(b) => Some(b as i64),
        _ => None,
    }
}

/// Makes every two-way branch on a negation `br !x, T, F` that is the
/// negation's only user branch on its operand, `br x, F, T`, and removes
/// the negation: a join that only passed on `!x` (`while !(a || b)`) is
/// then left instruction-free, for jump threading, which makes every
/// operand that holds leave the loop directly. Returns the number of
/// branches.
fn branch_on_negated_operands(ed: &mut Editor) -> usize {
    let mut n = 0;
    for b in ed.blocks() {
        let Terminator::Switch { value: Some(v), .. } = ed.term(b) else {
            continue;
        };
        let v = *v;
        let ValueDef::Inst(i) = ed.func().values[v].def else {
            continue;
        };
        let InstKind::Unary(UnaryOp::BNot, x) = ed.inst(i).kind else {
            continue;
        };
        // Only a negation the branch alone reads, which then goes: one
        // also passed on (`!p || q`, the condition handed to the `||`
        // join) must stay, and the branch on it lets jump threading know
        // its value on each edge.
        if ed.uses(v) != [User::Term(b)] {
            continue;
        }
        if ed.negate_branch(b, x) {
            n += 1;
            ed.remove_inst(i);
        }
    }
    n
}

/// If simplification: switches on a constant, and switches whose edges
/// are all identical, become jumps; a branch on a negation branches on its
/// operand ([`branch_on_negated_operands`]). Returns the number of
/// applications.
pub fn if_simplify(ed: &mut Editor) -> usize {
    let mut n = branch_on_negated_operands(ed);
    if super::fault::on(super::fault::Fault::InvertedCondition) {
        n += super::fault::invert_conditions(ed);
    }
    for b in ed.dom_preorder().into_iter().rev() {
        if !ed.is_live(b) {
            continue;
        }
        let term = ed.term(b);
        let Terminator::Switch {
            value: Some(v),
            cases,
            default,
        } = term
        else {
            continue;
        };
        let keep = if let Some(k) = const_key(ed, *v) {
            taken_edge(term, k)
        } else if cases.iter().all(|(_, c)| c == default) {
            Some(cases.len())
        } else {
            None
        };
        if let Some(keep) = keep {
            ed.fold_switch(b, keep);
            n += 1;
        }
    }
    n
}

/// Straightening: merges every block into its jump target when that
/// target has no other predecessor and the edge crosses no loop boundary.
pub fn straighten(ed: &mut Editor) -> usize {
    let mut n = 0;
    for a in ed.dom_preorder() {
        while ed.is_live(a) && ed.straighten(a) {
            n += 1;
        }
    }
    n
}

/// Jump simplification: a block `p` ending in a jump to an instruction-free
/// block `b` with several predecessors gets its own copy of `b`, which is
/// then straightened into `p` (§9.3 case 1).
pub fn jump_simplify(ed: &mut Editor) -> usize {
    let order = ed.dom_preorder();
    ed.with_dominator_budget(|ed| {
        let mut n = 0;
        for p in order.into_iter().rev() {
            if !ed.is_live(p) || !ed.can_thread(p) {
                continue;
            }
            if ed.thread_jump(p).is_some() {
                ed.straighten(p);
                n += 1;
            }
        }
        n
    })
}

/// Jump threading: where `p` jumps to an instruction-free block `b` that
/// switches on one of its parameters and `p` passes a constant for it (or
/// a condition its predecessor branched on, [`known_from_branch`]), `p`
/// gets a copy of `b` whose switch is then folded (§9.3 case 2). Branches
/// on a negation are first made to branch on its operand. An edge
/// of a two-way branch that passes the branch's own condition (the value is
/// then known on that edge: the `&&`/`||` pattern) is first split (§7.3)
/// and threaded the same way.
pub fn jump_thread(ed: &mut Editor) -> usize {
    let mut n = branch_on_negated_operands(ed);
    n += thread_condition_edges(ed);
    let order = ed.dom_preorder();
    n += ed.with_dominator_budget(|ed| thread_known_edges(ed, order));
    n
}

/// The main loop of [`jump_thread`] over the blocks of `order`, deepest
/// first.
fn thread_known_edges(ed: &mut Editor, order: Vec<crate::ir::Block>) -> usize {
    let mut n = 0;
    for p in order.into_iter().rev() {
        if !ed.is_live(p) || !ed.can_thread(p) {
            continue;
        }
        let Some(b) = ed.jump_target(p) else { continue };
        let Terminator::Switch { value: Some(v), .. } = ed.term(b) else {
            continue;
        };
        let ValueDef::Param(pb, idx) = ed.func().values[*v].def else {
            continue;
        };
        if pb != b {
            continue;
        }
        let Terminator::Switch { default, .. } = ed.term(p) else {
            continue;
        };
        let arg = default.args[idx as usize];
        let Some(k) = const_key(ed, arg).or_else(|| known_from_branch(ed, p, arg)) else {
            continue;
        };
        if ed.thread_jump(p).is_none() || !ed.straighten(p) {
            continue;
        }
        if let Some(keep) = taken_edge(ed.term(p), k) {
            ed.fold_switch(p, keep);
        }
        n += 1;
    }
    n
}

/// The value of the bool `c` in block `p` when `p`'s only predecessor
/// branches on `c` (or on what it passes for `c`, a parameter of `p`) and
/// only one of its edges leads to `p` (1 on the true edge, 0 on the false
/// one): a short-circuit operand passed on after the forwarding block of
/// its `&&`/`||` was copied into its predecessor.
fn known_from_branch(ed: &Editor, p: crate::ir::Block, c: Value) -> Option<i64> {
    let [q] = ed.preds(p)[..] else { return None };
    let Terminator::Switch {
        value: Some(v),
        cases,
        default,
    } = ed.term(q)
    else {
        return None;
    };
    if ed.value_type(c) != crate::ir::Type::Bool || cases.len() != 1 || cases[0].0 != 1 {
        return None;
    }
    let (on_true, on_false) = (cases[0].1.block == p, default.block == p);
    if on_true == on_false {
        return None;
    }
    // `c` itself, or a parameter of `p` that receives it on that edge.
    let edge = if on_true { &cases[0].1 } else { default };
    let c = match ed.func().values[c].def {
        ValueDef::Param(b, j) if b == p => edge.args[j as usize],
        _ => c,
    };
    (*v == c).then_some(i64::from(on_true))
}

/// Whether an instruction-free block `b` could take a threaded copy for
/// one more predecessor (the conditions of [`Editor::can_thread`] on `b`).
fn threadable_target(ed: &Editor, b: crate::ir::Block) -> bool {
    ed.insts(b).is_empty()
        && ed.has_several_preds(b)
        && ed.loop_headed_by(b).is_none()
        && ed.succs(b).iter().all(|&s| ed.loop_headed_by(s).is_none())
}

/// Threads edges `p -> b(.., c, ..)` of a branch `br c` where `b` switches
/// on the parameter receiving `c`.
fn thread_condition_edges(ed: &mut Editor) -> usize {
    let order = ed.dom_preorder();
    ed.with_dominator_budget(|ed| thread_condition_edges_in(ed, order))
}

/// [`thread_condition_edges`] over the blocks of `order`, deepest first.
fn thread_condition_edges_in(ed: &mut Editor, order: Vec<crate::ir::Block>) -> usize {
    let mut n = 0;
    for p in order.into_iter().rev() {
        if !ed.is_live(p) {
            continue;
        }
        let Terminator::Switch {
            value: Some(c),
            cases,
            default,
        } = ed.term(p).clone()
        else {
            continue;
        };
        if ed.value_type(c) != crate::ir::Type::Bool || cases.len() != 1 || cases[0].0 != 1 {
            continue;
        }
        let edges = [(cases[0].1.clone(), 1i64), (default, 0i64)];
        for (edge, known) in edges {
            let b = edge.block;
            if !ed.is_live(p) || !ed.is_live(b) || ed.edge_count(p, b) != 1 {
                continue;
            }
            if !threadable_target(ed, b) {
                continue;
            }
            let Terminator::Switch { value: Some(v), .. } = ed.term(b) else {
                continue;
            };
            let ValueDef::Param(pb, idx) = ed.func().values[*v].def else {
                continue;
            };
            if pb != b || edge.args[idx as usize] != c {
                continue;
            }
            let s = ed.split_edge_set(b, &[p]);
            if ed.thread_jump(s).is_none() || !ed.straighten(s) {
                continue;
            }
            if let Some(keep) = taken_edge(ed.term(s), known) {
                ed.fold_switch(s, keep);
            }
            n += 1;
        }
    }
    n
}
