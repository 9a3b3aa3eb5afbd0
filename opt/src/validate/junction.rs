//! R3's gate algebra on `And`/`Or` (Govereau §7.3.2–7.3.3): junctions in
//! negation normal form, flattening, complements, absorption and resolution,
//! and the merge of gates whose diagrams are equal ([`Rules::merge_gates`]).
//! The φ side of R3 and the rule table are in [`super::rules`].

use rustc_hash::FxHashMap;

use super::bdd::{FALSE, TRUE};
use super::gates::Atom;
use super::graph::{Id, Op};
use super::rules::Rules;
use crate::ir::Type;

/// Most terms of a disjunction that [`Rules::simplify_or`] searches for
/// absorption and resolution: the search compares every pair of terms
/// after each change, so a long `||` chain (hundreds of terms of hundreds
/// of literals) would cost the fourth power of its length per round.
const SIMPLIFY_OR_TERMS: usize = 32;

impl Rules<'_> {
    /// R3 by diagrams: every boolean node of the round gets the
    /// canonical node of its ROBDD ([`Gates`]): the constant or the atom of
    /// a literal (whatever other rule applied), or else the first class
    /// with the same diagram that no rule rewrote, or else, when every
    /// class with that diagram was rewritten, the rewrite of the first of
    /// them. Adds the replacements to `subst`.
    ///
    /// A rewritten class is merged too: otherwise two gates that the
    /// syntactic rules keep rewriting (the disjunctions of a long `||`
    /// chain, flattened one level per round, and the gates of the other
    /// side, simplified one literal per round) would meet only once both
    /// stopped changing, after rounds in proportion to the chain's length
    /// (64 rounds ran out at 70 operands). Every class of one diagram
    /// goes to one target that is not itself replaced (a class no rule
    /// rewrote, or a rewrite's result), so no two classes trade places.
    pub fn merge_gates(&mut self, subst: &mut FxHashMap<u32, Id>) {
        let mut first: FxHashMap<u32, Id> = FxHashMap::default();
        let mut rewritten: FxHashMap<u32, Id> = FxHashMap::default();
        let mut todo: Vec<(Id, u32)> = Vec::new();
        for i in 0..self.cls.reached.len() {
            let n = self.cls.reached[i];
            let c = self.cls.of(n);
            if self.rep[c as usize] != n || self.g.node(n).ty != Type::Bool {
                continue;
            }
            let Some(b) = self.gates.of(self.g, self.cls, &self.vd, n) else {
                continue;
            };
            let simple = b <= TRUE || self.gates.bdd().literal(b).is_some();
            if !simple {
                if let Some(&m) = subst.get(&c) {
                    rewritten.entry(b).or_insert(m);
                    todo.push((n, b));
                    continue;
                }
            }
            first.entry(b).or_insert(n);
            todo.push((n, b));
        }
        for (n, b) in todo {
            let target = match b {
                FALSE => self.g.boolean(false),
                TRUE => self.g.boolean(true),
                _ => match self.gates.bdd().literal(b) {
                    Some((v, pos)) => {
                        let a = self.atom_node(v);
                        if pos {
                            a
                        } else {
                            self.g.not(a)
                        }
                    }
                    None => match first.get(&b) {
                        Some(&f) => f,
                        None => rewritten[&b],
                    },
                },
            };
            if !self.same(target, n) {
                subst.insert(self.cls.of(n), target);
            }
        }
    }

    /// The node variable `v` of the gate diagrams stands for.
    pub(super) fn atom_node(&mut self, v: u32) -> Id {
        match self.gates.atom(v) {
            Atom::Node(id) => self.r(id),
            Atom::Exit(d, c, w) => {
                let inner = self.atom_node(w);
                let c = self.r(c);
                self.g.intern(Op::Eta(d), Type::Bool, vec![c, inner])
            }
        }
    }

    /// R3 on `And`/`Or`: rebuilt from representatives (flattening,
    /// constants, complements), then absorption and resolution for `Or`.
    pub(super) fn junction(&mut self, n: Id, op: &Op, a: &[Id]) -> Option<Id> {
        let mut parts: Vec<Id> = a.to_vec();
        if *op == Op::Or {
            parts = self.simplify_or(parts);
            // (A ∧ X) ∨ (A ∧ Y) = A ∧ (X ∨ Y).
            let sets: Vec<Vec<Id>> = parts.iter().map(|&p| self.conjuncts(p)).collect();
            if sets.len() >= 2 {
                let common = common_conjuncts(&sets);
                if !common.is_empty() {
                    let rest: Vec<Id> = sets
                        .iter()
                        .map(|set| {
                            let r: Vec<Id> = set
                                .iter()
                                .copied()
                                .filter(|c| !common.contains(c))
                                .collect();
                            self.g.and(&r)
                        })
                        .collect();
                    let mut all = common;
                    all.push(self.g.or(&rest));
                    return Some(self.g.and(&all));
                }
            }
        }
        if *op == Op::And {
            parts = self.simplify_and(parts);
        }
        let m = if *op == Op::And {
            self.g.and(&parts)
        } else {
            self.g.or(&parts)
        };
        let mnode = self.g.node(m);
        if mnode.op == *op {
            let mut x: Vec<Id> = mnode.args.iter().map(|&i| self.r(i)).collect();
            let mut y: Vec<Id> = self.g.node(n).args.iter().map(|&i| self.r(i)).collect();
            x.sort();
            x.dedup();
            y.sort();
            y.dedup();
            if x == y {
                return None;
            }
        }
        Some(m)
    }

    /// The conjuncts of a gate (a literal is a one-element conjunction),
    /// as sorted representatives.
    pub(super) fn conjuncts(&self, x: Id) -> Vec<Id> {
        let node = self.g.node(x);
        let mut v: Vec<Id> = if node.op == Op::And {
            node.args.iter().map(|&i| self.r(i)).collect()
        } else {
            vec![self.r(x)]
        };
        v.sort();
        v.dedup();
        v
    }

    /// The duals of [`Rules::simplify_or`] over the conjuncts, against
    /// the conjuncts that are not disjunctions: absorption (`a ∧ (a ∨ b)
    /// = a`) and resolution (`a ∧ (¬a ∨ b) = a ∧ b`). The negation of a
    /// simplified disjunction (`¬(a ∨ (¬a ∧ b))`, the else gate of a
    /// short-circuit `||` in negation normal form) is then the same node
    /// as the negation of its simplified form (`¬a ∧ ¬b`).
    pub(super) fn simplify_and(&mut self, parts: Vec<Id>) -> Vec<Id> {
        let lits: Vec<Id> = (parts.iter())
            .filter(|&&p| self.g.node(p).op != Op::Or)
            .map(|&p| self.r(p))
            .collect();
        let mut out = Vec::with_capacity(parts.len());
        for &p in &parts {
            if self.g.node(p).op != Op::Or {
                out.push(p);
                continue;
            }
            let ds: Vec<Id> = self.g.node(p).args.iter().map(|&d| self.r(d)).collect();
            if ds.iter().any(|d| lits.contains(d)) {
                continue;
            }
            let mut keep = Vec::with_capacity(ds.len());
            for &d in &ds {
                let mut resolved = false;
                for &l in &lits {
                    if self.complement(l, d) {
                        resolved = true;
                        break;
                    }
                }
                if !resolved {
                    keep.push(d);
                }
            }
            if keep.len() == ds.len() {
                out.push(p);
            } else {
                out.push(self.g.or(&keep));
            }
        }
        out
    }

    /// Absorption (`a ∨ (a ∧ b) = a`) and resolution
    /// (`(S ∧ c) ∨ (S ∧ ¬c) = S`) over the disjuncts.
    ///
    /// The terms are sorted sets ([`Rules::conjuncts`]; removing elements
    /// keeps them sorted), so membership is a binary search. The search is
    /// over pairs of terms, repeated after each change: on a disjunction
    /// of more than [`SIMPLIFY_OR_TERMS`] terms it is skipped, and the
    /// diagrams ([`Rules::merge_gates`]) decide such a gate alone.
    pub(super) fn simplify_or(&mut self, parts: Vec<Id>) -> Vec<Id> {
        let mut terms: Vec<Vec<Id>> = parts.iter().map(|&p| self.conjuncts(p)).collect();
        let mut changed = terms.len() <= SIMPLIFY_OR_TERMS;
        let mut fuel = 64;
        while changed && fuel > 0 {
            changed = false;
            fuel -= 1;
            'search: for i in 0..terms.len() {
                for j in 0..terms.len() {
                    if i == j {
                        continue;
                    }
                    // Absorption: terms[i] ⊆ terms[j] makes j redundant.
                    if terms[i].iter().all(|x| terms[j].binary_search(x).is_ok()) {
                        terms.remove(j);
                        changed = true;
                        break 'search;
                    }
                    // S∧l ∨ S∧¬l∧T = S∧l ∨ S∧T (resolution when T is empty).
                    let missing: Vec<Id> = terms[i]
                        .iter()
                        .copied()
                        .filter(|x| terms[j].binary_search(x).is_err())
                        .collect();
                    if let [l] = missing[..] {
                        let nl = self.g.not(l);
                        let nl = self.r(nl);
                        if let Ok(pos) = terms[j].binary_search(&nl) {
                            terms[j].remove(pos);
                            changed = true;
                            break 'search;
                        }
                    }
                    // Resolution on one complementary literal.
                    if terms[i].len() == terms[j].len() {
                        let di: Vec<Id> = terms[i]
                            .iter()
                            .copied()
                            .filter(|x| terms[j].binary_search(x).is_err())
                            .collect();
                        let dj: Vec<Id> = terms[j]
                            .iter()
                            .copied()
                            .filter(|x| terms[i].binary_search(x).is_err())
                            .collect();
                        if di.len() == 1 && dj.len() == 1 && self.complement(di[0], dj[0]) {
                            let keep: Vec<Id> =
                                terms[i].iter().copied().filter(|&x| x != di[0]).collect();
                            let (lo, hi) = (i.min(j), i.max(j));
                            terms.remove(hi);
                            terms[lo] = keep;
                            changed = true;
                            break 'search;
                        }
                    }
                }
            }
        }
        terms.into_iter().map(|t| self.g.and(&t)).collect()
    }

    /// Whether `x` and `y` are each other's negation.
    pub(super) fn complement(&mut self, x: Id, y: Id) -> bool {
        let nx = self.g.not(x);
        self.same(nx, y)
    }
}

/// The conjuncts that every one of `sets` contains (`sets` is not empty).
pub(super) fn common_conjuncts(sets: &[Vec<Id>]) -> Vec<Id> {
    sets[0]
        .iter()
        .copied()
        .filter(|c| sets[1..].iter().all(|s| s.contains(c)))
        .collect()
}
