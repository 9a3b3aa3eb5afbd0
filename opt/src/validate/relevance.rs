//! R8's relevance pruning: the facts a context keeps at a node are only
//! those that some bounds check in the node's cone could read.
//!
//! R8 ([`super::range`]) explores (node, context) pairs, a context being
//! the set of path facts collected on the way (φ gates, loop continue
//! conditions, loop exits). Facts only accumulate, so a function with many
//! loops and branches reaches a node under combinatorially many contexts
//! (36 000 contexts over 54 facts at 300 nodes in the corpus's
//! `counted_loops` `.main`), nearly all differing in facts that no check
//! below the node can use. Restricting each context to the facts relevant
//! to its node's cone makes those contexts one.
//!
//! **Which facts a check can read.** `bounds_check(a, i)` is proved by
//! `i < u` with `u <= len(a)` by a chain of comparisons and `min`s
//! ([`Rules::below_len`]), and `0 <= i` by facts `y < m` on the `y` of
//! `i = y + 1` ([`Rules::non_negative`]). So the *terms* of the check are
//! `i`, its `+ 1` predecessors, and the terms on a chain of at most
//! [`CHAIN_FUEL`] comparisons (or `min` arguments) from `i` to a length
//! read. A
//! comparison fact is relevant at a node when the term it bounds (its
//! left side as read: `x` in `x < w`, `w` in `¬(x < w)`) is a term of a
//! check in the node's cone; a loop-exit fact `η(c, x)` (or its negation)
//! when a comparison in `x` mentions such a term ([`Rules::at_exit`] turns
//! it into those comparisons).
//!
//! **Loop-exit facts belong to their loop.** `η_d(c, x)` is read only by
//! [`Rules::at_exit`] at an `η_d(c, v)` of the same loop (same depth and
//! continue condition), whose result keeps only the facts relevant to
//! `v`. So such a fact is kept at a node only when (1) an `η` of its loop
//! is in the node's cone (each loop exit has a bit in the sets, after the
//! check terms) and (2) a comparison in `x` mentions a term of the checks
//! below one of that loop's exit values `v`. Without (1) the exit facts of
//! every inlined or unrolled loop above a node stayed in its contexts as
//! long as their terms occurred anywhere below it, and the contexts of
//! `fannkuch` and `nested_loops_return` multiplied.
//!
//! **Soundness.** Dropping facts from a context only makes R8 prove fewer
//! checks (the module doc of [`super::range`]); no rule reads a context
//! otherwise. **Completeness.** No proof is lost: every fact a proof of a
//! check below the node reads is kept (the terms above follow
//! `below_len`, `at_most` and `non_negative` with their fuel).

use rustc_hash::FxHashMap;

use super::cones::{union_over_cones, Adjacency};
use super::graph::{EffKind, Id, LoadKind, Op};
use super::rules::Rules;
use crate::ir::{BinaryOp, Cmp, Type};

/// `+ 1` steps followed back from a check's index (`non_negative`'s fuel).
const STEP_FUEL: usize = 6;
/// Longest comparison chain from an index to a length (`at_most`'s fuel
/// plus the first fact).
const CHAIN_FUEL: usize = 5;
/// No set: the node's cone holds no bounds check.
const NONE: u32 = u32::MAX;

/// The per-round relevance sets (see the module doc).
#[derive(Default)]
pub(super) struct Relevance {
    /// Words per term set.
    width: usize,
    /// The interned term set of each node's cone (`NONE`: no check).
    set_of: Vec<u32>,
    /// The interned term sets, `width` words each.
    sets: Vec<u64>,
    set_ids: FxHashMap<Vec<u64>, u32>,
    /// The index of each term.
    term: FxHashMap<Id, u32>,
    /// Memo of [`Rules::restrict`]: (context, term set) → context.
    memo: FxHashMap<(u32, u32), u32>,
    /// Memo of [`Rules::fact_terms`].
    fact_terms: FxHashMap<Id, FactTerms>,
    /// The bit of each loop exit `(depth, continue condition)` of the
    /// round's η's, after the check terms' bits.
    exit_key: FxHashMap<(u16, Id), u32>,
    /// Per exit key, the union of the term sets of its η's exit values
    /// (`width` words each): the terms [`Rules::at_exit`] can hand on.
    exit_terms: Vec<u64>,
    /// The words with a check term's bit set (`width` words): a node whose
    /// row has none of them has no check in its cone.
    check_mask: Vec<u64>,
    /// The number of check terms (the first bits of a row).
    n_terms: u32,
}

