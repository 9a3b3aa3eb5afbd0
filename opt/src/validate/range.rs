//! R8, range facts: a bounds check that the path to it proves in range is
//! dropped from the token, under the facts that hold where its value is
//! observed (bounds-check elimination, `opt::passes::bce`).
//!
//! The thesis has no such rule (its checks are the division flag of
//! §3.3, never removed); this is the digest's R6 extended with the facts
//! its gates carry. The synchronous reading of the value graph (Govereau
//! §4.0.3, the stream equations of μ, η and φ) says *when* a node's value
//! is observed:
//!
//! - `φ{g_j → v_j}` observes `v_j` only at ticks where `g_j` holds;
//! - `μ_d(init, next)` observes `next` at tick `k` only when tick `k + 1`
//!   of the loop exists, i.e. when the loop's continue condition `cont_d`
//!   (`Graph::loop_cont`, recorded by `build`) holds at `k`;
//! - `η_d(c, v)` observes `v` at the loop's exit tick; facts that vary
//!   with no loop of depth `≥ d` hold there as well (they are constant
//!   across the loop's ticks), others are dropped.
//!
//! [`Rules::strip_checks`] copies the cone of a μ, an η or a φ under the facts
//! collected on the way (a context), and a `bounds_check a, i` reached
//! under a context that proves `0 <= i < len(a)` is replaced by its input
//! token. The copy of a μ under facts `F` (all invariant in its loop) is
//! `μ_d(init', next')` with `next'` copied under `F ∧ cont_d` and its
//! references to the μ made to the copy: by induction on ticks it equals
//! the original at every tick that is observed, so the copy may replace the
//! original everywhere (the rule starts with no facts).
//!
//! **What proves a check** `bounds_check(a, i)` at token `t`:
//! - `i < len(a)`: a fact `i < u` (or `¬(u <= i)`) with `u <= len(a at t)`
//!   by a chain of facts `u <= w` (or `¬(w < u)`), `min(x, y) <= x`, and
//!   equality with `len(a at t)` after the load rule R5 has moved the length
//!   read down the token chain (a loop whose cycle resizes no array is
//!   skipped, so `len` read before the loop is the length inside it);
//! - `0 <= i`: a constant `>= 0` or a length; `y + 1` when `0 <= y` and a
//!   fact `y < m` (so it does not wrap); or an induction variable
//!   `i = μ_d(i0, next)` with `0 <= i0` and `0 <= next` under the loop's
//!   continue condition assuming `0 <= i` (`next` is observed only on a
//!   tick that continues; by induction `i_k >= 0` on every tick that
//!   exists). So `i + 1` under `i < n` steps, and so does the unrolled
//!   `(i + 1) + 1` under `i < n ∧ i + 1 < n`.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::{smallvec, SmallVec};

use super::graph::{Args, EffKind, Id, LoadKind, Op};
use super::relevance::Relevance;
use super::rules::Rules;
use crate::ir::{BinaryOp, Cmp, Type};

/// Most facts a context keeps (further ones are dropped, which is sound:
/// fewer assumptions prove less).
const MAX_FACTS: usize = 12;
/// Deepest recursion of one copy.
const MAX_COPY_DEPTH: usize = 400;
/// Most case-split copies per validation.
const MAX_CASES: usize = 8;
/// Most (node, context) pairs one round explores.
///
/// Relevance pruning ([`super::relevance`]) keeps the largest exploration
/// on the corpus at 36 000 pairs; one that outgrows this finds nothing
/// (and is not retried in the validation, see [`Strip::outgrown`]).
const MAX_EXPLORE: usize = 50_000;

