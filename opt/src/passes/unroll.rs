//! Loop unrolling by two (Fritz §9.6) over [`Editor::unroll_loop`].
//! Innermost loops of at most [`MAX_INSTS`] instructions are unrolled,
//! each at most once per run and at most [`MAX_PER_RUN`] per function
//! (Fritz §10.2 allows 15 unroll applications per pass).

use crate::editor::Editor;

/// Largest loop body (instructions and terminators) that is unrolled.
pub const MAX_INSTS: usize = 40;
/// Most unrolls per function and run.
pub const MAX_PER_RUN: usize = 15;

/// Runs unrolling; returns the number of loops unrolled.
pub fn unroll(ed: &mut Editor) -> usize {
    let mut n = 0;
    let candidates: Vec<_> = ed
        .loops()
        .into_iter()
        .filter(|&l| ed.loops().iter().all(|&m| ed.loop_parent(m) != Some(l)))
        .collect();
    for l in candidates {
        if n >= MAX_PER_RUN {
            break;
        }
        let size: usize = ed.body(l).iter().map(|&b| ed.insts(b).len() + 1).sum();
        if size <= MAX_INSTS && ed.unroll_loop(l) {
            n += 1;
        }
    }
    n
}
