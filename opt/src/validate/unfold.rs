//! Call unfolding: the callees a call may be replaced by while building a
//! denotation, so that inlining validates (issue 14; the thesis is
//! intraprocedural, Govereau §2.2, and names inlining the most important
//! open challenge, §8, sketching the full inlining of non-recursive code).
//!
//! A direct call to a function of the same program that is on no cycle of
//! direct calls is *unfolded* on both sides of a validation: the callee's
//! denotation is built in place, its parameters bound to the call's
//! arguments, its entry token to the call's token, and its loops nested at
//! the call's loop depth (the depth-indexed μ/η of digest §5.3 step 7). The
//! call's result is the callee's result and the token after the call is the
//! callee's final token. Calls of recursive functions stay uninterpreted
//! `Call` effects, as before.
//!
//! **Why this is sound.** Both sides unfold the bodies of one fixed
//! program, the one before the transformation (its functions are the
//! meaning of the original's calls). For the optimized side this relies on
//! the same hypothesis uninterpreted calls already rely on: the callee of
//! the optimized program means what it meant before, which the validation
//! of every function establishes together, by induction on the call depth
//! of terminating runs. Unfolding drops the call frame, so a run that
//! overflowed the stack may no longer do so: the guarantee (for runs on
//! which the original terminates without a trap) is unchanged.
//!
//! **Trusted base.** Callee bodies are brought to canonical form with
//! [`crate::canon::canonicalize`] (on a copy), as validated tier-up keeps a
//! canonicalized original; the cycle test is the validator's own.
//!
//! A budget of unfolded instructions per side bounds the graph; once it is
//! spent, further calls stay uninterpreted (which can only cost an alarm).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap;

use crate::ir::{FuncId, Function, InstKind, Program};

/// The functions calls are unfolded from (the program before the
/// transformation) and the bookkeeping of one validation.
pub struct Callees {
    program: Program,
    /// Whether each function is on a cycle of direct calls.
    recursive: Vec<bool>,
    /// Canonical copies, made on first use (`None`: cannot be made
    /// canonical or has no body).
    canonical: RefCell<FxHashMap<FuncId, Option<Rc<Function>>>>,
    /// Instructions that may still be unfolded on the side being built.
    budget: Cell<usize>,
    /// The budget each side starts with.
    limit: usize,
}

impl Callees {
    /// The callees of `program` (a copy of the program before the
    /// transformation), unfolding at most `limit` instructions per
    /// side of a validation.
    pub fn new(program: Program, limit: usize) -> Callees {
        Callees {
            recursive: recursive(&program),
            program,
            canonical: RefCell::new(FxHashMap::default()),
            budget: Cell::new(limit),
            limit,
        }
    }

    /// Function `f` is now `body` (the pipeline finished optimizing it):
    /// later calls of `f` unfold to it, as an inliner running bottom up
    /// inlines it ([`crate::passes::Pipeline`]).
    pub fn replace(&mut self, f: FuncId, body: &Function) {
        if let Some(slot) = self.program.funcs.get_mut(f) {
            *slot = body.clone();
            self.canonical.get_mut().remove(&f);
        }
    }

    /// Starts a side: the whole budget is available again.
    pub fn reset(&self) {
        self.budget.set(self.limit);
    }

    /// Whether `f` is on a cycle of direct calls.
    pub fn is_recursive(&self, f: FuncId) -> bool {
        self.recursive.get(f.index()).copied().unwrap_or(true)
    }

    /// The canonical body to unfold a call of `f` with, charging its size
    /// to the budget; `None` when `f` is recursive, has no body, cannot be
    /// made canonical or the budget is spent.
    pub fn body(&self, f: FuncId) -> Option<Rc<Function>> {
        if self.is_recursive(f) {
            return None;
        }
        let body = {
            let mut cache = self.canonical.borrow_mut();
            cache
                .entry(f)
                .or_insert_with(|| {
                    let orig = self.program.funcs.get(f)?;
                    if orig.is_declaration() {
                        return None;
                    }
                    let mut copy = orig.clone();
                    crate::canon::canonicalize(&mut copy).then(|| Rc::new(copy))
                })
                .clone()?
        };
        let size = body.inst_count();
        let left = self.budget.get();
        if size > left {
            return None;
        }
        self.budget.set(left - size);
        Some(body)
    }

    /// Every function of the program, callees before their callers (a
    /// depth-first postorder of the direct calls; the functions of a cycle
    /// in any order).
    pub fn bottom_up(&self) -> Vec<FuncId> {
        let n = self.program.funcs.len();
        let edges: Vec<Vec<FuncId>> = self.program.funcs.values().map(callees_of).collect();
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for root in 0..n {
            if std::mem::replace(&mut seen[root], true) {
                continue;
            }
            // (function, next callee to visit)
            let mut work = vec![(root, 0usize)];
            while let Some((f, k)) = work.last_mut() {
                let Some(c) = edges[*f].get(*k).map(|c| c.index()) else {
                    order.push(FuncId::new(*f));
                    work.pop();
                    continue;
                };
                *k += 1;
                if c < n && !std::mem::replace(&mut seen[c], true) {
                    work.push((c, 0));
                }
            }
        }
        order
    }

    /// Whether `f` calls a function of the program directly.
    pub fn has_calls(f: &Function) -> bool {
        f.layout.iter().any(|&b| {
            f.blocks[b]
                .insts
                .iter()
                .any(|&i| matches!(f.insts[i].kind, InstKind::Call(..)))
        })
    }
}

/// The direct callees of `f`.
fn callees_of(f: &Function) -> Vec<FuncId> {
    let mut out = Vec::new();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            if let InstKind::Call(c, _) = f.insts[i].kind {
                out.push(c);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether each function of `p` reaches itself by direct calls (the
/// validator's own test, digest §5.1 independence; a search from each
/// function, which is cheap at program sizes).
fn recursive(p: &Program) -> Vec<bool> {
    let n = p.funcs.len();
    let edges: Vec<Vec<FuncId>> = p.funcs.values().map(callees_of).collect();
    (0..n)
        .map(|root| {
            let mut seen = vec![false; n];
            let mut work: Vec<usize> = edges[root].iter().map(|c| c.index()).collect();
            while let Some(x) = work.pop() {
                if x >= n {
                    continue;
                }
                if x == root {
                    return true;
                }
                if std::mem::replace(&mut seen[x], true) {
                    continue;
                }
                work.extend(edges[x].iter().map(|c| c.index()));
            }
            false
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_program;

    #[test]
    fn recursion_is_found_through_cycles_only() {
        let p = parse_program(
            "fn fn0 \"a\"() -> int {
block0:
    v0: int = call fn1 \"b\"()
    return v0
}
fn fn1 \"b\"() -> int {
block0:
    v0: int = call fn2 \"c\"()
    return v0
}
fn fn2 \"c\"() -> int {
block0:
    v0: int = call fn1 \"b\"()
    return v0
}
fn fn3 \"d\"() -> int {
block0:
    v0: int = call fn3 \"d\"()
    return v0
}",
        )
        .unwrap();
        assert_eq!(recursive(&p), [false, true, true, true]);
    }
}
