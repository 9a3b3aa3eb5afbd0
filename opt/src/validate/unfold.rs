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
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::{FuncId, Function, InstKind, Program};

/// How many times larger the budget of a [`Callees::restrict`]ed
/// unfolding is.
pub const RESTRICTED_SCALE: usize = 4;

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
    /// The budget each side starts with while [`Callees::restrict`]ed.
    restricted_limit: usize,
    /// Whether a call stayed uninterpreted because the budget was spent
    /// (since [`Callees::take_exhausted`] last asked).
    exhausted: Cell<bool>,
    /// When set, only calls of these functions are unfolded
    /// ([`Callees::needed`]).
    only: RefCell<Option<FxHashSet<FuncId>>>,
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
            restricted_limit: limit.saturating_mul(RESTRICTED_SCALE),
            exhausted: Cell::new(false),
            only: RefCell::new(None),
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
        let restricted = self.only.borrow().is_some();
        self.budget.set(if restricted {
            self.restricted_limit
        } else {
            self.limit
        });
    }

    /// Whether a call stayed uninterpreted because the budget was spent
    /// (since [`Callees::take_exhausted`] last asked).
    pub fn exhausted(&self) -> bool {
        self.exhausted.get()
    }

    /// Whether a call stayed uninterpreted because the budget was spent
    /// since the last time this was asked.
    pub fn take_exhausted(&self) -> bool {
        self.exhausted.replace(false)
    }

    /// Unfolds only calls of the functions of `only` from now on, with a
    /// budget [`RESTRICTED_SCALE`] times larger (`None`: calls of every
    /// non-recursive function, with the budget given to [`Callees::new`]).
    /// The calls unfolded then are the ones an inliner replaced by their
    /// bodies, so the graph grows about as much as the optimized side's own
    /// code already does.
    pub fn restrict(&self, only: Option<FxHashSet<FuncId>>) {
        *self.only.borrow_mut() = only;
    }

    /// The non-recursive functions whose calls `before` and `after` must
    /// unfold to agree on the calls that remain: a function is needed when
    /// the two make a different number of calls of it, counting the calls
    /// made by the unfolded bodies of the functions already needed (to a
    /// fixpoint). Which calls are unfolded never matters for soundness
    /// (an unfolded call means what the call means, see the module doc);
    /// unfolding only these keeps the calls that an inliner left alone
    /// uninterpreted on both sides, so that a large program's budget goes
    /// to the calls that were inlined.
    pub fn needed(&self, before: &Function, after: &Function) -> FxHashSet<FuncId> {
        let n = self.program.funcs.len();
        let bodies: Vec<Vec<(usize, u64)>> = self.program.funcs.values().map(call_counts).collect();
        let (cb, ca) = (call_counts(before), call_counts(after));
        let mut set: FxHashSet<FuncId> = FxHashSet::default();
        loop {
            let (xb, xa) = (expand(&cb, &bodies, &set), expand(&ca, &bodies, &set));
            let mut grew = false;
            for f in 0..n {
                let id = FuncId::new(f);
                if xb[f] != xa[f] && !self.is_recursive(id) && set.insert(id) {
                    grew = true;
                }
            }
            if !grew {
                return set;
            }
        }
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
        if let Some(only) = &*self.only.borrow() {
            if !only.contains(&f) {
                return None;
            }
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
            self.exhausted.set(true);
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

    /// Whether `after` makes fewer static calls of some function than
    /// `before` and no more of any (what inlining does, and not what
    /// unrolling does, which copies calls). Then the two rarely validate
    /// with calls uninterpreted (see [`super::validate_in`]).
    pub fn calls_inlined(before: &Function, after: &Function) -> bool {
        let b: FxHashMap<usize, u64> = call_counts(before).into_iter().collect();
        let a = call_counts(after);
        let count = |f: usize| b.get(&f).copied().unwrap_or(0);
        let total_b: u64 = b.values().sum();
        let total_a: u64 = a.iter().map(|&(_, n)| n).sum();
        total_a < total_b && a.iter().all(|&(f, n)| n <= count(f))
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

/// The number of direct calls of each function in `f`, by function index.
fn call_counts(f: &Function) -> Vec<(usize, u64)> {
    let mut out: FxHashMap<usize, u64> = FxHashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            if let InstKind::Call(c, _) = f.insts[i].kind {
                *out.entry(c.index()).or_default() += 1;
            }
        }
    }
    out.into_iter().collect()
}

/// The number of calls of each function (of `bodies.len()`) made by a
/// function with direct calls `direct` when the calls of the functions of
/// `set` are unfolded, recursively, into the bodies `bodies`. The functions
/// of `set` are on no cycle, so the unfolding is finite and the relaxation
/// below reaches it within `bodies.len() + 1` steps.
fn expand(
    direct: &[(usize, u64)],
    bodies: &[Vec<(usize, u64)>],
    set: &FxHashSet<FuncId>,
) -> Vec<u64> {
    let n = bodies.len();
    let mut cnt = vec![0u64; n];
    for _ in 0..=n {
        let mut next = vec![0u64; n];
        for &(f, k) in direct {
            if let Some(x) = next.get_mut(f) {
                *x = x.saturating_add(k);
            }
        }
        for g in set {
            let cg = cnt[g.index()];
            for &(f, k) in &bodies[g.index()] {
                if let Some(x) = next.get_mut(f) {
                    *x = x.saturating_add(cg.saturating_mul(k));
                }
            }
        }
        if next == cnt {
            break;
        }
        cnt = next;
    }
    cnt
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
