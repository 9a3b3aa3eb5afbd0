//! Program-wide facts every native tier's unit needs before emitting code:
//! the table of string constants (`VmCtx::strings`) and how many globals
//! the code touches (`VmCtx::globals`).

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
