//! Reduced ordered binary decision diagrams over gate atoms (digest §5.4,
//! "Gates, v2: an ROBDD over condition atoms, ordered by class id": the
//! middle ground between syntactic φ matching and SMT that Govereau's
//! §8.0.4 leaves open).
//!
//! A diagram is a `u32` handle; [`FALSE`] and [`TRUE`] are the terminals.
//! Nodes are unique (`mk` never builds a node whose branches are equal nor
//! a second copy of a node), so two propositional formulas over the same
//! variable order are equivalent iff their handles are equal (Bryant
//! 1986). The number of nodes is bounded: an operation that would exceed
//! the bound answers `None` and the caller treats the formula as opaque.

use rustc_hash::FxHashMap;

/// The constant false diagram.
pub const FALSE: u32 = 0;
/// The constant true diagram.
pub const TRUE: u32 = 1;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
struct BNode {
    var: u32,
    lo: u32,
    hi: u32,
}

/// A shared diagram store with memoized operations.
pub struct Bdd {
    nodes: Vec<BNode>,
    unique: FxHashMap<BNode, u32>,
    and_memo: FxHashMap<(u32, u32), u32>,
    or_memo: FxHashMap<(u32, u32), u32>,
    not_memo: FxHashMap<u32, u32>,
    limit: usize,
}

impl Bdd {
    /// An empty store that grows to at most `limit` nodes.
    pub fn new(limit: usize) -> Bdd {
        let term = BNode {
            var: u32::MAX,
            lo: 0,
            hi: 0,
        };
        Bdd {
            // The terminals sit below every variable.
            nodes: vec![
                term,
                BNode {
                    hi: 1,
                    lo: 1,
                    ..term
                },
            ],
            unique: FxHashMap::default(),
            and_memo: FxHashMap::default(),
            or_memo: FxHashMap::default(),
            not_memo: FxHashMap::default(),
            limit,
        }
    }

