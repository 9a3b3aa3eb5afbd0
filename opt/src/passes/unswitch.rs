//! Loop unswitching (Fritz §9.5) over [`Editor::unswitch_loop`]: a loop
//! with a two-way branch on a condition defined outside it (and not a
//! known constant) is duplicated, and the preheader picks the copy in
//! which the branch always goes one way. Limits from Fritz §10.2: loops of
//! at most [`MAX_BODY`] blocks, at most [`MAX_PER_RUN`] unswitches per
//! function and run; bodies over [`MAX_INSTS`] instructions are skipped.

use crate::editor::Editor;
use crate::ir::{InstKind, Terminator, ValueDef};

/// Largest loop body (blocks) that is unswitched.
pub const MAX_BODY: usize = 100;
/// Most unswitches per function and run.
pub const MAX_PER_RUN: usize = 3;
/// Largest loop body (instructions) that is unswitched.
pub const MAX_INSTS: usize = 200;

/// Runs unswitching; returns the number of loops unswitched.
pub fn unswitch(ed: &mut Editor) -> usize {
    let mut n = 0;
    'outer: while n < MAX_PER_RUN {
        for l in ed.loops() {
            let body = ed.body(l);
            if body.len() > MAX_BODY {
                continue;
            }
            let size: usize = body.iter().map(|&b| ed.insts(b).len() + 1).sum();
            if size > MAX_INSTS {
                continue;
            }
            for &b in &body {
                let Terminator::Switch {
                    value: Some(c),
                    cases,
                    default,
                } = ed.term(b)
                else {
                    continue;
                };
                if cases.len() != 1 || cases[0].1.block == default.block {
                    continue;
                }
                let invariant = ed.def_block(*c).is_some_and(|d| !ed.loop_contains(l, d));
                let constant = matches!(ed.func().values[*c].def,
                    ValueDef::Inst(i) if matches!(ed.inst(i).kind, InstKind::BConst(_) | InstKind::IConst(_)));
                if invariant && !constant && ed.unswitch_loop(l, b) {
                    n += 1;
                    continue 'outer;
                }
            }
        }
        break;
    }
    n
}
