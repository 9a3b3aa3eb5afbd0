//! Copy propagation and dead code elimination (Fritz §4.1, ch. 10).
//!
//! - Copy propagation replaces every use of `r = copy v` by `v`, and every
//!   use of a *trivial* block parameter (all incoming arguments are the
//!   parameter itself or one value `o`, §5.4) by `o`, unless the
//!   parameter is an LCSSA exit parameter that must stay (the replacement
//!   would put a use of `o` outside `o`'s loop).
//! - Dead code elimination marks live what has side effects, what a
//!   terminator tests or returns, and (transitively) the operands of live
//!   instructions and the edge arguments of live block parameters; then
//!   it removes dead instructions and dead block parameters together with
//!   their edge arguments. One marking finds the whole fixpoint.

use cranelift_entity::SecondaryMap;

use crate::editor::Editor;
use crate::ir::{InstKind, Terminator, User, Value, ValueDef};

/// Copy propagation. Returns whether anything changed.
pub fn copy_propagate(ed: &mut Editor) -> bool {
    let mut changed = false;
    if super::fault::on(super::fault::Fault::LoopResultIsInit) {
        changed |= super::fault::loop_result_is_init(ed) > 0;
    }
    loop {
        let mut round = false;
        let mut copies = Vec::new();
        for b in ed.blocks() {
            for idx in 0..ed.insts(b).len() {
                let i = ed.insts(b)[idx];
                if let (InstKind::Copy(src), Some(r)) = (&ed.inst(i).kind, ed.inst(i).result) {
                    let src = *src;
                    let ok = ed.uses(r).iter().all(|&u| {
                        let ub = match u {
                            User::Inst(x) => ed.inst_block(x),
                            User::Term(tb) => Some(tb),
                        };
                        ub.is_some_and(|ub| ed.lcssa_ok(src, ub))
                    });
                    if ok {
                        ed.replace_all_uses(r, src);
                        copies.push(i);
                    }
                }
            }
            if !copies.is_empty() {
                ed.remove_insts(&copies);
                copies.clear();
                round = true;
            }
            if b == ed.entry() {
                continue;
            }
            let mut idx = 0;
            while idx < ed.params(b).len() {
                let p = ed.params(b)[idx];
                if let Some(o) = trivial_param(ed, b, idx) {
                    let ok = ed.uses(p).iter().all(|&u| {
                        let ub = match u {
                            User::Inst(x) => ed.inst_block(x),
                            User::Term(tb) => Some(tb),
                        };
                        ub.is_some_and(|ub| ed.lcssa_ok(o, ub))
                    });
                    if ok {
                        ed.replace_all_uses(p, o);
                        ed.remove_block_param(b, idx);
                        round = true;
                        continue;
                    }
                }
                idx += 1;
            }
        }
        changed |= round;
        if !round {
            return changed;
        }
    }
}

/// The single value other than the parameter itself passed to parameter
/// `idx` of `b` on every incoming edge, if there is one.
fn trivial_param(ed: &Editor, b: crate::ir::Block, idx: usize) -> Option<Value> {
    let p = ed.params(b)[idx];
    let mut other = None;
    for pred in ed.preds(b) {
        for c in ed.term(pred).successors() {
            if c.block != b {
                continue;
            }
            let a = c.args[idx];
            if a == p || Some(a) == other {
                continue;
            }
            if other.is_some() {
                return None;
            }
            other = Some(a);
        }
    }
    other
}

/// Whether an instruction may be deleted when its result is unused: it has
/// no side effect, or its only one is the division trap and its divisor is
/// a non-zero constant (`MIN / -1` wraps; the VSDG constructor and the
/// validator's effect token use the same rule).
pub(super) fn deletable(ed: &Editor, kind: &InstKind) -> bool {
    match *kind {
        InstKind::Binary(op, _, d) if op.may_trap() => ed.int_const(d).is_some_and(|k| k != 0),
        _ => !kind.has_side_effects(),
    }
}

/// Dead code elimination. Returns whether anything changed.
pub fn dce(ed: &mut Editor) -> bool {
    if super::fault::on(super::fault::Fault::DropsStore) && super::fault::drop_store(ed) > 0 {
        return true;
    }
    let mut live = SecondaryMap::<Value, bool>::with_capacity(ed.func().values.len());
    live.resize(ed.func().values.len());
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut SecondaryMap<Value, bool>, work: &mut Vec<Value>| {
        if !live[v] {
            live[v] = true;
            work.push(v);
        }
    };
    let blocks = ed.blocks();
    let entry = ed.entry();
    for &v in ed.params(entry) {
        mark(v, &mut live, &mut work);
    }
    for &b in &blocks {
        for &i in ed.insts(b) {
            if !deletable(ed, &ed.inst(i).kind) {
                ed.inst(i)
                    .kind
                    .for_each_arg(|v| mark(v, &mut live, &mut work));
            }
        }
        match ed.term(b) {
            Terminator::Switch { value: Some(v), .. } => mark(*v, &mut live, &mut work),
            Terminator::Return(Some(v)) => mark(*v, &mut live, &mut work),
            _ => {}
        }
    }
    while let Some(v) = work.pop() {
        match ed.func().values[v].def {
            ValueDef::Inst(i) => {
                ed.inst(i)
                    .kind
                    .for_each_arg(|a| mark(a, &mut live, &mut work));
            }
            ValueDef::Param(b, idx) => {
                for pred in ed.preds(b) {
                    for c in ed.term(pred).successors() {
                        if c.block == b {
                            mark(c.args[idx as usize], &mut live, &mut work);
                        }
                    }
                }
            }
        }
    }
    let mut dead_insts = Vec::new();
    let mut dead_params = Vec::new();
    for &b in &blocks {
        for &i in ed.insts(b) {
            let data = ed.inst(i);
            if deletable(ed, &data.kind) && !data.result.is_some_and(|r| live[r]) {
                dead_insts.push(i);
            }
        }
        if b != entry {
            for (idx, &p) in ed.params(b).iter().enumerate() {
                if !live[p] {
                    dead_params.push((b, idx));
                }
            }
        }
    }
    if dead_insts.is_empty() && dead_params.is_empty() {
        return false;
    }
    ed.remove_dead(&dead_insts, &dead_params)
}
