//! Loop-invariant code motion into the dedicated preheader.
//!
//! Canonical form makes this cheap: every loop has a dedicated preheader
//! that ends in a plain jump to the header (Property 4.3.2), so an
//! invariant instruction moves to the end of the preheader without any
//! block being created, and the dominator tree, loop forest and LCSSA are
//! unaffected (the value is now defined outside the loop and was only
//! used inside it). Loops are visited inner first, so a value can move out
//! of several levels in one run.
//!
//! Hoisted: instructions without side effects that read no memory, whose
//! operands are all defined outside the loop (speculating them is safe:
//! they cannot trap). `len(a)` and global reads are hoisted too when the
//! loop contains no call (of a Waddle or a host function: either may
//! resize an array it can reach) and nothing that changes array lengths
//! (push/pop) or writes that global.

use rustc_hash::FxHashSet;

use crate::editor::Editor;
use crate::ir::{Block, InstKind, Value};

/// Runs LICM; returns the number of hoisted instructions.
pub fn licm(ed: &mut Editor) -> usize {
    use super::fault::{on, Fault};
    let mut n = 0;
    if on(Fault::OffByOne) {
        n += super::fault::off_by_one(ed);
    }
    for l in ed.loops() {
        let ph = ed.preheader(l);
        let body = ed.body(l);
        let (mut calls, mut resizes) = (false, false);
        let mut global_writes = Vec::new();
        for &b in &body {
            for &i in ed.insts(b) {
                match &ed.inst(i).kind {
                    // A host function may resize an array it was given
                    // (`Caller::array_push`), like a Waddle callee.
                    InstKind::Call(..) | InstKind::HostCall(..) => calls = true,
                    InstKind::ArrayPush(..) | InstKind::ArrayPop(..) => resizes = true,
                    InstKind::GlobalSet(g, _) => global_writes.push(*g),
                    _ => {}
                }
            }
        }
        // Hoisted results count as defined outside the loop from now on.
        let mut hoisted = Vec::new();
        let mut out = FxHashSet::<Value>::default();
        for &b in &body {
            for idx in 0..ed.insts(b).len() {
                let i = ed.insts(b)[idx];
                let kind = &ed.inst(i).kind;
                let movable = match kind {
                    InstKind::ArrayGet(..) | InstKind::GlobalGet(_)
                        if on(Fault::LicmHoistsLoads) =>
                    {
                        true
                    }
                    InstKind::Binary(op, _, _)
                        if op.may_trap() && on(Fault::SpeculatesDivision) =>
                    {
                        true
                    }
                    InstKind::ArrayLen(_) => !calls && !resizes,
                    InstKind::GlobalGet(g) => !calls && !global_writes.contains(g),
                    k => !k.has_side_effects() && !k.reads_memory(),
                };
                if !movable || ed.inst(i).result.is_none() {
                    continue;
                }
                let mut invariant = true;
                kind.for_each_arg(|v| {
                    if !out.contains(&v)
                        && ed
                            .def_block(v)
                            .is_none_or(|d: Block| ed.loop_contains(l, d))
                    {
                        invariant = false;
                    }
                });
                if invariant {
                    hoisted.push(i);
                    out.extend(ed.inst(i).result);
                }
            }
        }
        // In their order, so each hoisted operand is defined before use.
        ed.move_insts_to_end(&hoisted, ph);
        n += hoisted.len();
    }
    n
}