#[cfg(test)]
thread_local! {
    /// The explorations this thread ran that had a check to explore
    /// (tests count them).
    pub(super) static EXPLORATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The (node, context) pairs the copy of a node visits next.
type Successors = SmallVec<[(Id, u32); 4]>;

/// The per-round state of R8.
#[derive(Default)]
pub struct Strip {
    /// Interned contexts (sorted fact sets); context 0 is empty.
    ctxs: Vec<Vec<Id>>,
    ctx_ids: FxHashMap<Vec<Id>, u32>,
    /// (node, context) pairs whose cone holds a provable check.
    useful: Option<FxHashSet<(Id, u32)>>,
    /// Copies made this round.
    copies: FxHashMap<(Id, u32), Id>,
    /// Memo of [`Rules::with_fact`]: (context, gate) → context.
    with_memo: FxHashMap<(u32, Id), u32>,
    /// Memo of [`Rules::below`] and [`Rules::at_exit`]: (context, depth,
    /// continue condition or `Id(u32::MAX)` for `below`) → context.
    depth_memo: FxHashMap<(u32, u16, Id), u32>,
    /// Memo of the length read [`Rules::below_len`] compares with:
    /// (array, token) → length.
    len_memo: FxHashMap<(Id, Id), Id>,
    /// The facts relevant to each node's cone ([`super::relevance`]); a
    /// pair whose node's cone holds no check can never reach a proved
    /// check, so exploration skips it.
    pub(super) rel: Relevance,
    /// A copy ran out of depth this round: no more copies.
    failed: bool,
    /// The exploration outgrew [`MAX_EXPLORE`] pairs this round.
    pub(super) outgrown: bool,
    /// Whether R8 may explore and copy in this pass over the round's
    /// nodes: [`super::check`] enables it only when the other rules find
    /// nothing to rewrite, as its exploration is the costliest step of a
    /// round (R8 is a completeness rule: when it runs changes no verdict's
    /// soundness).
    pub(super) enabled: bool,
}

impl Rules<'_> {
    /// R8 at a μ, an η or a φ: the node with the bounds checks its observers'
    /// facts prove dropped (see the module doc), if there are any.
    pub(super) fn strip_checks(&mut self, n: Id) -> Option<Id> {
        if !self.range.enabled {
            return None;
        }
        if self.range.useful.is_none() {
            let useful = self.explore();
            self.range.useful = Some(useful);
        }
        if self.range.failed || !self.range.useful.as_ref()?.contains(&(n, 0)) {
            return None;
        }
        let out = self.copy(n, 0, 0);
        if self.range.failed {
            return None;
        }
        out.filter(|&m| m != n)
    }

    /// The branches of a two-way φ, as representatives.
    fn two_way(&self, n: Id) -> Option<[(Id, Id); 2]> {
        let node = self.g.node(n);
        (node.op == Op::Phi && node.args.len() == 4).then(|| {
            let a: Vec<Id> = node.args.iter().map(|&x| self.r(x)).collect();
            [(a[0], a[1]), (a[2], a[3])]
        })
    }

    /// R8's case split (loop versioning, P12 restricted to checks) at the
    /// φ `n`: `φ{g → X, h → Y} ↓ Y` once `Y'`, `Y` copied under `g` with
    /// the checks `g` proves dropped, is in `X`'s class (so `X = Y' = Y`
    /// wherever `g` holds). `Y'` is made in one round and kept as an extra
    /// root of the refinement (`Graph::case_copy`), and compared in later
    /// rounds, when refinement has had the chance to merge its loops with
    /// `X`'s. At most [`MAX_CASES`] copies per validation.
    pub(super) fn case_split(&mut self, n: Id) -> Option<Id> {
        let [(g0, v0), (g1, v1)] = self.two_way(n)?;
        for (g, x, y) in [(g0, v0, v1), (g1, v1, v0)] {
            if let Some(copy) = self.g.case_copy(y, g) {
                if self.same(copy, x) {
                    return Some(y);
                }
                continue;
            }
            if !self.range.enabled || self.g.case_count() >= MAX_CASES || self.range.failed {
                continue;
            }
            if self.range.useful.is_none() {
                let useful = self.explore();
                self.range.useful = Some(useful);
            }
            let c = self.with_fact(0, g);
            let c = self.restrict(c, y);
            if !self.range.useful.as_ref()?.contains(&(y, c)) {
                continue;
            }
            if let Some(copy) = self.copy(y, c, 0).filter(|&m| m != y) {
                if !self.range.failed {
                    self.g.set_case_copy(y, g, copy);
                }
            }
        }
        None
    }

    pub(super) fn ctx_id(&mut self, mut facts: Vec<Id>) -> u32 {
        self.resolve_units(&mut facts);
        facts.retain(|&f| self.usable_fact(f));
        facts.sort();
        facts.dedup();
        facts.truncate(MAX_FACTS);
        if self.range.ctxs.is_empty() {
            self.range.ctxs.push(Vec::new());
            self.range.ctx_ids.insert(Vec::new(), 0);
        }
        if let Some(&c) = self.range.ctx_ids.get(&facts) {
            return c;
        }
        let c = self.range.ctxs.len() as u32;
        self.range.ctxs.push(facts.clone());
        self.range.ctx_ids.insert(facts, c);
        c
    }

    /// Unit resolution on the facts of a context: a disjunction whose
    /// disjuncts the other facts refute all but one adds that one's
    /// conjuncts (`a ∨ b` and `¬a` give `b`). Disjunctions are not facts a
    /// proof reads, but an exit gate holds them: the return of a doubled
    /// loop from its second half says "the first half went on (`a[j] ≠ t`)
    /// and the loop returned (`a[j] = t ∨ (j + 1 < len ∧ a[j + 1] = t)`)"
    /// (control/nested_loops_return), which gives `j + 1 < len` for the
    /// second half's check. Sound: every fact holds where the context is
    /// observed, so what they imply does too.
    fn resolve_units(&mut self, facts: &mut Vec<Id>) {
        for _ in 0..2 {
            let mut added = Vec::new();
            for &f in facts.iter() {
                let f = self.r(f);
                let node = self.g.node(f);
                if node.op != Op::Or {
                    continue;
                }
                let mut open = (node.args.iter().copied()).filter(|&x| !self.refuted(x, facts));
                if let (Some(x), None) = (open.next(), open.next()) {
                    added.push(x);
                }
            }
            if added.is_empty() {
                return;
            }
            let before = facts.len();
            for x in added {
                self.conjuncts_into(x, facts, 4);
            }
            facts.sort();
            facts.dedup();
            if facts.len() == before {
                return;
            }
        }
    }

    /// Whether a fact of `facts` is the negation of `x` or of one of its
    /// conjuncts, by class.
    fn refuted(&self, x: Id, facts: &[Id]) -> bool {
        let x = self.r(x);
        let node = self.g.node(x);
        if node.op == Op::And {
            return node.args.iter().any(|&y| self.refuted_atom(y, facts));
        }
        self.refuted_atom(x, facts)
    }

    /// Whether a fact of `facts` is the negation of `x`, by class.
    fn refuted_atom(&self, x: Id, facts: &[Id]) -> bool {
        let x = self.r(x);
        facts.iter().any(|&f| {
            let f = self.r(f);
            self.g.negation(x).is_some_and(|n| self.r(n) == f)
                || self.g.negation(f).is_some_and(|n| self.r(n) == x)
        })
    }

    /// Whether a proof can read the fact `f`: only integer comparisons
    /// `<`, `<=` and their negations ([`Rules::comparisons`]) and loop-exit
    /// values `η` and their negations ([`Rules::at_exit`]) are ever read.
    /// Dropping the others is sound (fewer assumptions prove less) and
    /// complete (nothing read them), and keeps distinct contexts few.
    fn usable_fact(&self, f: Id) -> bool {
        let n = self.g.node(f);
        let n = match n.op {
            Op::Not => self.g.node(self.r(n.args[0])),
            _ => n,
        };
        matches!(
            n.op,
            Op::Bin(BinaryOp::ICmp(Cmp::Lt | Cmp::Le)) | Op::Eta(_)
        )
    }

    pub(super) fn facts(&self, c: u32) -> &[Id] {
        self.range
            .ctxs
            .get(c as usize)
            .map_or(&[], |v| v.as_slice())
    }

    /// Context `c` with the conjuncts of `f` added.
    fn with_fact(&mut self, c: u32, f: Id) -> u32 {
        if let Some(&m) = self.range.with_memo.get(&(c, f)) {
            return m;
        }
        let mut facts = self.facts(c).to_vec();
        let before = facts.len();
        self.conjuncts_into(f, &mut facts, 4);
        let m = if facts.len() == before {
            c
        } else {
            self.ctx_id(facts)
        };
        self.range.with_memo.insert((c, f), m);
        m
    }

    /// Pushes the conjuncts of the gate `f` (through `And`, `¬Or` and
    /// `¬¬`) onto `out`.
    fn conjuncts_into(&mut self, f: Id, out: &mut Vec<Id>, fuel: u8) {
        let f = self.r(f);
        if self.g.bool_of(f).is_some() {
            return;
        }
        let node = self.g.node(f).clone();
        match node.op {
            Op::And if fuel > 0 => {
                for x in node.args {
                    self.conjuncts_into(x, out, fuel - 1);
                }
            }
            Op::Not if fuel > 0 => {
                let inner = self.r(node.args[0]);
                let inode = self.g.node(inner).clone();
                match inode.op {
                    Op::Or => {
                        for x in inode.args {
                            let x = self.r(x);
                            let nx = self.g.not(x);
                            self.conjuncts_into(nx, out, fuel - 1);
                        }
                    }
                    Op::Not => self.conjuncts_into(inode.args[0], out, fuel - 1),
                    _ => out.push(f),
                }
            }
            _ => out.push(f),
        }
    }

    /// The context of the value of `η_d(cont, ·)` at its exit tick:
    /// the facts of `c` invariant in the loop, and for each fact
    /// `η_d(cont, x)` (or its negation) the conjuncts of `x` (of `¬x`),
    /// which is what the fact says at that tick.
    fn at_exit(&mut self, c: u32, d: u16, cont: Id) -> u32 {
        if let Some(&m) = self.range.depth_memo.get(&(c, d, cont)) {
            return m;
        }
        let m = self.at_exit_uncached(c, d, cont);
        self.range.depth_memo.insert((c, d, cont), m);
        m
    }

    fn at_exit_uncached(&mut self, c: u32, d: u16, cont: Id) -> u32 {
        let mut facts: Vec<Id> = (self.facts(c).iter().copied())
            .filter(|&f| self.depth_of(f) < d)
            .collect();
        let all = self.facts(c).to_vec();
        for f in all {
            let node = self.g.node(f).clone();
            let (neg, e) = match node.op {
                Op::Not => (true, self.r(node.args[0])),
                _ => (false, f),
            };
            let en = self.g.node(e).clone();
            if en.op == Op::Eta(d) && self.r(en.args[0]) == cont {
                let x = self.r(en.args[1]);
                let x = if neg { self.g.not(x) } else { x };
                self.conjuncts_into(x, &mut facts, 4);
            }
        }
        if facts == self.facts(c) {
            return c;
        }
        self.ctx_id(facts)
    }

    /// Context `c` without the facts that vary with a loop of depth `>= d`.
    fn below(&mut self, c: u32, d: u16) -> u32 {
        let key = (c, d, Id(u32::MAX));
        if let Some(&m) = self.range.depth_memo.get(&key) {
            return m;
        }
        let facts: Vec<Id> = (self.facts(c).iter().copied())
            .filter(|&f| self.depth_of(f) < d)
            .collect();
        let m = if facts.len() == self.facts(c).len() {
            c
        } else {
            self.ctx_id(facts)
        };
        self.range.depth_memo.insert(key, m);
        m
    }

    /// The (node, context) pairs the copy of `x` under `c` visits, with
    /// the contexts their arguments are copied under.
    fn successors(&mut self, x: Id, c: u32) -> Successors {
        let node = self.g.node(x);
        let op = node.op.clone();
        let a: SmallVec<[Id; 4]> = node.args.iter().map(|&y| self.r(y)).collect();
        let mut out: Successors = match op {
            Op::Mu(d) => {
                let inner = self.below(c, d);
                let next_ctx = match self.g.loop_cont(x) {
                    Some(cont) => self.with_fact(inner, cont),
                    None => inner,
                };
                smallvec![(a[0], inner), (a[1], next_ctx)]
            }
            Op::Eta(d) => {
                let inner = self.below(c, d);
                let exit = self.at_exit(c, d, a[0]);
                smallvec![(a[0], inner), (a[1], exit)]
            }
            Op::Phi => {
                let mut out = Successors::with_capacity(a.len());
                for pair in a.chunks(2) {
                    out.push((pair[0], c));
                    // A branch with no check in its cone is never copied:
                    // its context does not matter.
                    let vc = if self.may_check(pair[1]) {
                        self.with_fact(c, pair[0])
                    } else {
                        c
                    };
                    out.push((pair[1], vc));
                }
                out
            }
            _ => a.into_iter().map(|y| (y, c)).collect(),
        };
        // Each argument keeps only the facts its cone's checks can read.
        for p in out.iter_mut() {
            p.1 = self.restrict(p.1, p.0);
        }
        out
    }

    /// The input token of `x` when `x` is the token after a bounds check
    /// that context `c` proves.
    fn proved_check(&mut self, x: Id, c: u32) -> Option<Id> {
        let node = self.g.node(x);
        if node.op != Op::Proj(1) {
            return None;
        }
        let e = self.r(node.args[0]);
        let en = self.g.node(e);
        if en.op != Op::Eff(EffKind::BoundsCheck) {
            return None;
        }
        let (a, raw_i, t) = (self.r(en.args[0]), en.args[1], self.r(en.args[2]));
        let i = self.r(raw_i);
        // `raw_i` unresolved: `non_negative` reads the loop of the check's
        // own μ, not only that of its class's representative.
        (self.non_negative(raw_i, c, None, 6) && self.below_len(i, a, t, c)).then_some(t)
    }

    /// Every (node, context) pair reachable from the round's μ's, η's and φ's
    /// (with no facts) whose cone holds a check its context proves.
    fn explore(&mut self) -> FxHashSet<(Id, u32)> {
        let mut useful = FxHashSet::default();
        let has_check = self
            .cls
            .reached
            .iter()
            .any(|&n| self.g.node(n).op == Op::Eff(EffKind::BoundsCheck));
        if !has_check {
            return useful;
        }
        #[cfg(test)]
        EXPLORATIONS.with(|n| n.set(n.get() + 1));
        self.mark_relevance();
        let mut index: FxHashMap<(Id, u32), usize> = FxHashMap::default();
        let mut pairs: Vec<(Id, u32)> = Vec::new();
        // The predecessors of each pair as linked lists in one array (no
        // allocation per pair): `pred_head[q]` is the first edge into `q`,
        // an edge is (predecessor, next edge), `u32::MAX` ends a list.
        let mut pred_head: Vec<u32> = Vec::new();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut good: Vec<usize> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let nodes: Vec<Id> = (self.cls.reached.iter().copied())
            .filter(|&n| {
                self.r(n) == n && matches!(self.g.node(n).op, Op::Mu(_) | Op::Eta(_) | Op::Phi)
            })
            .collect();
        let mut starts: Vec<(Id, u32)> = (nodes.iter())
            .filter(|&&n| self.may_check(n))
            .map(|&n| (n, 0))
            .collect();
        // The case split: each branch of a two-way φ under the other's gate.
        for &n in &nodes {
            if let Some([(g0, v0), (g1, v1)]) = self.two_way(n) {
                if self.may_check(v0) {
                    let c1 = self.with_fact(0, g1);
                    starts.push((v0, self.restrict(c1, v0)));
                }
                if self.may_check(v1) {
                    let c0 = self.with_fact(0, g0);
                    starts.push((v1, self.restrict(c0, v1)));
                }
            }
        }
        for s in starts {
            if let std::collections::hash_map::Entry::Vacant(v) = index.entry(s) {
                v.insert(pairs.len());
                stack.push(pairs.len());
                pairs.push(s);
                pred_head.push(u32::MAX);
            }
        }
        while let Some(p) = stack.pop() {
            if pairs.len() > MAX_EXPLORE {
                self.range.failed = true;
                self.range.outgrown = true;
                return useful;
            }
            let (x, c) = pairs[p];
            let succ = match self.proved_check(x, c) {
                Some(t) => {
                    good.push(p);
                    smallvec![(t, self.restrict(c, t))]
                }
                None => self.successors(x, c),
            };
            for (y, yc) in succ {
                if self.g.node(y).args.is_empty() || !self.may_check(y) {
                    continue;
                }
                let q = match index.get(&(y, yc)) {
                    Some(&q) => q,
                    None => {
                        let q = pairs.len();
                        index.insert((y, yc), q);
                        pairs.push((y, yc));
                        pred_head.push(u32::MAX);
                        stack.push(q);
                        q
                    }
                };
                edges.push((p as u32, pred_head[q]));
                pred_head[q] = (edges.len() - 1) as u32;
            }
        }
        let mut mark = vec![false; pairs.len()];
        while let Some(p) = good.pop() {
            if std::mem::replace(&mut mark[p], true) {
                continue;
            }
            useful.insert(pairs[p]);
            let mut e = pred_head[p];
            while e != u32::MAX {
                good.push(edges[e as usize].0 as usize);
                e = edges[e as usize].1;
            }
        }
        useful
    }

    /// The copy of `x` under context `c` with the proved checks dropped
    /// (`x` itself when its cone holds none).
    fn copy(&mut self, x: Id, c: u32, depth: usize) -> Option<Id> {
        let x = self.r(x);
        if !self.range.useful.as_ref()?.contains(&(x, c)) {
            return Some(x);
        }
        if let Some(&m) = self.range.copies.get(&(x, c)) {
            return Some(m);
        }
        if depth > MAX_COPY_DEPTH || self.range.failed {
            self.range.failed = true;
            return None;
        }
        if let Some(t) = self.proved_check(x, c) {
            let tc = self.restrict(c, t);
            let m = self.copy(t, tc, depth + 1)?;
            self.range.copies.insert((x, c), m);
            return Some(m);
        }
        let succ = self.successors(x, c);
        let node = self.g.node(x).clone();
        if let Op::Mu(d) = node.op {
            let mu = self.g.open_mu(d, node.ty, succ[0].0);
            self.range.copies.insert((x, c), mu);
            let init = self.copy(succ[0].0, succ[0].1, depth + 1)?;
            let next = self.copy(succ[1].0, succ[1].1, depth + 1)?;
            self.g.set_arg(mu, 0, init);
            self.g.patch_mu(mu, next);
            if let Some(cont) = self.g.loop_cont(x) {
                // The condition is observed at every tick of the loop, where
                // every fact of `below(c, d)` holds; `succ[0].1` is that
                // context restricted to the init's cone, a subset, so the
                // copy is sound. It proves less than the condition's own
                // restriction could, but only pairs the exploration visited
                // are copied, and the condition's cone is explored through
                // the η's (which share the init's facts): copying under
                // `restrict(below(c, d), cont)` instead left the condition
                // of copied loops uncopied and lost three corpus functions.
                let inner = succ[0].1;
                let cont = self.copy(cont, inner, depth + 1)?;
                self.g.set_loop_cont(mu, cont);
            }
            return Some(mu);
        }
        let mut args = Args::with_capacity(succ.len());
        for (y, yc) in succ {
            args.push(self.copy(y, yc, depth + 1)?);
        }
        let m = self.g.intern(node.op, node.ty, args);
        self.range.copies.insert((x, c), m);
        Some(m)
    }

    /// The facts of context `c` as comparisons `(op, lhs, rhs)` with
    /// `¬(x < y)` read as `y <= x` and `¬(x <= y)` as `y < x` (integers).
    fn comparisons(&self, c: u32) -> Vec<(Cmp, Id, Id)> {
        let mut out = Vec::new();
        for &f in self.facts(c) {
            let n = self.g.node(f);
            match n.op {
                Op::Bin(BinaryOp::ICmp(cc @ (Cmp::Lt | Cmp::Le))) => {
                    out.push((cc, self.r(n.args[0]), self.r(n.args[1])));
                }
                Op::Not => {
                    let m = self.g.node(self.r(n.args[0]));
                    match m.op {
                        Op::Bin(BinaryOp::ICmp(Cmp::Lt)) => {
                            out.push((Cmp::Le, self.r(m.args[1]), self.r(m.args[0])));
                        }
                        Op::Bin(BinaryOp::ICmp(Cmp::Le)) => {
                            out.push((Cmp::Lt, self.r(m.args[1]), self.r(m.args[0])));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Whether context `c` proves `i < len(a)` at token `t`.
    fn below_len(&mut self, i: Id, a: Id, t: Id, c: u32) -> bool {
        let facts = self.comparisons(c);
        if facts.is_empty() {
            return false;
        }
        let len = match self.range.len_memo.get(&(a, t)) {
            Some(&len) => len,
            None => {
                let at = self
                    .g
                    .intern(Op::Load(LoadKind::Len), Type::Int, vec![a, t]);
                let len = self.load(LoadKind::Len, Type::Int, &[a, t]).unwrap_or(at);
                self.range.len_memo.insert((a, t), len);
                len
            }
        };
        facts
            .iter()
            .any(|&(cc, x, u)| cc == Cmp::Lt && x == i && self.at_most(u, len, &facts, 4))
    }

    /// Whether `u <= len` follows from the facts (`len` a length read).
    fn at_most(&self, u: Id, len: Id, facts: &[(Cmp, Id, Id)], fuel: u8) -> bool {
        if self.same_len(u, len) {
            return true;
        }
        if fuel == 0 {
            return false;
        }
        let n = self.g.node(u);
        if n.op == Op::Bin(BinaryOp::IMin) {
            let (x, y) = (self.r(n.args[0]), self.r(n.args[1]));
            if self.at_most(x, len, facts, fuel - 1) || self.at_most(y, len, facts, fuel - 1) {
                return true;
            }
        }
        // `u < w` and `u <= w` both give `u <= w`.
        (facts.iter()).any(|&(_, x, w)| x == u && self.at_most(w, len, facts, fuel - 1))
    }

    /// Whether `u` is the length read `len`: the same class, or the same
    /// array read at the same token.
    fn same_len(&self, u: Id, len: Id) -> bool {
        let (u, len) = (self.r(u), self.r(len));
        if u == len {
            return true;
        }
        let (nu, nl) = (self.g.node(u), self.g.node(len));
        nu.op == Op::Load(LoadKind::Len)
            && nl.op == Op::Load(LoadKind::Len)
            && self.r(nu.args[0]) == self.r(nl.args[0])
            && self.r(nu.args[1]) == self.r(nl.args[1])
    }

    /// Whether `i >= 0` on every tick at which it is observed under
    /// context `c`; `hyp` is a μ assumed non-negative at the current tick
    /// (the induction hypothesis while its `next` is examined).
    ///
    /// `i` may be given unresolved: for a μ the induction then also tries
    /// the continue condition of that very node's loop, besides the one of
    /// its class's representative. Refinement merges μ's of *different*
    /// loops of one depth that are the same stream (`for i in 0..n` before
    /// an outer loop's counter `c = μ_1(0, c + 1)`: both `0, 1, 2, ..`), and
    /// the representative's loop may not bound it (`c` has no `c < n`), so
    /// the check `a[i]` of the first loop was provable or not depending on
    /// which node represented the class; after `unroll` the copy's
    /// `μ(0, i + 2)` is no longer merged and was proved, the original was
    /// not, and the two sides differed (classic/fannkuch).
    ///
    /// Soundness: the merged μ's take the same value at every tick, so
    /// either loop's condition is an induction for that stream over the
    /// ticks where that loop continues; the μ `i` names is the check's own
    /// operand, read at the ticks of its own loop, which makes its loop's
    /// condition the better-founded of the two (the representative's was
    /// the only one read before). The streams this proves (a start `>= 0`
    /// stepped by `+ 1`'s that do not wrap) stay `>= 0` for fewer than
    /// `2^63` ticks of any loop, so the two loops' tick ranges do not matter.
    fn non_negative(&mut self, i: Id, c: u32, hyp: Option<Id>, fuel: u8) -> bool {
        let raw = i;
        let i = self.r(i);
        if Some(i) == hyp {
            return true;
        }
        let n = self.g.node(i).clone();
        if let Some(k) = self.g.const_of(i) {
            return n.ty == Type::Int && (k as i64) >= 0;
        }
        if fuel == 0 {
            return false;
        }
        match n.op {
            Op::Load(LoadKind::Len) | Op::StrLen => true,
            // `y + 1 >= 0` when `y >= 0` and `y < m` (no wrap).
            Op::Bin(BinaryOp::IAdd) => {
                let (x, y) = (self.r(n.args[0]), self.r(n.args[1]));
                let y = match (self.g.const_of(x), self.g.const_of(y)) {
                    (_, Some(1)) => x,
                    (Some(1), _) => y,
                    _ => return false,
                };
                let bounded =
                    (self.comparisons(c).iter()).any(|&(cc, l, _)| cc == Cmp::Lt && l == y);
                bounded && self.non_negative(y, c, hyp, fuel - 1)
            }
            // Induction: `init >= 0` (no facts), and `next >= 0` on a tick
            // that continues, assuming `i >= 0` on it.
            Op::Mu(_) => {
                let mut conts: Vec<Id> = Vec::with_capacity(2);
                for m in [raw, i] {
                    if let Some(cont) = self.g.loop_cont(m) {
                        if !conts.contains(&cont) {
                            conts.push(cont);
                        }
                    }
                }
                let (init, next) = (self.r(n.args[0]), self.r(n.args[1]));
                if conts.is_empty() || !self.non_negative(init, 0, hyp, fuel - 1) {
                    return false;
                }
                conts.into_iter().any(|cont| {
                    let on_next = self.with_fact(0, cont);
                    self.non_negative(next, on_next, Some(i), fuel - 1)
                })
            }
            _ => false,
        }
    }
}
