//! R11, a φ's gates under the condition where it is observed.
//!
//! A φ outside every loop (depth 0) is one value per run of the function,
//! and it matters only where something observes it (the convention R3,
//! R9 and R10 rest on, [`super::phiop`]). Its *observation condition* `O`
//! is the disjunction, over its users, of where they are observed, with a
//! φ observing its branch `v_j` only where it is observed and `g_j` holds
//! (φ selects pointwise, Govereau §4.0.3): the roots are observed
//! everywhere, and so is every argument of a μ, an η or a node inside a
//! loop (no condition is tracked there). Then
//!
//! `φ{g_j → v_j} ↓ φ{g_j ∧ O → v_j}`
//!
//! **Soundness.** Wherever `O` holds the gates are the old ones; where it
//! does not, nothing observes the φ (every user is accounted for, by
//! class: the rewrite replaces the whole class). Gates stay disjoint, and
//! the new gates cover the φ wherever it is observed, so R10's assumption
//! holds for the new φ too.
//!
//! **Why.** A loop that exits from its body through two loop levels
//! (control/nested_loops_return's `find`: `return str(i) + "," + str(j)`
//! from the inner loop) has one exit value `j` in the original, and after
//! `unroll` one per copy, gated by which copy returned; the validator's
//! doubled loop ([`super::unroll`]) gates its exit value by which half
//! *left*, by either exit. The two φ's agree only where the return is
//! taken, which is a gate of the function's return φ several operators
//! (`to_str`, `str_concat`) above them, so R10 cannot flatten them. Under
//! that gate both sides' gates have one diagram ([`super::gates`]), and
//! the new gates are picked by diagram, so both φ's get the same nodes.
//!
//! A φ whose observation condition reads the φ itself (its users' gates
//! test its value) keeps its gates: the rewrite would make a cyclic
//! equation with more than one solution. The condition is a diagram over
//! atoms, and any node with that diagram means the same, so the test is
//! made on the first reached node with it: a disjunction such as
//! `(¬e ∧ len(x) > 1) ∨ (¬e ∧ len(x) <= 1)`, with `x` read from the φ,
//! is `¬e`, which does not read it (a loop that returns from its body
//! under `e` and leaves through its test otherwise, whose exit token a
//! later `if len(g) > 1 { pop(g) }` reads).
//!
//! **Junctions.** A boolean φ is built as a junction (`φ{p → true, ¬p →
//! c}` is `p ∨ c`), so R11 also reads `∧` and `∨` as the selections they
//! are: an operand of `a ∨ b` is observed only where `b` is false, of
//! `a ∧ b` only where `b` is true (§4.0.3 again, pointwise). Only the
//! operands the rule cannot change count as `b` (their cone reaches no
//! φ the rule rewrites, `fixed_classes`), and each operand is observed
//! where no *other* one of them decides the junction, so the junction
//! keeps its value everywhere: where a fixed operand decides it, it does
//! so after the rewrite too, and elsewhere every operand is observed.
//! The shape: a loop that returns `true` from its body under `p` and
//! after its exit returns `len(a) > k`, with `len(a)` read at the exit
//! token, a φ over `p` whose `p` branch is never observed.
//!
//! **When.** Last, when nothing else (loop doubling included) rewrites,
//! and at most once per φ node in a validation: R3 drops conjuncts common
//! to every gate, which can undo the rewrite, so a φ the rule made or
//! rewrote is not rewritten again.

use rustc_hash::{FxHashMap, FxHashSet};

use super::bdd::{FALSE, TRUE};
use super::graph::{Id, Op};
use super::rules::Rules;
use crate::ir::Type;

/// The observation condition of one class: its diagram and a node.
#[derive(Copy, Clone)]
struct Obs {
    bdd: u32,
    node: Id,
}

