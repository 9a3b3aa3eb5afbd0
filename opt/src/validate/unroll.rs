//! Loop doubling: the rule that equates a loop with the same loop unrolled
//! by two (R4 extended; the μ-unfolding of Govereau §2.3.3 applied twice
//! per trip, next to the first-iteration peel of §2.4.2 step 4).
//!
//! The thesis leaves unrolling out (§1.2, and §3 compares with Necula's
//! validator only on CSE "as we do not handle loop unrolling"). Its loop
//! denotation (§2.3.3, §4.0.3) makes the rule a plain stream identity: a
//! depth-`d` loop is the streams `x_k` of its `μ_d(x_0, next)` nodes, and
//! `η_d(c, v)` is `v_k` at the first `k` with `c_k` false. The even and odd
//! halves of those streams are loops of their own:
//!
//! - `E(μ_d(i, n)) = μ'_d(i, O(n))` (a fresh μ: `x_{2j}`, next `x_{2j+2}`),
//! - `O(μ_d(i, n)) = E(n)` (`x_{2j+1}`, the next value of iteration `2j`),
//! - `E`/`O` of a pure or effect node of the loop is the node over the
//!   `E`/`O` of its arguments, and values invariant in the loop (varying
//!   at depth `< d`) stay as they are,
//!
//! and the first exit of the original loop is the first exit of the doubled
//! loop, taken in its first half or its second:
//!
//! `η_d(c, v) ↓ η_d(E(c) ∧ O(c), φ{¬E(c) → E(v); E(c) ∧ ¬O(c) → O(v)})`.
//!
//! Unrolling by two (`opt::passes::unroll`, Fritz §9.6) keeps every exit
//! test of both copies and makes the copy's header an ordinary block, so
//! the unrolled loop's denotation is exactly the right-hand side's shape;
//! partition refinement then merges `μ'` with the unrolled loop's μ's.
//!
//! **When.** The rule makes a graph larger and is an equivalence, not a
//! simplification, so [`super::check`] tries it only when a round finds
//! nothing else to rewrite, on the η's of a before-side loop that the
//! after side does not have: no η of the after side's own (one the before
//! side does not share) leaves through the same continue condition. An η
//! that both sides share may: `for i in 0..4 {..}` written twice, the
//! first left alone by the pass (too large) or unfolded from a call both
//! sides make, has the second's `i` and test, and the second, unrolled on
//! the after side, must still be doubled.
//! The after side need not have a loop of that depth left: a loop that
//! runs once (`for i in 0..1`, the generator's `while` loops that leave
//! in their second test) is unrolled into a loop that leaves in its first
//! trip, which R4's first-iteration peel (§2.4.2 step 4) removes from the
//! after side, while the original needs doubling before the same peel
//! applies. Shared μ's do not stop it: `for i in 0..3 {..}` and an outer `for i in 0..10 {..}` that
//! the pass leaves alone share the stream `i = μ(0, i + 1)`. Each loop (and each
//! loop made by the rule) is doubled at most once. Only innermost loops
//! are doubled (a deeper μ or η inside refuses), as the unroll pass only
//! unrolls innermost loops.

use rustc_hash::{FxHashMap, FxHashSet};

use super::graph::{Id, Op};
use super::refine::reachable;
use super::rules::Rules;
use crate::ir::Type;

/// What [`Rules::double_loops`] did in earlier rounds of one validation.
#[derive(Default)]
pub struct Doubled {
    /// The even μ made for each doubled μ.
    even: FxHashMap<Id, Id>,
    /// The μ's made by the rule.
    made: FxHashSet<Id>,
}

/// The loops about to be doubled, named by their μ's: depth, μ's, η's.
type Loops = FxHashMap<Vec<Id>, (u16, Vec<Id>, Vec<Id>)>;

/// The even and odd versions of one loop's nodes.
struct Halves {
    /// The loop depth.
    d: u16,
    /// The fresh μ of each of the loop's μ's.
    even_mu: FxHashMap<Id, Id>,
    /// `(node, odd)` → its version.
    memo: FxHashMap<(Id, bool), Option<Id>>,
}

