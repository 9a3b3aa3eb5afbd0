//! Test-only fault injection: deliberately buggy variants of the real
//! passes (the mutants N1–N10 of the translation-validation digest §5.7),
//! each switched on for one closure on one thread by [`inject`], so the
//! validator's tests can show that every planted bug is caught.
//!
//! Only `cfg(test)` builds can switch a fault on; in every other build
//! [`on`] is a constant `false` and the buggy branches are dead code.

/// A planted bug.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Fault {
    /// N1: SCCP folds a constant branch to the wrong edge.
    SccpWrongEdge,
    /// N2: GVN treats `<` and `-` as commutative.
    GvnCommutes,
    /// N3: if simplification rewrites `a < b` to `b <= a` without
    /// swapping the branch targets.
    InvertedCondition,
    /// N4: LICM hoists element and global loads out of loops that write
    /// them.
    LicmHoistsLoads,
    /// N5: LICM turns a loop's `i < n` exit test into `i <= n`.
    OffByOne,
    /// N6: copy propagation replaces a loop's result by its initial value.
    LoopResultIsInit,
    /// N7: dead-code elimination removes a store that is read later.
    DropsStore,
    /// N8: LICM speculates a division above the test guarding it.
    SpeculatesDivision,
    /// N9: SCCP folds `+` without wrapping (saturating).
    FoldsWithoutWrap,
    /// N10: straightening passes a merged block's parameters swapped.
    SwapsJoinArgs,
}

#[cfg(test)]
thread_local! {
    static ACTIVE: std::cell::Cell<Option<Fault>> = const { std::cell::Cell::new(None) };
}

/// Whether `fault` is switched on (always false outside tests).
#[inline(always)]
pub(crate) fn on(fault: Fault) -> bool {
    #[cfg(test)]
    {
        ACTIVE.with(|a| a.get() == Some(fault))
    }
    #[cfg(not(test))]
    {
        let _ = fault;
        false
    }
}

/// Runs `body` with `fault` switched on for this thread.
#[cfg(test)]
pub(crate) fn inject<R>(fault: Fault, body: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(None));
        }
    }
    ACTIVE.with(|a| a.set(Some(fault)));
    let _reset = Reset;
    body()
}

use crate::editor::Editor;
use crate::ir::{BinaryOp, Cmp, InstKind, Terminator, ValueDef};

/// The branch conditions `icmp lt a, b` of the blocks `pick` selects.
fn lt_conditions(
    ed: &Editor,
    pick: impl Fn(&Editor, crate::ir::Block) -> bool,
) -> Vec<crate::ir::Inst> {
    let mut out = Vec::new();
    for b in ed.blocks() {
        if !pick(ed, b) {
            continue;
        }
        let Terminator::Switch { value: Some(c), .. } = ed.term(b) else {
            continue;
        };
        if let ValueDef::Inst(i) = ed.func().values[*c].def {
            if matches!(
                ed.inst(i).kind,
                InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), _, _)
            ) {
                out.push(i);
            }
        }
    }
    out
}

/// N3: `a < b` becomes `b <= a` (its negation) with the targets kept.
pub(crate) fn invert_conditions(ed: &mut Editor) -> usize {
    let insts = lt_conditions(ed, |_, _| true);
    for &i in &insts {
        if let InstKind::Binary(_, a, b) = ed.inst(i).kind {
            ed.set_inst_kind(i, InstKind::Binary(BinaryOp::ICmp(Cmp::Le), b, a));
        }
    }
    insts.len()
}

/// N5: a loop header's `i < n` test becomes `i <= n`.
pub(crate) fn off_by_one(ed: &mut Editor) -> usize {
    let insts = lt_conditions(ed, |ed, b| ed.loop_headed_by(b).is_some());
    for &i in &insts {
        if let InstKind::Binary(_, a, b) = ed.inst(i).kind {
            ed.set_inst_kind(i, InstKind::Binary(BinaryOp::ICmp(Cmp::Le), a, b));
        }
    }
    insts.len()
}

/// N6: a value leaving a loop is replaced by the initial value of the
/// header parameter it comes from.
pub(crate) fn loop_result_is_init(ed: &mut Editor) -> usize {
    let mut n = 0;
    for l in ed.loops() {
        let (h, ph) = (ed.header(l), ed.preheader(l));
        let init: Vec<_> = ed
            .term(ph)
            .successors()
            .next()
            .map_or(Vec::new(), |c| c.args.clone());
        for e in ed.exits(l) {
            let params = ed.params(e).to_vec();
            let preds = ed.preds(e);
            let [p] = preds.as_slice() else { continue };
            let Some(bc) = ed.term(*p).successors().find(|c| c.block == e).cloned() else {
                continue;
            };
            for (k, &arg) in bc.args.iter().enumerate() {
                let ValueDef::Param(pb, idx) = ed.func().values[arg].def else {
                    continue;
                };
                if pb == h && !ed.is_unused(params[k]) {
                    if let Some(&v) = init.get(idx as usize) {
                        ed.replace_all_uses(params[k], v);
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

/// N7: the first element store of the function is removed.
pub(crate) fn drop_store(ed: &mut Editor) -> usize {
    for b in ed.blocks() {
        for &i in ed.insts(b) {
            if matches!(ed.inst(i).kind, InstKind::ArraySet(..)) {
                return ed.remove_inst(i) as usize;
            }
        }
    }
    0
}