impl Rules<'_> {
    /// R11 over the round's depth-0 φ's (see the module doc), for the
    /// roots `roots` (the denotations' and R8's case roots); `done` holds
    /// the φ's rewritten or made by the rule in earlier rounds.
    pub(super) fn restrict_observed(
        &mut self,
        roots: &[Id],
        done: &mut FxHashSet<Id>,
    ) -> FxHashMap<u32, Id> {
        let mut out = FxHashMap::default();
        let has_phi = self
            .cls
            .reached
            .iter()
            .any(|&n| self.r(n) == n && self.depth_of(n) == 0 && self.g.node(n).op == Op::Phi);
        if !has_phi {
            return out;
        }
        let t = self.g.boolean(true);
        let everywhere = Obs { bdd: TRUE, node: t };
        let mut obs: FxHashMap<u32, Obs> = FxHashMap::default();
        // Observed everywhere: the roots, the loop conditions R8 reads,
        // and whatever a μ, an η or a node inside a loop uses.
        let mut pinned: Vec<Id> = roots.to_vec();
        pinned.extend(self.g.loop_conts().into_iter().map(|(_, c)| c));
        for &n in &self.cls.reached {
            let node = self.g.node(n);
            if self.depth_of(n) != 0 || matches!(node.op, Op::Mu(_) | Op::Eta(_)) {
                pinned.extend(node.args.iter().copied());
            }
        }
        for p in pinned {
            if let Some(&c) = self.cls.class.get(p.index()) {
                if c != u32::MAX {
                    obs.insert(c, everywhere);
                }
            }
        }
        // Users before arguments: `reached` is a post-order, and at depth
        // 0 the graph is acyclic.
        let reps: Vec<Id> = (self.cls.reached.iter().rev().copied())
            .filter(|&n| self.r(n) == n && self.depth_of(n) == 0)
            .collect();
        let fixed = self.fixed_classes();
        let mut phis: Vec<(Id, Obs)> = Vec::new();
        for &n in &reps {
            let c = self.cls.of(n);
            let o = *obs.entry(c).or_insert(everywhere);
            let node = self.g.node(n).clone();
            if matches!(node.op, Op::Mu(_) | Op::Eta(_)) {
                continue;
            }
            if node.op == Op::Phi {
                if node.ty != Type::Bool && o.bdd != TRUE && !done.contains(&n) {
                    phis.push((n, o));
                }
                for pair in node.args.chunks(2) {
                    self.observe(&mut obs, pair[0], o);
                    let gate = self.r(pair[0]);
                    let under = match self.gates.of(self.g, self.cls, &self.vd, gate) {
                        Some(b) => self.gates.bdd().and(o.bdd, b).map(|bdd| Obs {
                            bdd,
                            node: self.g.and(&[o.node, gate]),
                        }),
                        None => None,
                    };
                    self.observe(&mut obs, pair[1], under.unwrap_or(everywhere));
                }
            } else if matches!(node.op, Op::And | Op::Or) && o.bdd != FALSE {
                self.observe_junction(&mut obs, &node.op, &node.args, o, &fixed);
            } else {
                for &a in &node.args {
                    self.observe(&mut obs, a, o);
                }
            }
        }
        if phis.is_empty() {
            return out;
        }
        // The node of each gate diagram: the first reached one, else the
        // first conjunction made here (so both sides get the same nodes).
        let mut by_bdd: FxHashMap<u32, Id> = FxHashMap::default();
        for &n in &self.cls.reached {
            if self.r(n) != n || self.g.node(n).ty != Type::Bool {
                continue;
            }
            if let Some(b) = self.gates.of(self.g, self.cls, &self.vd, n) {
                by_bdd.entry(b).or_insert(n);
            }
        }
        for (n, mut o) in phis {
            // The condition is its diagram; its node is the diagram's
            // first reached node, when there is one, rather than
            // the disjunction built while walking the users, which may
            // name an atom the diagram has lost (a test of a value that
            // reads the φ, under a gate that contradicts it).
            if let Some(&x) = by_bdd.get(&o.bdd) {
                o.node = x;
            }
            // A condition that reads the φ itself would make its new gates
            // a cyclic equation, `x = φ{g ∧ O(x) → v}`, with more than one
            // solution; refinement would take matching cycles for equal.
            if self.cone_reaches(o.node, self.cls.of(n)) {
                continue;
            }
            let node = self.g.node(n).clone();
            let mut branches: Vec<(Id, Id)> = Vec::with_capacity(node.args.len() / 2);
            let mut changed = false;
            let mut ok = true;
            for pair in node.args.chunks(2) {
                let (gate, v) = (self.r(pair[0]), self.r(pair[1]));
                let Some(b) = self.gates.of(self.g, self.cls, &self.vd, gate) else {
                    ok = false;
                    break;
                };
                let Some(nb) = self.gates.bdd().and(b, o.bdd) else {
                    ok = false;
                    break;
                };
                if nb == FALSE {
                    changed = true;
                    continue;
                }
                let new_gate = match by_bdd.get(&nb) {
                    Some(&x) => x,
                    None => {
                        let x = self.g.and(&[gate, o.node]);
                        by_bdd.insert(nb, x);
                        x
                    }
                };
                changed |= !self.same(new_gate, gate);
                branches.push((new_gate, v));
            }
            if !ok || !changed {
                continue;
            }
            let m = self.g.phi(node.ty, &branches);
            done.insert(n);
            done.insert(m);
            if !self.same(m, n) {
                out.insert(self.cls.of(n), m);
            }
        }
        out
    }

    /// The classes the rule cannot change: those whose representative's
    /// cone reaches no depth-0 φ that is not boolean (the only nodes the
    /// rule rewrites), through representatives. `reached` is a post-order,
    /// so arguments come first except around loops; an argument not yet
    /// decided counts as changeable.
    fn fixed_classes(&self) -> FxHashSet<u32> {
        let mut fixed: FxHashSet<u32> = FxHashSet::default();
        for &n in &self.cls.reached {
            if self.r(n) != n {
                continue;
            }
            let node = self.g.node(n);
            if node.op == Op::Phi && node.ty != Type::Bool && self.depth_of(n) == 0 {
                continue;
            }
            let ok = node.args.iter().all(|&a| {
                let r = self.r(a);
                self.cls
                    .class
                    .get(r.index())
                    .is_some_and(|&c| c != u32::MAX && fixed.contains(&c))
            });
            if ok {
                fixed.insert(self.cls.of(n));
            }
        }
        fixed
    }

    /// The observation conditions of the operands of a conjunction or
    /// disjunction observed under `o`: an operand of `a ∨ b` matters only
    /// where `b` is false (of `a ∧ b`, where `b` is true). Only operands
    /// in `fixed` are assumed so (the rule leaves them as they are, so the
    /// junction keeps its value wherever one of them decides it); each
    /// operand is observed where no *other* fixed operand decides.
    fn observe_junction(
        &mut self,
        obs: &mut FxHashMap<u32, Obs>,
        op: &Op,
        args: &[Id],
        o: Obs,
        fixed: &FxHashSet<u32>,
    ) {
        let is_or = *op == Op::Or;
        // The fixed operands with a diagram, as (index, diagram of the
        // operand's deciding value: ¬a for ∨, a for ∧).
        let mut deciders: Vec<(usize, u32, Id)> = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let a = self.r(a);
            let Some(&c) = self.cls.class.get(a.index()) else {
                continue;
            };
            if c == u32::MAX || !fixed.contains(&c) {
                continue;
            }
            let Some(b) = self.gates.of(self.g, self.cls, &self.vd, a) else {
                continue;
            };
            let (b, node) = if is_or {
                match self.gates.bdd().not(b) {
                    Some(nb) => (nb, self.g.not(a)),
                    None => continue,
                }
            } else {
                (b, a)
            };
            deciders.push((i, b, node));
        }
        for (i, &a) in args.iter().enumerate() {
            let mut under = Some(o);
            for &(j, b, node) in &deciders {
                if j == i {
                    continue;
                }
                under = under.and_then(|u| {
                    let bdd = self.gates.bdd().and(u.bdd, b)?;
                    Some(Obs {
                        bdd,
                        node: self.g.and(&[u.node, node]),
                    })
                });
            }
            self.observe(obs, a, under.unwrap_or(o));
        }
    }

    /// Whether a node of class `c` is among the nodes `root` depends on
    /// (itself included), through arguments at any depth.
    fn cone_reaches(&self, root: Id, c: u32) -> bool {
        let mut seen: FxHashSet<Id> = FxHashSet::default();
        let mut work = vec![root];
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            if self.cls.class.get(x.index()) == Some(&c) {
                return true;
            }
            work.extend(self.g.node(x).args.iter().copied());
        }
        false
    }

    /// Adds `o` to the observation condition of `x`'s class.
    fn observe(&mut self, obs: &mut FxHashMap<u32, Obs>, x: Id, o: Obs) {
        let Some(&c) = self.cls.class.get(x.index()) else {
            return;
        };
        if c == u32::MAX {
            return;
        }
        let merged = match obs.get(&c) {
            None => o,
            Some(&p) if p.bdd == TRUE || o.bdd == FALSE => p,
            Some(_) if o.bdd == TRUE => o,
            Some(&p) => match self.gates.bdd().or(p.bdd, o.bdd) {
                Some(bdd) if bdd == TRUE => Obs {
                    bdd,
                    node: self.g.boolean(true),
                },
                Some(bdd) => Obs {
                    bdd,
                    node: self.g.or(&[p.node, o.node]),
                },
                None => Obs {
                    bdd: TRUE,
                    node: self.g.boolean(true),
                },
            },
        };
        obs.insert(c, merged);
    }
}
