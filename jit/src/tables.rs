//! Program-wide facts every native tier's unit needs before emitting code:
//! the table of string constants (`VmCtx::strings`), how many globals
//! the code touches (`VmCtx::globals`), and the tiering counters
//! (`JitOptions::tier_counters`).

use std::collections::HashMap;

use cranelift_entity::EntityRef;
use waddle_opt::ir::{InstKind, Program};

/// Every distinct string constant of the program, in first-use order, or
/// `table` (a string table shared by several units, see
/// [`crate::JitOptions::string_table`]) extended by the constants it lacks.
pub(crate) fn collect_strings(
    program: &Program,
    table: Option<&[Box<str>]>,
) -> (Vec<Box<str>>, HashMap<Box<str>, usize>) {
    let mut texts: Vec<Box<str>> = table.map(<[_]>::to_vec).unwrap_or_default();
    let mut index: HashMap<Box<str>, usize> = (texts.iter().enumerate())
        .map(|(i, t)| (t.clone(), i))
        .collect();
    for f in program.funcs.values() {
        for &b in f.layout() {
            for &i in &f.blocks()[b].insts {
                if let InstKind::SConst(s) = &f.inst(i).kind {
                    if !index.contains_key(s) {
                        index.insert(s.clone(), texts.len());
                        texts.push(s.clone());
                    }
                }
            }
        }
    }
    (texts, index)
}

/// Number of globals the program's code uses (highest index + 1).
pub(crate) fn globals_used(program: &Program) -> usize {
    let mut n = 0;
    for f in program.funcs.values() {
        for &b in f.layout() {
            for &i in &f.blocks()[b].insts {
                if let InstKind::GlobalGet(g) | InstKind::GlobalSet(g, _) = f.inst(i).kind {
                    n = n.max(g.index() + 1);
                }
            }
        }
    }
    n
}

/// The tiering counters of a unit compiled with
/// [`crate::JitOptions::tier_counters`]: two cells per function of a
/// program of `funcs` functions (calls at `16 * index`, back edges at
/// `16 * index + 8` bytes from the start), starting at the options'
/// counts. Empty without counters. The code embeds the cells' address,
/// so the unit keeps the box (which never moves) as long as its code.
pub(crate) fn tier_counter_cells(
    opts: &crate::JitOptions,
    funcs: usize,
) -> Box<[std::sync::atomic::AtomicI64]> {
    match opts.tier_counters {
        Some((calls, edges)) => (0..funcs * 2)
            .map(|i| {
                let start = if i % 2 == 0 { calls } else { edges };
                std::sync::atomic::AtomicI64::new(i64::from(start.max(1)))
            })
            .collect(),
        None => Box::new([]),
    }
}

/// The address of the counter cell of function `index` (its back-edge
/// counter when `back_edge`) in cells starting at `base`
/// ([`tier_counter_cells`]).
pub(crate) fn tier_counter_cell(base: usize, index: usize, back_edge: bool) -> usize {
    base + 16 * index + if back_edge { 8 } else { 0 }
}