impl Rules<'_> {
    /// The classes reached from some roots.
    fn classes_of(&self, roots: &[Id]) -> FxHashSet<u32> {
        reachable(self.g, roots)
            .into_iter()
            .filter_map(|n| match self.cls.class.get(n.index()) {
                Some(&c) if c != u32::MAX => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The doubling rewrites of this round (see the module doc) for the
    /// η's of before-side loops, keyed by class; `done` holds the even μ
    /// of every μ doubled so far (reused, so the η's of one loop doubled
    /// in different rounds share their halves) and the μ's the rule made
    /// (never doubled again).
    pub fn double_loops(&mut self, roots: &[Id; 4], done: &mut Doubled) -> FxHashMap<u32, Id> {
        let mut out = FxHashMap::default();
        let before = self.classes_of(&roots[..2]);
        let after = self.classes_of(&roots[2..]);
        let mut etas: Vec<Id> = Vec::new();
        for i in 0..self.cls.reached.len() {
            let n = self.cls.reached[i];
            let c = self.cls.of(n);
            if self.rep[c as usize] != n {
                continue;
            }
            if matches!(self.g.node(n).op, Op::Eta(_)) && before.contains(&c) && !after.contains(&c)
            {
                etas.push(n);
            }
        }
        // The continue conditions of the after side's own loops: those of
        // its η's that the before side does not share.
        let mut after_conts: FxHashSet<u32> = FxHashSet::default();
        for &n in &self.cls.reached {
            let c = self.cls.of(n);
            if self.rep[c as usize] == n
                && matches!(self.g.node(n).op, Op::Eta(_))
                && after.contains(&c)
                && !before.contains(&c)
            {
                after_conts.insert(self.cls.of(self.r(self.g.node(n).args[0])));
            }
        }
        let made: FxHashSet<u32> = done
            .made
            .iter()
            .filter_map(|m| match self.cls.class.get(m.index()) {
                Some(&c) if c != u32::MAX => Some(c),
                _ => None,
            })
            .collect();
        // The η's of each loop (named by its μ's: two loops may share one).
        let mut loops: Loops = FxHashMap::default();
        for n in etas {
            let Op::Eta(d) = self.g.node(n).op else {
                continue;
            };
            let Some(mus) = self.loop_mus(n, d) else {
                continue;
            };
            // A loop the after side still has (an η of the after side's
            // own has its continue condition) is not doubled; its μ's may
            // all be shared with unrelated loops of the after side (two
            // loops `for i in 0..n` share their `i`, and a loop with no
            // effects has no token). A continue condition that only η's
            // of both sides have belongs to another loop with the same
            // test, which both sides kept.
            // A loop made by the rule is not doubled again, even once
            // refinement has merged it with the after side's loop (whose
            // node may then represent the class).
            let cont = self.r(self.g.node(n).args[0]);
            if mus.is_empty()
                || mus.iter().any(|m| made.contains(&self.cls.of(*m)))
                || after_conts.contains(&self.cls.of(cont))
            {
                continue;
            }
            loops
                .entry(mus.clone())
                .or_insert_with(|| (d, mus, Vec::new()))
                .2
                .push(n);
        }
        self.defer_later_loops(&mut loops);
        for (_, (d, mus, etas)) in loops {
            let mut h = Halves {
                d,
                even_mu: FxHashMap::default(),
                memo: FxHashMap::default(),
            };
            let mut fresh = Vec::new();
            for &m in &mus {
                if let Some(&e) = done.even.get(&m) {
                    h.even_mu.insert(m, e);
                    continue;
                }
                let node = self.g.node(m);
                let (ty, init) = (node.ty, self.r(node.args[0]));
                let e = self.g.open_mu(d, ty, init);
                h.even_mu.insert(m, e);
                done.even.insert(m, e);
                done.made.insert(e);
                fresh.push(m);
            }
            let mut ok = true;
            for m in fresh {
                let next = self.r(self.g.node(m).args[1]);
                match self.half(&mut h, next, true) {
                    Some(n) => self.g.patch_mu(h.even_mu[&m], n),
                    None => ok = false,
                }
            }
            if !ok {
                continue;
            }
            // The η's of one loop share its continue condition (built once
            // per loop); if rewriting left them different, record none.
            let conts: FxHashSet<Id> = etas
                .iter()
                .map(|&n| self.r(self.g.node(n).args[0]))
                .collect();
            if let [cont] = conts.into_iter().collect::<Vec<_>>()[..] {
                self.record_doubled_conts(&mut h, &mus, cont);
            }
            for n in etas {
                if let Some(m) = self.doubled_exit(&mut h, n) {
                    out.insert(self.cls.of(n), m);
                }
            }
        }
        out
    }

    /// Keeps, of the loops about to be doubled, those entered from no
    /// other one's exit: a loop whose μ's start from (a value computed
    /// from) the η of another candidate loop, such as the exit token of an
    /// earlier loop the pass unrolled, waits for a later round. Once the
    /// earlier loop is doubled, refinement usually merges the later loop
    /// with the after side's, which the pass left alone; doubling it now
    /// would give it a shape the after side does not have, and a loop is
    /// doubled once only. If every loop would wait, none does. Which loops
    /// are doubled never changes what the graph means, so this only
    /// decides when the rule fires.
    fn defer_later_loops(&self, loops: &mut Loops) {
        if loops.len() < 2 {
            return;
        }
        // The class of each candidate η → its loop's key.
        let mut owner: FxHashMap<u32, &Vec<Id>> = FxHashMap::default();
        for (key, (_, _, etas)) in loops.iter() {
            for &n in etas {
                owner.insert(self.cls.of(n), key);
            }
        }
        let mut later: Vec<Vec<Id>> = Vec::new();
        for (key, (_, mus, _)) in loops.iter() {
            let inits: Vec<Id> = mus
                .iter()
                .map(|m| self.r(self.g.node(*m).args[0]))
                .collect();
            let entered_from_other = reachable(self.g, &inits).into_iter().any(|n| {
                match self.cls.class.get(n.index()) {
                    Some(&c) if c != u32::MAX => owner.get(&c).is_some_and(|k| *k != key),
                    _ => false,
                }
            });
            if entered_from_other {
                later.push(key.clone());
            }
        }
        if later.len() < loops.len() {
            for key in later {
                loops.remove(&key);
            }
        }
    }

    /// Records the continue condition of each even μ made for `mus` (R8
    /// reads it, [`super::range`]) from the continue condition `cont` of
    /// the η's being doubled: tick `j` of the doubled loop is ticks `2j`
    /// and `2j + 1` of the original, so it continues to `j + 1` exactly
    /// when the original continues at both, `E(cont) ∧ O(cont)`, the
    /// condition [`Rules::doubled_exit`] gives its η's. Without it no check
    /// of the doubled loop's odd half was ever proved (its index `μ' + 1`
    /// needs the induction `μ' >= 0`), while the real unrolled loop, which
    /// has its own recorded condition, proved them.
    ///
    /// The η's condition, not the μ's recorded one: a μ may represent a
    /// class that refinement merged with another loop's μ (the same
    /// stream), whose recorded condition is that other loop's.
    fn record_doubled_conts(&mut self, h: &mut Halves, mus: &[Id], cont: Id) {
        let (Some(ce), Some(co)) = (self.half(h, cont, false), self.half(h, cont, true)) else {
            return;
        };
        let both = self.g.and(&[ce, co]);
        for &m in mus {
            if let Some(&e) = h.even_mu.get(&m) {
                if self.g.loop_cont(e).is_none() {
                    self.g.set_loop_cont(e, both);
                }
            }
        }
    }

    /// `η_d(E(c) ∧ O(c), φ{¬E(c) → E(v); E(c) ∧ ¬O(c) → O(v)})` for the
    /// exit `n = η_d(c, v)`.
    fn doubled_exit(&mut self, h: &mut Halves, n: Id) -> Option<Id> {
        let node = self.g.node(n).clone();
        let (c, v) = (self.r(node.args[0]), self.r(node.args[1]));
        let (ce, co) = (self.half(h, c, false)?, self.half(h, c, true)?);
        let (ve, vo) = (self.half(h, v, false)?, self.half(h, v, true)?);
        let cont = self.g.and(&[ce, co]);
        let first = self.g.not(ce);
        let nco = self.g.not(co);
        let second = self.g.and(&[ce, nco]);
        let val = self.g.phi(node.ty, &[(first, ve), (second, vo)]);
        Some(self.g.intern(Op::Eta(h.d), node.ty, vec![cont, val]))
    }

    /// The μ's of the depth-`d` loop that the exit `eta` leaves, or `None`
    /// if the loop has a deeper loop inside (or is too large to walk).
    fn loop_mus(&self, eta: Id, d: u16) -> Option<Vec<Id>> {
        let node = self.g.node(eta);
        let mut work: Vec<Id> = node.args.iter().map(|&x| self.r(x)).collect();
        let mut seen: FxHashSet<Id> = FxHashSet::default();
        let mut mus = Vec::new();
        while let Some(x) = work.pop() {
            if self.depth_of(x) < d || !seen.insert(x) {
                continue;
            }
            if seen.len() > 20_000 {
                return None;
            }
            let n = self.g.node(x);
            match n.op {
                Op::Mu(e) if e == d => mus.push(x),
                Op::Mu(_) | Op::Eta(_) => return None,
                _ => {}
            }
            work.extend(n.args.iter().map(|&a| self.r(a)));
        }
        mus.sort();
        Some(mus)
    }

    /// `E(x)` (`odd` false) or `O(x)` of a node of the loop being doubled.
    fn half(&mut self, h: &mut Halves, x: Id, odd: bool) -> Option<Id> {
        let x = self.r(x);
        if self.depth_of(x) < h.d {
            return Some(x);
        }
        if let Some(&v) = h.memo.get(&(x, odd)) {
            return v;
        }
        // Cycles go through μ's only, which answer without recursing into
        // themselves; the entry guards against malformed input.
        h.memo.insert((x, odd), None);
        let node = self.g.node(x).clone();
        let out = match node.op {
            Op::Mu(e) if e == h.d => match (odd, h.even_mu.get(&x)) {
                (false, Some(&m)) => Some(m),
                (true, Some(_)) => {
                    let next = self.r(node.args[1]);
                    self.half(h, next, false)
                }
                _ => None,
            },
            Op::Mu(_) | Op::Eta(_) | Op::Param(_) | Op::Tok0 => None,
            _ => {
                let mut args = Vec::with_capacity(node.args.len());
                for &a in &node.args {
                    args.push(self.half(h, a, odd)?);
                }
                Some(self.rebuild(node.op.clone(), node.ty, args))
            }
        };
        h.memo.insert((x, odd), out);
        out
    }

    /// A node like `op(args)`, through the graph's smart constructors for
    /// the gate operators (so flattening matches the other side's build).
    fn rebuild(&mut self, op: Op, ty: Type, args: Vec<Id>) -> Id {
        match op {
            Op::And => self.g.and(&args),
            Op::Or => self.g.or(&args),
            Op::Not => self.g.not(args[0]),
            _ => self.g.intern(op, ty, args),
        }
    }
}