    /// Number of nodes, terminals included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether only the terminals exist.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 2
    }

    fn var_of(&self, a: u32) -> u32 {
        self.nodes[a as usize].var
    }

    fn mk(&mut self, var: u32, lo: u32, hi: u32) -> Option<u32> {
        if lo == hi {
            return Some(lo);
        }
        let n = BNode { var, lo, hi };
        if let Some(&id) = self.unique.get(&n) {
            return Some(id);
        }
        if self.nodes.len() >= self.limit {
            return None;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(n);
        self.unique.insert(n, id);
        Some(id)
    }

    /// The diagram of variable `v` (smaller variables are tested first).
    pub fn var(&mut self, v: u32) -> Option<u32> {
        self.mk(v, FALSE, TRUE)
    }

    /// If `a` is a single variable or its negation: the variable and
    /// whether it is positive.
    pub fn literal(&self, a: u32) -> Option<(u32, bool)> {
        let n = self.nodes[a as usize];
        match (n.lo, n.hi) {
            (FALSE, TRUE) if a > TRUE => Some((n.var, true)),
            (TRUE, FALSE) if a > TRUE => Some((n.var, false)),
            _ => None,
        }
    }

    /// `¬a`.
    pub fn not(&mut self, a: u32) -> Option<u32> {
        match a {
            FALSE => return Some(TRUE),
            TRUE => return Some(FALSE),
            _ => {}
        }
        if let Some(&r) = self.not_memo.get(&a) {
            return Some(r);
        }
        let n = self.nodes[a as usize];
        let lo = self.not(n.lo)?;
        let hi = self.not(n.hi)?;
        let r = self.mk(n.var, lo, hi)?;
        self.not_memo.insert(a, r);
        Some(r)
    }

    /// `a ∧ b`.
    pub fn and(&mut self, a: u32, b: u32) -> Option<u32> {
        self.apply(true, a, b)
    }

    /// `a ∨ b`, by its own apply (not as `¬(¬a ∧ ¬b)`, whose two outer
    /// negations copy the whole diagram of a growing disjunction at every
    /// step of a long `||` chain).
    pub fn or(&mut self, a: u32, b: u32) -> Option<u32> {
        self.apply(false, a, b)
    }

    /// Bryant's apply for `a ∧ b` (`and` true) or `a ∨ b` (`and` false):
    /// both split on the lower top variable and differ only in their
    /// absorbing and neutral terminals and their memo table.
    fn apply(&mut self, and: bool, a: u32, b: u32) -> Option<u32> {
        let (absorbing, neutral) = if and { (FALSE, TRUE) } else { (TRUE, FALSE) };
        if a == absorbing || b == absorbing {
            return Some(absorbing);
        }
        if a == neutral || a == b {
            return Some(b);
        }
        if b == neutral {
            return Some(a);
        }
        let key = (a.min(b), a.max(b));
        let memo = if and { &self.and_memo } else { &self.or_memo };
        if let Some(&r) = memo.get(&key) {
            return Some(r);
        }
        let (va, vb) = (self.var_of(a), self.var_of(b));
        let v = va.min(vb);
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        let (a0, a1) = if va == v { (na.lo, na.hi) } else { (a, a) };
        let (b0, b1) = if vb == v { (nb.lo, nb.hi) } else { (b, b) };
        let lo = self.apply(and, a0, b0)?;
        let hi = self.apply(and, a1, b1)?;
        let r = self.mk(v, lo, hi)?;
        let memo = if and {
            &mut self.and_memo
        } else {
            &mut self.or_memo
        };
        memo.insert(key, r);
        Some(r)
    }

    /// The conjunction (`and` true) or disjunction (`and` false) of
    /// `parts`, combined from the operand tested last to the one tested
    /// first: an operand whose top variable is above every variable of
    /// the result so far then costs one node, so a conjunction of `n`
    /// literals (a path condition) costs `n` nodes, where combining them
    /// in another order may copy the growing result at each step (`n²/2`
    /// nodes, and `n³/6` over the `n` path conditions of a chain). The
    /// result is the same diagram in any order (Bryant 1986).
    pub fn junction(&mut self, and: bool, parts: &mut [u32]) -> Option<u32> {
        parts.sort_unstable_by_key(|&p| std::cmp::Reverse(self.var_of(p)));
        let mut acc = if and { TRUE } else { FALSE };
        for &p in parts.iter() {
            acc = match self.literal(p) {
                // A literal above every variable of `acc`: the node `apply`
                // would make, without its memo (a path condition is a
                // conjunction of literals, rebuilt in every round).
                Some((v, pos)) if v < self.var_of(acc) && acc > TRUE => {
                    let other = if and { FALSE } else { TRUE };
                    match (and, pos) {
                        (true, true) | (false, false) => self.mk(v, other, acc)?,
                        _ => self.mk(v, acc, other)?,
                    }
                }
                _ => self.apply(and, acc, p)?,
            };
        }
        Some(acc)
    }

    /// The generalized cofactor `f ↓ c` (Coudert and Madre 1990): `f`
    /// composed with a projection onto `c` that is the identity inside
    /// `c`. It equals `f` wherever `c` holds, depends only on `f ∧ c`,
    /// and distributes over every connective. `c` must not be false.
    pub fn constrain(&mut self, f: u32, c: u32) -> Option<u32> {
        let mut memo = FxHashMap::default();
        self.constrain_memo(f, c, &mut memo)
    }

    fn constrain_memo(
        &mut self,
        f: u32,
        c: u32,
        memo: &mut FxHashMap<(u32, u32), u32>,
    ) -> Option<u32> {
        if c == TRUE || f <= TRUE {
            return Some(f);
        }
        if c == FALSE {
            return Some(FALSE);
        }
        if f == c {
            return Some(TRUE);
        }
        if let Some(&r) = memo.get(&(f, c)) {
            return Some(r);
        }
        let v = self.var_of(f).min(self.var_of(c));
        let (nf, nc) = (self.nodes[f as usize], self.nodes[c as usize]);
        let (f0, f1) = if nf.var == v { (nf.lo, nf.hi) } else { (f, f) };
        let (c0, c1) = if nc.var == v { (nc.lo, nc.hi) } else { (c, c) };
        let r = if c0 == FALSE {
            self.constrain_memo(f1, c1, memo)?
        } else if c1 == FALSE {
            self.constrain_memo(f0, c0, memo)?
        } else {
            let lo = self.constrain_memo(f0, c0, memo)?;
            let hi = self.constrain_memo(f1, c1, memo)?;
            self.mk(v, lo, hi)?
        };
        memo.insert((f, c), r);
        Some(r)
    }

    /// `f` with each variable `v` replaced by the variable `rename(v)`
    /// (in any order).
    pub fn rename(&mut self, f: u32, rename: &mut dyn FnMut(u32) -> Option<u32>) -> Option<u32> {
        let mut memo = FxHashMap::default();
        self.rename_memo(f, rename, &mut memo)
    }

    fn rename_memo(
        &mut self,
        f: u32,
        rename: &mut dyn FnMut(u32) -> Option<u32>,
        memo: &mut FxHashMap<u32, u32>,
    ) -> Option<u32> {
        if f <= TRUE {
            return Some(f);
        }
        if let Some(&r) = memo.get(&f) {
            return Some(r);
        }
        let n = self.nodes[f as usize];
        let lo = self.rename_memo(n.lo, rename, memo)?;
        let hi = self.rename_memo(n.hi, rename, memo)?;
        let v = rename(n.var)?;
        let x = self.var(v)?;
        let nx = self.not(x)?;
        let a = self.and(x, hi)?;
        let b = self.and(nx, lo)?;
        let r = self.or(a, b)?;
        memo.insert(f, r);
        Some(r)
    }

    /// Whether `a ⇒ b` holds for every assignment.
    pub fn implies(&mut self, a: u32, b: u32) -> Option<bool> {
        let nb = self.not(b)?;
        Some(self.and(a, nb)? == FALSE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A formula over 4 variables.
    #[derive(Clone, Debug)]
    enum F {
        Var(u32),
        Not(Box<F>),
        And(Box<F>, Box<F>),
        Or(Box<F>, Box<F>),
    }

    fn formula() -> impl Strategy<Value = F> {
        let leaf = (0u32..4).prop_map(F::Var);
        leaf.prop_recursive(5, 32, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|f| F::Not(Box::new(f))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| F::And(Box::new(a), Box::new(b))),
                (inner.clone(), inner).prop_map(|(a, b)| F::Or(Box::new(a), Box::new(b))),
            ]
        })
    }

    fn eval(f: &F, env: u32) -> bool {
        match f {
            F::Var(v) => env >> v & 1 == 1,
            F::Not(a) => !eval(a, env),
            F::And(a, b) => eval(a, env) && eval(b, env),
            F::Or(a, b) => eval(a, env) || eval(b, env),
        }
    }

    fn build(b: &mut Bdd, f: &F) -> u32 {
        match f {
            F::Var(v) => b.var(*v).unwrap(),
            F::Not(a) => {
                let x = build(b, a);
                b.not(x).unwrap()
            }
            F::And(x, y) => {
                let (x, y) = (build(b, x), build(b, y));
                b.and(x, y).unwrap()
            }
            F::Or(x, y) => {
                let (x, y) = (build(b, x), build(b, y));
                b.or(x, y).unwrap()
            }
        }
    }

    proptest! {
        /// T1 for the gate normal form: two formulas get the same diagram
        /// exactly when they agree on all 16 assignments.
        #[test]
        fn equal_diagrams_iff_equivalent(f in formula(), g in formula()) {
            let mut b = Bdd::new(1 << 16);
            let (x, y) = (build(&mut b, &f), build(&mut b, &g));
            let same = (0..16).all(|env| eval(&f, env) == eval(&g, env));
            prop_assert_eq!(x == y, same);
            let implies = (0..16).all(|env| !eval(&f, env) || eval(&g, env));
            prop_assert_eq!(b.implies(x, y), Some(implies));
        }

        /// T1 for the η-exit normal form: `f ↓ c` equals `f` inside `c`,
        /// and two functions equal inside `c` get the same cofactor.
        #[test]
        fn cofactors_agree_inside_and_are_canonical(f in formula(), g in formula(), c in formula()) {
            let mut b = Bdd::new(1 << 16);
            let (x, y, k) = (build(&mut b, &f), build(&mut b, &g), build(&mut b, &c));
            prop_assume!(k != FALSE);
            let (fx, fy) = (b.constrain(x, k).unwrap(), b.constrain(y, k).unwrap());
            let inside = |env: u32| eval(&c, env);
            let agree = (0..16).filter(|&e| inside(e)).all(|e| eval(&f, e) == eval(&g, e));
            prop_assert_eq!(fx == fy, agree);
            let both = b.and(fx, k).unwrap();
            prop_assert_eq!(both, b.and(x, k).unwrap());
            // Renaming every variable to a fresh one and back is the identity.
            let up = b.rename(x, &mut |v| Some(v + 10)).unwrap();
            prop_assert_eq!(b.rename(up, &mut |v| Some(v - 10)).unwrap(), x);
        }
    }

    proptest! {
        /// `junction` builds a conjunction or disjunction of literals node
        /// by node (without `apply`) as the same diagram `apply` makes.
        #[test]
        fn a_junction_of_literals_is_the_applied_diagram(
            lits in proptest::collection::vec((0u32..8, any::<bool>()), 0..10),
            and in any::<bool>(),
        ) {
            let mut b = Bdd::new(1 << 16);
            let mut parts: Vec<u32> = lits
                .iter()
                .map(|&(v, pos)| {
                    let x = b.var(v).unwrap();
                    if pos { x } else { b.not(x).unwrap() }
                })
                .collect();
            let mut folded = if and { TRUE } else { FALSE };
            for &p in &parts {
                folded = b.apply(and, folded, p).unwrap();
            }
            prop_assert_eq!(b.junction(and, &mut parts), Some(folded));
        }
    }

    #[test]
    fn the_limit_is_respected() {
        let mut b = Bdd::new(4);
        let x = b.var(0).unwrap();
        let y = b.var(1).unwrap();
        assert_eq!(b.var(2), None);
        assert!(b.and(x, y).is_none() || b.len() <= 4);
        assert_eq!(b.literal(x), Some((0, true)));
        let nx = b.not(x);
        assert!(nx.is_none() || b.literal(nx.unwrap()) == Some((0, false)));
    }
}
