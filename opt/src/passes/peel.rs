//! Loop peeling (Fritz §9.7) over [`Editor::peel_loop`]: the first
//! iteration of small innermost loops is peeled (run alone by name; not in
//! the `-O1` pipeline, where it would only grow code); at most [`MAX_PER_RUN`] loops per function and run, bodies of at
//! most [`MAX_INSTS`] instructions.

use crate::editor::Editor;

/// Largest loop body (instructions and terminators) that is peeled.
pub const MAX_INSTS: usize = 40;
/// Most peels per function and run.
pub const MAX_PER_RUN: usize = 4;

/// Peels the first iteration of every small innermost loop (up to the
/// limits); returns how many were peeled.
pub fn peel(ed: &mut Editor) -> usize {
    let mut n = 0;
    let loops = ed.loops();
    let candidates: Vec<_> = loops
        .iter()
        .copied()
        .filter(|&l| loops.iter().all(|&m| ed.loop_parent(m) != Some(l)))
        .collect();
    for l in candidates {
        if n >= MAX_PER_RUN {
            break;
        }
        let size: usize = ed.body(l).iter().map(|&b| ed.insts(b).len() + 1).sum();
        if size <= MAX_INSTS && ed.peel_loop(l) {
            n += 1;
        }
    }
    n
}