/// What makes a fact relevant at a node ([`Rules::fact_terms`]).
#[derive(Clone, Default)]
struct FactTerms {
    /// One of these terms is in the node's set.
    terms: Vec<u32>,
    /// For a loop-exit fact, its exit's bit ([`Relevance::exit_key`]),
    /// which must be in the node's set too.
    exit: Option<u32>,
}

impl Rules<'_> {
    /// The two sides of `n` when it is an integer `<` or `<=`.
    fn cmp_sides(&self, n: Id) -> Option<(Id, Id)> {
        let node = self.g.node(n);
        matches!(node.op, Op::Bin(BinaryOp::ICmp(Cmp::Lt | Cmp::Le)))
            .then(|| (self.r(node.args[0]), self.r(node.args[1])))
    }

    /// Computes the round's term sets (see the module doc).
    pub(super) fn mark_relevance(&mut self) {
        let n = self.g.len();
        // Comparison neighbours (both readings) and `min` parents.
        let mut adj: FxHashMap<Id, Vec<Id>> = FxHashMap::default();
        let mut min_parents: FxHashMap<Id, Vec<Id>> = FxHashMap::default();
        let mut dist: FxHashMap<Id, usize> = FxHashMap::default();
        let mut queue: std::collections::VecDeque<Id> = Default::default();
        let mut checks: Vec<Id> = Vec::new();
        for &x in &self.cls.reached {
            if self.r(x) != x {
                continue;
            }
            let node = self.g.node(x);
            match node.op {
                Op::Bin(BinaryOp::ICmp(Cmp::Lt | Cmp::Le)) => {
                    let (a, b) = (self.r(node.args[0]), self.r(node.args[1]));
                    adj.entry(a).or_default().push(b);
                    adj.entry(b).or_default().push(a);
                }
                Op::Bin(BinaryOp::IMin) => {
                    for &a in &node.args {
                        min_parents.entry(self.r(a)).or_default().push(x);
                    }
                }
                Op::Load(LoadKind::Len) => {
                    dist.insert(x, 0);
                    queue.push_back(x);
                }
                Op::Eff(EffKind::BoundsCheck) => checks.push(x),
                _ => {}
            }
        }
        // The length each check compares with, as `Rules::below_len` reads
        // it (the load rule may forward it to, e.g., an allocation's size).
        for &k in &checks {
            let args = &self.g.node(k).args;
            let (a, t) = (self.r(args[0]), self.r(args[2]));
            if let Some(len) = self.load(LoadKind::Len, Type::Int, &[a, t]) {
                let len = self.r(len);
                if dist.insert(len, 0).is_none() {
                    queue.push_back(len);
                }
            }
        }
        // Distance to a length read, backwards over comparisons and `min`.
        while let Some(t) = queue.pop_front() {
            let d = dist[&t] + 1;
            let next = (adj.get(&t).into_iter().flatten())
                .chain(min_parents.get(&t).into_iter().flatten());
            for &s in next {
                if let std::collections::hash_map::Entry::Vacant(v) = dist.entry(s) {
                    v.insert(d);
                    queue.push_back(s);
                }
            }
        }
        // The terms of each check.
        let mut own: Vec<(Id, Vec<u32>)> = Vec::new();
        for &k in &checks {
            let i = self.r(self.g.node(k).args[1]);
            let mut terms = vec![i];
            let mut y = i;
            for _ in 0..STEP_FUEL {
                let node = self.g.node(y);
                if node.op != Op::Bin(BinaryOp::IAdd) {
                    break;
                }
                let (a, b) = (self.r(node.args[0]), self.r(node.args[1]));
                y = match (self.g.const_of(a), self.g.const_of(b)) {
                    (_, Some(1)) => a,
                    (Some(1), _) => b,
                    _ => break,
                };
                terms.push(y);
            }
            // Shortest chains from the index towards a length read.
            let mut stack = vec![(i, 0usize)];
            while let Some((t, depth)) = stack.pop() {
                if !dist.contains_key(&t) || depth >= CHAIN_FUEL {
                    continue;
                }
                let mut next: Vec<Id> = adj.get(&t).cloned().unwrap_or_default();
                if self.g.node(t).op == Op::Bin(BinaryOp::IMin) {
                    next.extend(self.g.node(t).args.iter().map(|&a| self.r(a)));
                }
                for s in next {
                    // `s` can still reach a length within the fuel left.
                    let fits = dist.get(&s).is_some_and(|&ds| ds + depth < CHAIN_FUEL);
                    if fits && !terms.contains(&s) {
                        terms.push(s);
                        stack.push((s, depth + 1));
                    }
                }
            }
            let mut idx = Vec::with_capacity(terms.len());
            for t in terms {
                let len = self.range.rel.term.len() as u32;
                idx.push(*self.range.rel.term.entry(t).or_insert(len));
            }
            own.push((k, idx));
        }
        // The loop exits: an exit fact `η_d(c, x)` is read only by
        // `at_exit` at an `η_d(c, ·)` (same loop) in the cone.
        let n_terms = self.range.rel.term.len() as u32;
        let mut etas: Vec<(Id, u32)> = Vec::new();
        for &x in &self.cls.reached {
            if self.r(x) != x {
                continue;
            }
            if let Op::Eta(d) = self.g.node(x).op {
                let key = (d, self.r(self.g.node(x).args[0]));
                let next = n_terms + self.range.rel.exit_key.len() as u32;
                let bit = *self.range.rel.exit_key.entry(key).or_insert(next);
                etas.push((x, bit));
            }
        }
        let n_bits = n_terms as usize + self.range.rel.exit_key.len();
        let width = n_bits.div_ceil(64).max(1);
        let mut bits = vec![0u64; n * width];
        for (k, idx) in own {
            for t in idx {
                bits[k.index() * width + (t / 64) as usize] |= 1 << (t % 64);
            }
        }
        for &(x, bit) in &etas {
            bits[x.index() * width + (bit / 64) as usize] |= 1 << (bit % 64);
        }
        // The union over each cone (a fixpoint: μ's are cyclic), over the
        // arguments' representatives, by components (`cones`).
        let mut cone_adj = Adjacency::default();
        cone_adj.start.reserve(n + 1);
        for x in 0..n {
            cone_adj.start.push(cone_adj.edges.len() as u32);
            for &a in &self.g.node(Id(x as u32)).args {
                let a = self.r(a).index();
                if a != x && a < n {
                    cone_adj.edges.push(a as u32);
                }
            }
        }
        cone_adj.start.push(cone_adj.edges.len() as u32);
        union_over_cones(&cone_adj, &mut bits, width);
        let mut check_mask = vec![0u64; width];
        for t in 0..n_terms {
            check_mask[(t / 64) as usize] |= 1 << (t % 64);
        }
        let mut exit_terms = vec![0u64; self.range.rel.exit_key.len() * width];
        for &(x, bit) in &etas {
            let v = self.r(self.g.node(x).args[1]).index();
            if v >= n {
                continue;
            }
            let k = (bit - n_terms) as usize;
            for w in 0..width {
                exit_terms[k * width + w] |= bits[v * width + w] & check_mask[w];
            }
        }
        let rel = &mut self.range.rel;
        rel.width = width;
        rel.set_of = Vec::with_capacity(n);
        for x in 0..n {
            let row = &bits[x * width..(x + 1) * width];
            if row.iter().zip(&check_mask).all(|(&w, &m)| w & m == 0) {
                rel.set_of.push(NONE);
                continue;
            }
            // Looked up by the row itself: a copy only for a new set.
            let id = match rel.set_ids.get(row) {
                Some(&id) => id,
                None => {
                    let next = rel.set_ids.len() as u32;
                    rel.set_ids.insert(row.to_vec(), next);
                    rel.sets.extend_from_slice(row);
                    next
                }
            };
            rel.set_of.push(id);
        }
        rel.check_mask = check_mask;
        rel.n_terms = n_terms;
        rel.exit_terms = exit_terms;
    }

    /// Whether the cone of `x` may hold a bounds check (nodes made after
    /// [`Rules::mark_relevance`] may).
    pub(super) fn may_check(&self, x: Id) -> bool {
        self.range
            .rel
            .set_of
            .get(x.index())
            .is_none_or(|&s| s != NONE)
    }

    /// Computes into [`Relevance::fact_terms`] (once per fact; read there
    /// without a copy) the terms whose presence in a node's set makes fact
    /// `f` relevant, and for a loop-exit fact the bit of its loop's exit,
    /// which must be in the set as well. An exit fact's terms are only
    /// those its own loop's exit values can read: no `η` of that loop, no
    /// reader.
    fn fact_terms(&mut self, f: Id) {
        if self.range.rel.fact_terms.contains_key(&f) {
            return;
        }
        let mut exit = None;
        let mut ends: Vec<Id> = Vec::new();
        let node = self.g.node(f);
        let (neg, inner) = match node.op {
            Op::Not => (true, self.r(node.args[0])),
            _ => (false, f),
        };
        if let Some((a, b)) = self.cmp_sides(inner) {
            ends.push(if neg { b } else { a });
        } else if let Op::Eta(d) = self.g.node(inner).op {
            let key = (d, self.r(self.g.node(inner).args[0]));
            // An exit no η of the round reads (`NONE`: no term matches).
            exit = Some(self.range.rel.exit_key.get(&key).copied().unwrap_or(NONE));
            // Every comparison in the exit value, either reading.
            let mut stack = vec![(self.r(self.g.node(inner).args[1]), 0u8)];
            while let Some((x, depth)) = stack.pop() {
                if let Some((a, b)) = self.cmp_sides(x) {
                    ends.extend([a, b]);
                    continue;
                }
                let node = self.g.node(x);
                match node.op {
                    Op::And | Op::Or | Op::Not if depth < 6 => {
                        stack.extend(node.args.iter().map(|&y| (self.r(y), depth + 1)));
                    }
                    // The exit value of an inner loop (`at_exit` again).
                    Op::Eta(_) if depth < 6 => stack.push((self.r(node.args[1]), depth + 1)),
                    _ => {}
                }
            }
        }
        let rel = &self.range.rel;
        let terms: Vec<u32> = (ends.iter())
            .filter_map(|e| rel.term.get(e).copied())
            .filter(|&t| match exit {
                None => true,
                Some(NONE) => false,
                Some(bit) => {
                    let k = (bit - rel.n_terms) as usize * rel.width;
                    rel.exit_terms[k + (t / 64) as usize] & (1 << (t % 64)) != 0
                }
            })
            .collect();
        self.range
            .rel
            .fact_terms
            .insert(f, FactTerms { terms, exit });
    }

    /// Context `c` with only the facts relevant to the cone of `y`.
    pub(super) fn restrict(&mut self, c: u32, y: Id) -> u32 {
        if c == 0 {
            return 0;
        }
        let Some(&s) = self.range.rel.set_of.get(y.index()) else {
            return c;
        };
        if s == NONE {
            return c;
        }
        if let Some(&m) = self.range.rel.memo.get(&(c, s)) {
            return m;
        }
        let facts = self.facts(c).to_vec();
        let width = self.range.rel.width;
        let mut kept = Vec::with_capacity(facts.len());
        for f in facts {
            self.fact_terms(f);
            let rel = &self.range.rel;
            let ft = &rel.fact_terms[&f];
            let row = &rel.sets[s as usize * width..(s as usize + 1) * width];
            let has = |t: u32| row[(t / 64) as usize] & (1 << (t % 64)) != 0;
            if ft.terms.iter().any(|&t| has(t)) && ft.exit.is_none_or(has) {
                kept.push(f);
            }
        }
        let m = if kept.len() == self.facts(c).len() {
            c
        } else {
            self.ctx_id(kept)
        };
        self.range.rel.memo.insert((c, s), m);
        m
    }
}
