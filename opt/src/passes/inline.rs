//! Function inlining with a size budget (Fritz §9.4), over
//! [`Editor::inline_call`].
//!
//! A direct call is inlined when the callee is not recursive (on no cycle
//! of direct calls, [`crate::analysis::callgraph`]: recursion depth counts
//! exactly the frames of recursive functions on every tier, so inlining
//! must never remove one), has at most [`CALLEE_BUDGET`] instructions, and every
//! block of it reaches a `return`; a caller stops growing past
//! [`CALLER_LIMIT`] instructions. Callees are inlined as they were when
//! the pass started (canonicalized copies), so one run inlines one level.

use rustc_hash::FxHashMap;

use crate::canon;
use crate::editor::Editor;
use crate::ir::{FuncId, Function, InstKind, Program};

/// Largest callee (in instructions and terminators) that is inlined.
pub const CALLEE_BUDGET: usize = 40;
/// A caller is not grown beyond this many instructions.
pub const CALLER_LIMIT: usize = 4000;

/// Canonicalized copies of the functions small enough to inline.
pub fn candidates(program: &Program) -> FxHashMap<FuncId, Function> {
    let mut out = FxHashMap::default();
    let recursive = crate::analysis::callgraph::recursive_functions(program);
    for (id, f) in program.funcs.iter() {
        if f.is_declaration() || f.inst_count() > CALLEE_BUDGET || recursive[id] {
            continue;
        }
        let mut copy = f.clone();
        if canon::canonicalize(&mut copy) {
            out.insert(id, copy);
        }
    }
    out
}

/// Inlines the eligible calls of the function being edited (`me`).
/// Returns the number of calls inlined.
pub fn inline_calls(ed: &mut Editor, me: FuncId, callees: &FxHashMap<FuncId, Function>) -> usize {
    let mut n = 0;
    let mut size = ed.func().inst_count();
    for b in ed.blocks() {
        for i in ed.insts(b).to_vec() {
            if size > CALLER_LIMIT {
                return n;
            }
            let InstKind::Call(c, _) = ed.inst(i).kind else {
                continue;
            };
            if c == me {
                continue;
            }
            let Some(callee) = callees.get(&c) else {
                continue;
            };
            if ed.inline_call(i, callee) {
                n += 1;
                size += callee.inst_count();
            }
        }
    }
    n
}
