//! Function inlining with a size budget (Fritz §9.4), over
//! [`Editor::inline_call`].
//!
//! A direct call is inlined when the callee is not recursive (on no cycle
//! of direct calls, [`crate::analysis::callgraph`]: recursion depth counts
//! exactly the frames of recursive functions on every tier, so inlining
//! must never remove one), costs at most [`CALLEE_BUDGET`] ([`inline_cost`]:
//! its instructions and terminators, without constants and plain jumps,
//! which compiled code folds into operands and fall-throughs), and every
//! block of it reaches a `return`; a caller stops growing past
//! [`CALLER_LIMIT`] instructions.
//!
//! A pipeline with this pass optimizes functions bottom up (callees first,
//! [`crate::analysis::callgraph::bottom_up_order`]) and offers each callee
//! as it was right after its own run of this pass ([`InlineCandidates`]):
//! with its callees inlined, so calls are inlined through any number of
//! levels, and otherwise as lowered, so the decisions and the inlined code
//! are the same under every pipeline that starts with `canon, inline`
//! (`-O1`, `-O2` and tier T3's: stack traces, which lose the frames of
//! inlined functions, agree between them), and the caller's loop passes
//! see each loop once. Run on its own ([`candidates`]), every callee is
//! inlined as it was when the pass started.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;

use crate::canon;
use crate::editor::Editor;
use crate::ir::{FuncId, Function, InstKind, Program, Terminator};

/// Largest callee ([`inline_cost`]) that is inlined.
pub const CALLEE_BUDGET: usize = 40;
/// A caller is not grown beyond this many instructions.
pub const CALLER_LIMIT: usize = 4000;

/// Canonicalized copies of the functions small enough to inline.
pub fn candidates(program: &Program) -> FxHashMap<FuncId, Function> {
    InlineCandidates::new(program).bodies
}

/// The inlinable callees of a program while a pipeline runs over it
/// bottom up: each starts as its lowered body and is replaced by its
/// optimized one once the pipeline has run on it.
#[derive(Default)]
pub struct InlineCandidates {
    /// Whether each function is recursive (never inlined).
    recursive: SecondaryMap<FuncId, bool>,
    /// Canonical bodies of the functions that may be inlined now.
    bodies: FxHashMap<FuncId, Function>,
}

impl InlineCandidates {
    /// The candidates of `program` as it is.
    pub fn new(program: &Program) -> InlineCandidates {
        let recursive = crate::analysis::callgraph::recursive_functions(program);
        InlineCandidates::with_recursive(program, recursive)
    }

    /// [`InlineCandidates::new`], given which functions are recursive
    /// ([`crate::analysis::callgraph::recursive_functions`]).
    pub fn with_recursive(
        program: &Program,
        recursive: SecondaryMap<FuncId, bool>,
    ) -> InlineCandidates {
        let mut out = InlineCandidates {
            recursive,
            bodies: FxHashMap::default(),
        };
        for (id, f) in program.funcs.iter() {
            if within_budget(f) {
                out.offer(id, f.clone());
            }
        }
        out
    }

    /// No candidates yet, for a pipeline that visits a program bottom up
    /// and offers each function as it goes ([`InlineCandidates::refresh`]);
    /// `recursive` tells which functions are recursive. A callee is always
    /// optimized before its callers (only recursive functions, which are
    /// never inlined, share a cycle with a caller), so the lowered bodies
    /// [`InlineCandidates::new`] copies would never be read, and copying
    /// and canonicalizing every function up front cost a tenth of `-O2` on
    /// a program of many small functions.
    pub fn bottom_up(recursive: SecondaryMap<FuncId, bool>) -> InlineCandidates {
        InlineCandidates {
            recursive,
            bodies: FxHashMap::default(),
        }
    }

    /// Withdraws the body of `id` (no caller is left to inline it).
    pub fn withdraw(&mut self, id: FuncId) {
        self.bodies.remove(&id);
    }

    /// Function `id` is now `f` (right after its own inlining, in canonical
    /// form, as an editor leaves it; `None` when it grew past the budget):
    /// offers `f` if it may be inlined and withdraws the old body. Returns
    /// the new body when there is one.
    pub fn refresh(&mut self, id: FuncId, f: Option<Function>) -> Option<&Function> {
        self.bodies.remove(&id);
        let f = f?;
        debug_assert!(
            canon::check_canonical(&f).is_ok(),
            "offered a non-canonical body"
        );
        if self.may_offer(id, &f) {
            self.bodies.insert(id, f);
        }
        self.bodies.get(&id)
    }

    /// Whether `f` (the body of `id`) may be inlined.
    fn may_offer(&self, id: FuncId, f: &Function) -> bool {
        !f.is_declaration() && within_budget(f) && !self.recursive[id]
    }

    /// Adds `f` as the body of `id` if it may be inlined.
    fn offer(&mut self, id: FuncId, mut f: Function) {
        if self.may_offer(id, &f) && canon::canonicalize(&mut f) {
            self.bodies.insert(id, f);
        }
    }

    /// The bodies, by function, for [`inline_calls`].
    pub fn bodies(&self) -> &FxHashMap<FuncId, Function> {
        &self.bodies
    }
}

/// What inlining `f` costs, counted only up to `limit + 1` (a larger cost
/// is reported as `limit + 1`): its instructions and terminators, except
/// constants (an immediate operand or a frame constant once inlined) and
/// unconditional jumps (a fall-through, or gone after straightening).
/// Counting stops early because the pipeline asks about every function,
/// generated ones of millions of instructions too.
pub fn inline_cost(f: &Function, limit: usize) -> usize {
    let free_term = |t: &Terminator| matches!(t, Terminator::Switch { value: None, .. });
    let mut cost = 0;
    for &b in &f.layout {
        let data = &f.blocks[b];
        cost += usize::from(!free_term(&data.term));
        for &i in &data.insts {
            let k = &f.insts[i].kind;
            if !matches!(
                k,
                InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_)
            ) {
                cost += 1;
            }
            if cost > limit {
                return limit + 1;
            }
        }
        if cost > limit {
            return limit + 1;
        }
    }
    cost
}

/// Whether `f` is small enough to inline ([`inline_cost`] at most
/// [`CALLEE_BUDGET`]).
pub fn within_budget(f: &Function) -> bool {
    inline_cost(f, CALLEE_BUDGET) <= CALLEE_BUDGET
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_program;

    #[test]
    fn cost_counting_stops_past_the_limit() {
        // Three instructions and a return; the constant is free.
        let text = "\
fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    v3: int = imul v2, v2
    v4: int = isub v3, v0
    return v4
}
";
        let p = parse_program(text).expect("parses");
        let f = &p.funcs[FuncId::from_u32(0)];
        assert_eq!(inline_cost(f, CALLEE_BUDGET), 4);
        assert_eq!(inline_cost(f, 4), 4);
        assert_eq!(inline_cost(f, 3), 4);
        assert_eq!(inline_cost(f, 1), 2);
        assert!(within_budget(f));
    }
}
