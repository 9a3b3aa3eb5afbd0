//! The normalization rules R1–R7 (digest §5.5; Govereau §2.4 rules
//! 2.1–2.11, §2.4.2 steps 1–7, §7.3.2–7.3.3), applied to one node at a
//! time modulo the current classes (digest §5.4 step 2). R0 (sharing,
//! commutative order, φ-branch sorting) is `refine`.
//!
//! | rule | what | thesis |
//! | --- | --- | --- |
//! | R1 | constant folding by the interpreter (`fold`) | §2.4 "add 3 2 ↓ 5" |
//! | R2 | `a = a ↓ true`, `a ≠ a ↓ false` on `int`/`bool`/`str` (never `float`), `a = true ↓ a`, `a ≠ false ↓ a`; integer identities (`x+0`, `x*1`, `x-x`, ...) | 2.1–2.4 |
//! | R3 | φ: false branches dropped, a true branch is the value (2.5), equal values (2.6), one branch; gate algebra: negation normal form, flattening, complements, absorption and resolution of `Or`, and their duals on `And` against its literal conjuncts | 2.5, 2.6, §7.3.2 |
//! | R4 | `μ_d(x, x) ↓ x` and `μ_d(x, μ) ↓ x`; η-invariance `η_d(c, x) ↓ x` when `x` varies with no loop of depth ≥ d; first-iteration peel `η_d(c, v) ↓ v₀` when `c₀` is false | 2.7–2.9, §2.4.2 steps 3–4 |
//! | R5 | loads skip effects that cannot change what they read (distinct allocations, other globals, checks, output), forward a store to the same place, and skip a whole loop whose token cycle writes nothing they read, or a token φ whose branches come down to one token (`loads`) | 2.10, 2.11 |
//! | R6 | a check that passed earlier on the token chain passes again; a division check by a non-zero constant and `assert true` vanish; a store overwriting the same place drops the earlier one | — (digest R6) |
//! | R7 | pass-mirroring, in the optimizer's orientation: `a + a ↓ a << 1`, `a * 2^k ↓ a << k`, constant chains `(a ± k1) ± k2 ↓ a ± k` (`reassoc`; wrapping `+` is associative) | §2.4 |
//! | R8 | a bounds check proved by the facts where it is observed (`range`) | — |
//! | R9 | a pure operator common to every branch of a φ is factored out (`phiop`) | §4.0.3 (φ, `map` pointwise) |
//! | R10 | nested φ's flatten: `φ{G → φ{h_j → v_j}} ↓ φ{G ∧ h_j → v_j}` (`phiop`) | §4.0.3 (φ pointwise) |
//! | R11 | a φ outside every loop gets its gates conjoined with where it is observed: `φ{g_j → v_j} ↓ φ{g_j ∧ O → v_j}` (`observe`) | §4.0.3 (φ pointwise) |
//! | R12 | an operator on constants moves into a φ with a constant branch, where it folds: `op(φ{g_i → a_i}, k) ↓ φ{g_i → op(a_i, k)}` (`phiop`) | §4.0.3 (φ pointwise) |
//!
//! In strict-termination mode (digest §5.2) R4's μ and η rules do not
//! fire on tokens, so deleting a loop that might not terminate alarms.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::bdd::{FALSE, TRUE};
use super::fold;
use super::gates::{Atom, Gates};
use super::graph::{Args, EffKind, Graph, Id, LoadKind, Op};
use super::range::Strip;
use super::refine::Classes;
use crate::ir::{BinaryOp, Cmp, Type};

/// Most terms of a disjunction that [`Rules::simplify_or`] searches for
/// absorption and resolution: the search compares every pair of terms
/// after each change, so a long `||` chain (hundreds of terms of hundreds
/// of literals) would cost the fourth power of its length per round.
const SIMPLIFY_OR_TERMS: usize = 32;

/// The key of [`Rules::floors`]: load kind, address, token, fuel.
pub(super) type FloorKey = (LoadKind, SmallVec<[Id; 2]>, Id, u8);

/// The rule engine's view of one round: the graph, the classes and a
/// representative per class.
pub struct Rules<'a> {
    /// The shared graph (rules add nodes).
    pub g: &'a mut Graph,
    /// The current congruence.
    pub cls: &'a Classes,
    /// A representative node per class.
    pub rep: Vec<Id>,
    /// The loop depth each node varies with (0: invariant in every loop).
    pub vd: Depths,
    /// Strict-termination mode.
    pub strict: bool,
    peeled: FxHashMap<(Id, u16), Option<Id>>,
    /// Memo of R5's walk down a token chain (`loads`): (kind, address,
    /// token, fuel) → the lowest token read alike.
    pub(super) floors: FxHashMap<FloorKey, Id>,
    pub(super) gates: Gates,
    /// R8's state for this round.
    pub(super) range: Strip,
    /// Whether R10 (`flatten_phi`) may fire in this pass over the round's
    /// nodes: [`super::check`] enables it only once nothing else, R8's
    /// case split included, rewrites, as flattening a two-way φ takes away
    /// the shape the case split compares.
    pub(super) flatten: bool,
}

impl<'a> Rules<'a> {
    /// Prepares a round over the classes `cls`.
    pub fn new(g: &'a mut Graph, cls: &'a Classes, strict: bool) -> Rules<'a> {
        let mut rep = vec![Id(u32::MAX); cls.count as usize];
        for &n in &cls.reached {
            let c = cls.of(n) as usize;
            if rep[c].0 == u32::MAX {
                rep[c] = n;
            }
        }
        let vd = Depths::new(g);
        let gates = Gates::new(g, cls);
        Rules {
            g,
            cls,
            rep,
            vd,
            strict,
            peeled: FxHashMap::default(),
            floors: FxHashMap::default(),
            gates,
            range: Strip::default(),
            flatten: false,
        }
    }

    /// The representative of `id`'s class (itself for new nodes).
    pub fn r(&self, id: Id) -> Id {
        match self.cls.class.get(id.index()) {
            Some(&c) if c != u32::MAX => self.rep[c as usize],
            _ => id,
        }
    }

    pub(super) fn same(&self, a: Id, b: Id) -> bool {
        self.r(a) == self.r(b)
    }

    pub(super) fn konst(&self, id: Id) -> Option<u64> {
        self.g.const_of(self.r(id))
    }

    fn boolean(&self, id: Id) -> Option<bool> {
        self.g.bool_of(self.r(id))
    }

    /// The loop depth `id` varies with (`u16::MAX` for nodes made in
    /// this round).
    pub(super) fn depth_of(&self, id: Id) -> u16 {
        self.vd.of(self.g, id)
    }

    /// The node `n` rewrites to, if a rule applies.
    pub fn apply(&mut self, n: Id) -> Option<Id> {
        // The operator and the arguments' representatives, without
        // cloning the node (this runs on every node of every round).
        let (node_op, ty) = (self.g.node(n).op.clone(), self.g.node(n).ty);
        let a: SmallVec<[Id; 4]> = self.g.node(n).args.iter().map(|&x| self.r(x)).collect();
        let out = match &node_op {
            Op::Un(op) => match self.konst(a[0]) {
                Some(k) => {
                    let t = self.g.node(a[0]).ty;
                    let v = fold::unary(*op, t, k)?;
                    Some(self.g.konst(ty, v))
                }
                None => self.fold_into_phi(&node_op, ty, &a),
            },
            Op::Bin(op) => self
                .binary(*op, ty, a[0], a[1])
                .or_else(|| {
                    (ty == Type::Bool)
                        .then(|| self.pull_exit(&node_op, &a))
                        .flatten()
                })
                .or_else(|| self.fold_into_phi(&node_op, ty, &a)),
            Op::StrLen => match &self.g.node(a[0]).op {
                Op::Str(s) => {
                    let len = s.len() as u64;
                    Some(self.g.konst(Type::Int, len))
                }
                _ => None,
            },
            Op::StrCmp(cc) => {
                if self.same(a[0], a[1]) {
                    return Some(self.g.boolean(matches!(cc, Cmp::Eq | Cmp::Le | Cmp::Ge)));
                }
                match (&self.g.node(a[0]).op, &self.g.node(a[1]).op) {
                    (Op::Str(x), Op::Str(y)) => {
                        let o = x.as_bytes().cmp(y.as_bytes());
                        Some(self.g.boolean(cc.holds(o)))
                    }
                    _ => None,
                }
            }
            Op::Not => {
                let inner = self.g.node(a[0]).clone();
                match inner.op {
                    Op::And | Op::Or => {
                        let negs: Vec<Id> = inner
                            .args
                            .iter()
                            .map(|&x| {
                                let x = self.r(x);
                                self.g.not(x)
                            })
                            .collect();
                        Some(if inner.op == Op::And {
                            self.g.or(&negs)
                        } else {
                            self.g.and(&negs)
                        })
                    }
                    _ => {
                        let m = self.g.not(a[0]);
                        (self.g.node(m).op != Op::Not).then_some(m)
                    }
                }
            }
            Op::And | Op::Or => self.junction(n, &node_op, &a),
            Op::Phi => self
                .phi(n, ty, &a)
                .or_else(|| self.flatten_phi(n, ty, &a))
                .or_else(|| self.factor_phi(ty, &a))
                .or_else(|| self.strip_checks(n))
                .or_else(|| self.case_split(n)),
            Op::Mu(_) => {
                let tok_ok = !(self.strict && ty == Type::Unit);
                (tok_ok && (self.same(a[1], n) || self.same(a[1], a[0])))
                    .then_some(a[0])
                    .or_else(|| self.strip_checks(n))
            }
            Op::Eta(d) => self
                .eta(*d, ty, a[0], a[1])
                .or_else(|| self.strip_checks(n)),
            Op::Load(kind) => self.load(*kind, ty, &a),
            Op::Proj(1) => self.check_passes(a[0]),
            Op::Eff(EffKind::ArraySet) => {
                // R6: a store over a store to the same place.
                let prev = self.store_below(a[3])?;
                let p = self.g.node(prev).clone();
                let pa: Vec<Id> = p.args.iter().map(|&x| self.r(x)).collect();
                (p.op == Op::Eff(EffKind::ArraySet)
                    && self.same(pa[0], a[0])
                    && self.same(pa[1], a[1]))
                .then(|| {
                    self.g.intern(
                        Op::Eff(EffKind::ArraySet),
                        ty,
                        vec![a[0], a[1], a[2], pa[3]],
                    )
                })
            }
            _ => None,
        }?;
        (!self.same(out, n)).then_some(out)
    }

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
    fn atom_node(&mut self, v: u32) -> Id {
        match self.gates.atom(v) {
            Atom::Node(id) => self.r(id),
            Atom::Exit(d, c, w) => {
                let inner = self.atom_node(w);
                let c = self.r(c);
                self.g.intern(Op::Eta(d), Type::Bool, vec![c, inner])
            }
        }
    }

    /// The effect whose token `tok` is, if any.
    fn store_below(&self, tok: Id) -> Option<Id> {
        let t = self.g.node(self.r(tok));
        (t.op == Op::Proj(1)).then(|| self.r(t.args[0]))
    }

    fn binary(&mut self, op: BinaryOp, ty: Type, x: Id, y: Id) -> Option<Id> {
        let (tx, ty_) = (self.g.node(x).ty, self.g.node(y).ty);
        if let (Some(kx), Some(ky)) = (self.konst(x), self.konst(y)) {
            let v = fold::binary(op, tx, ty_, kx, ky)?;
            return Some(self.g.konst(ty, v));
        }
        let (kx, ky) = (
            self.konst(x).map(|k| k as i64),
            self.konst(y).map(|k| k as i64),
        );
        let same = self.same(x, y);
        use BinaryOp::*;
        // Only where no identity below applies first (it builds nodes).
        let chain = match op {
            IAdd | ISub if ty == Type::Int && !same && kx != Some(0) && ky != Some(0) => {
                self.constant_chain(op, x, y)
            }
            _ => None,
        };
        let zero = |s: &mut Self| s.g.konst(Type::Int, 0);
        match op {
            ICmp(cc) | BCmp(cc) if same => {
                Some(self.g.boolean(matches!(cc, Cmp::Eq | Cmp::Le | Cmp::Ge)))
            }
            BCmp(Cmp::Eq) => match (self.boolean(x), self.boolean(y)) {
                (_, Some(true)) => Some(x),
                (Some(true), _) => Some(y),
                (_, Some(false)) => Some(self.g.not(x)),
                (Some(false), _) => Some(self.g.not(y)),
                _ => None,
            },
            BCmp(Cmp::Ne) => match (self.boolean(x), self.boolean(y)) {
                (_, Some(false)) => Some(x),
                (Some(false), _) => Some(y),
                (_, Some(true)) => Some(self.g.not(x)),
                (Some(true), _) => Some(self.g.not(y)),
                _ => None,
            },
            IAdd | IOr | IXor if ky == Some(0) => Some(x),
            IAdd | IOr | IXor if kx == Some(0) => Some(y),
            ISub | IShl | IShr if ky == Some(0) => Some(x),
            IMul | IDiv if ky == Some(1) => Some(x),
            IMul if kx == Some(1) => Some(y),
            IMul | IAnd if ky == Some(0) || kx == Some(0) => Some(zero(self)),
            IAnd if ky == Some(-1) => Some(x),
            IAnd if kx == Some(-1) => Some(y),
            IRem if ky == Some(1) || ky == Some(-1) => Some(zero(self)),
            ISub | IXor if same => Some(zero(self)),
            IAnd | IOr | IMin | IMax if same => Some(x),
            // R7, in `reassoc`'s orientation ([`Rules::constant_chain`]).
            IAdd | ISub if chain.is_some() => chain,
            // R7, in the optimizer's orientation: `a + a ↓ a << 1`,
            // `a * 2^k ↓ a << k`.
            IAdd if same => {
                let one = self.g.konst(Type::Int, 1);
                Some(self.g.bin(IShl, Type::Int, x, one))
            }
            IMul if ky.is_some_and(|k| k > 1 && (k as u64).is_power_of_two()) => {
                let k = self.g.konst(Type::Int, u64::from(ky?.trailing_zeros()));
                Some(self.g.bin(IShl, Type::Int, x, k))
            }
            IMul if kx.is_some_and(|k| k > 1 && (k as u64).is_power_of_two()) => {
                let k = self.g.konst(Type::Int, u64::from(kx?.trailing_zeros()));
                Some(self.g.bin(IShl, Type::Int, y, k))
            }
            _ => None,
        }
    }

    /// R7 in `reassoc`'s orientation: `(a ± k1) ± k2 ↓ a ± k`, for an `a`
    /// that varies with no loop (where `reassoc` works; inside loops the
    /// doubling rule of `unroll` matches the copies of a body by their
    /// shape). The sum is the interpreter's.
    fn constant_chain(&mut self, op: BinaryOp, x: Id, y: Id) -> Option<Id> {
        let (inner, k2) = self.offset_step(op, x, y)?;
        let (a, k1) = self.offset_form(inner)?;
        if self.depth_of(a) != 0 {
            return None;
        }
        let k = fold::binary(BinaryOp::IAdd, Type::Int, Type::Int, k1, k2)?;
        Some(self.offset(a, k))
    }

    /// `x op y` as `(a, k)` meaning `a + k` (wrapping), when it is `a + k`,
    /// `k + a` or `a - k` of an `int` constant `k` and a non-constant `a`.
    fn offset_step(&self, op: BinaryOp, x: Id, y: Id) -> Option<(Id, u64)> {
        let (x, y) = (self.r(x), self.r(y));
        match (op, self.konst(x), self.konst(y)) {
            (BinaryOp::IAdd, None, Some(k)) => Some((x, k)),
            (BinaryOp::IAdd, Some(k), None) => Some((y, k)),
            (BinaryOp::ISub, None, Some(k)) => {
                Some((x, fold::binary(BinaryOp::ISub, Type::Int, Type::Int, 0, k)?))
            }
            _ => None,
        }
    }

    /// Node `n` as `(a, k)` meaning `a + k`, when it is an `int` `+`/`-` of
    /// a constant ([`Rules::offset_step`]).
    fn offset_form(&self, n: Id) -> Option<(Id, u64)> {
        let node = self.g.node(self.r(n));
        match (&node.op, node.ty, node.args.as_slice()) {
            (Op::Bin(op @ (BinaryOp::IAdd | BinaryOp::ISub)), Type::Int, &[x, y]) => {
                self.offset_step(*op, x, y)
            }
            _ => None,
        }
    }

    /// `a + k` as `reassoc` writes it: `a` when `k` is 0, `a - (-k)` when
    /// `k` is negative (and not the minimum), else `a + k`.
    fn offset(&mut self, a: Id, k: u64) -> Id {
        let signed = k as i64;
        if signed == 0 {
            a
        } else if signed < 0 && signed != i64::MIN {
            let c = self.g.konst(Type::Int, signed.wrapping_neg() as u64);
            self.g.bin(BinaryOp::ISub, Type::Int, a, c)
        } else {
            let c = self.g.konst(Type::Int, k);
            self.g.bin(BinaryOp::IAdd, Type::Int, a, c)
        }
    }

    /// R3 on `And`/`Or`: rebuilt from representatives (flattening,
    /// constants, complements), then absorption and resolution for `Or`.
    fn junction(&mut self, n: Id, op: &Op, a: &[Id]) -> Option<Id> {
        let mut parts: Vec<Id> = a.to_vec();
        if *op == Op::Or {
            parts = self.simplify_or(parts);
            // (A ∧ X) ∨ (A ∧ Y) = A ∧ (X ∨ Y).
            let sets: Vec<Vec<Id>> = parts.iter().map(|&p| self.conjuncts(p)).collect();
            if sets.len() >= 2 {
                let common: Vec<Id> = sets[0]
                    .iter()
                    .copied()
                    .filter(|c| sets[1..].iter().all(|s| s.contains(c)))
                    .collect();
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
    fn conjuncts(&self, x: Id) -> Vec<Id> {
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
    fn simplify_and(&mut self, parts: Vec<Id>) -> Vec<Id> {
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
    fn simplify_or(&mut self, parts: Vec<Id>) -> Vec<Id> {
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
    fn complement(&mut self, x: Id, y: Id) -> bool {
        let nx = self.g.not(x);
        self.same(nx, y)
    }

    /// R3 on φ.
    fn phi(&mut self, n: Id, ty: Type, a: &[Id]) -> Option<Id> {
        let mut branches: Vec<(Id, Id)> = Vec::with_capacity(a.len() / 2);
        for c in a.chunks(2) {
            let (g, v) = (c[0], c[1]);
            match self.boolean(g) {
                Some(false) => continue,
                Some(true) => return Some(v),
                None => {}
            }
            // Merge branches with the same value.
            if let Some(b) = branches.iter_mut().find(|b| self.r(b.1) == self.r(v)) {
                let gs = [b.0, g];
                b.0 = self.g.or(&gs);
                continue;
            }
            branches.push((g, v));
        }
        match branches.len() {
            // Every gate false: the φ is never used where it is reached.
            0 => return None,
            1 => return Some(branches[0].1),
            _ => {}
        }
        // The φ matters only where its block is reached, under the
        // disjunction of its gates: conjuncts common to every gate are
        // implied there and can go.
        let sets: Vec<Vec<Id>> = branches.iter().map(|b| self.conjuncts(b.0)).collect();
        let common: Vec<Id> = sets[0]
            .iter()
            .copied()
            .filter(|c| sets[1..].iter().all(|s| s.contains(c)))
            .collect();
        if !common.is_empty() {
            for (b, set) in branches.iter_mut().zip(&sets) {
                let rest: Vec<Id> = set
                    .iter()
                    .copied()
                    .filter(|c| !common.contains(c))
                    .collect();
                b.0 = self.g.and(&rest);
            }
        } else if ty == Type::Bool {
            // A boolean φ is the disjunction of its gated values.
            let terms: Vec<Id> = branches.iter().map(|&(g, v)| self.g.and(&[g, v])).collect();
            return Some(self.g.or(&terms));
        }
        if common.is_empty() && branches.len() * 2 == a.len() {
            return None;
        }
        let m = self.g.phi(ty, &branches);
        (m != n).then_some(m)
    }

    /// R4 on η.
    fn eta(&mut self, d: u16, ty: Type, c: Id, v: Id) -> Option<Id> {
        let tok_ok = !(self.strict && ty == Type::Unit);
        if tok_ok && self.depth_of(v) < d {
            return Some(v);
        }
        if ty == Type::Bool {
            // At the exit `c` is false: `η(c, x)` is decided when `¬c`
            // implies `x` or `¬x` (gates, ROBDD).
            match self.gates.exit(self.g, self.cls, &self.vd, d, c, v) {
                Some(TRUE) => return Some(self.g.boolean(true)),
                Some(FALSE) => return Some(self.g.boolean(false)),
                _ => {}
            }
        }
        if let Some(c0) = self.peel(c, d) {
            if self.boolean(c0) == Some(false) {
                return self.peel(v, d);
            }
        }
        // η selects one iteration's value, so it commutes with every pure
        // operator: pushed inward, an η of a value stands only on μ, loads
        // and effects, whichever way a pass or the VSDG sequentializer
        // placed the exit computations. A boolean η is the opposite: it is
        // pulled outward over the whole condition (`pull_exit`), where its
        // diagram sees the exit condition (`Gates::exit`).
        if ty == Type::Bool {
            return None;
        }
        let vn = self.g.node(v).clone();
        let pure = matches!(
            vn.op,
            Op::Un(_)
                | Op::Bin(_)
                | Op::StrLen
                | Op::StrCmp(_)
                | Op::Not
                | Op::And
                | Op::Or
                | Op::Phi
        );
        if !pure {
            return None;
        }
        let args: Args = vn
            .args
            .iter()
            .map(|&x| {
                let x = self.r(x);
                if self.depth_of(x) < d {
                    x
                } else {
                    let t = self.g.node(x).ty;
                    self.g.intern(Op::Eta(d), t, Args::from_slice(&[c, x]))
                }
            })
            .collect();
        Some(self.g.intern(vn.op.clone(), ty, args))
    }

    /// R4, a boolean of exit values is an exit value:
    /// `op(η_d(c, x), k) ↓ η_d(c, op(x, k))` for a boolean pure `op` whose
    /// loop-varying arguments are η's of one exit `(d, c)` through pure
    /// operators and whose other arguments are invariant at depth `d`.
    fn pull_exit(&mut self, op: &Op, a: &[Id]) -> Option<Id> {
        let (d, c) = a.iter().find_map(|&x| self.find_exit(x, 4))?;
        let mut args = Vec::with_capacity(a.len());
        for &x in a {
            args.push(self.unexit(x, d, c, 8)?);
        }
        let inner = self.g.intern(op.clone(), Type::Bool, args);
        Some(self.g.intern(Op::Eta(d), Type::Bool, vec![c, inner]))
    }

    /// An η of a value at the leaves of the pure expression `x`.
    fn find_exit(&self, x: Id, fuel: u8) -> Option<(u16, Id)> {
        let x = self.r(x);
        let n = self.g.node(x);
        match n.op {
            Op::Eta(d) if n.ty != Type::Bool && n.ty != Type::Unit => Some((d, self.r(n.args[0]))),
            Op::Un(_) | Op::Bin(_) | Op::StrLen if fuel > 0 => {
                n.args.iter().find_map(|&y| self.find_exit(y, fuel - 1))
            }
            _ => None,
        }
    }

    /// `x'` with `η_d(c, x') = x`, for `x` built by pure operators from
    /// η's of the exit `(d, c)` and values invariant at depth `d`.
    fn unexit(&mut self, x: Id, d: u16, c: Id, fuel: u8) -> Option<Id> {
        let x = self.r(x);
        let n = self.g.node(x).clone();
        if n.op == Op::Eta(d) && self.same(n.args[0], c) {
            return Some(self.r(n.args[1]));
        }
        if self.depth_of(x) < d {
            return Some(x);
        }
        match n.op {
            Op::Un(_) | Op::Bin(_) | Op::StrLen | Op::StrCmp(_) | Op::Not | Op::And | Op::Or
                if fuel > 0 =>
            {
                let mut args = Vec::with_capacity(n.args.len());
                for &y in &n.args {
                    args.push(self.unexit(y, d, c, fuel - 1)?);
                }
                Some(self.g.intern(n.op, n.ty, args))
            }
            _ => None,
        }
    }

    /// `x₀`: `x` on the first iteration of the depth-`d` loop (each
    /// `μ_d(i, n)` replaced by `i`), when it has no deeper loop inside.
    fn peel(&mut self, x: Id, d: u16) -> Option<Id> {
        let x = self.r(x);
        if self.depth_of(x) < d {
            return Some(x);
        }
        if let Some(&p) = self.peeled.get(&(x, d)) {
            return p;
        }
        self.peeled.insert((x, d), None);
        let node = self.g.node(x).clone();
        let out = match node.op {
            Op::Mu(e) if e == d => Some(self.r(node.args[0])),
            Op::Mu(_) | Op::Eta(_) => None,
            _ => {
                let mut args = Args::with_capacity(node.args.len());
                for &a in &node.args {
                    args.push(self.peel(a, d)?);
                }
                let fresh = self.g.intern(node.op.clone(), node.ty, args);
                Some(self.settle(fresh))
            }
        };
        self.peeled.insert((x, d), out);
        out
    }

    /// Applies the rules to a node built during this round (whose
    /// arguments are already simplified) until none applies.
    fn settle(&mut self, mut x: Id) -> Id {
        for _ in 0..8 {
            match self.apply(x) {
                Some(y) if y != x => x = y,
                _ => break,
            }
        }
        x
    }

    /// Whether no effect on the token cycle of the depth-`d` loop whose
    /// token is `mu` may change what the load reads.
    pub(super) fn loop_preserves(&self, kind: LoadKind, addr: &[Id], mu: Id, d: u16) -> bool {
        self.cycle_all(mu, d, |k, ea| {
            !self.clobbers(kind, addr, k, ea) && self.forward(kind, addr, k, ea).is_none()
        })
    }

    /// Whether every effect on the token cycle of the depth-`d` loop whose
    /// token is `mu` satisfies `ok` (given its kind and resolved
    /// arguments). An unknown node on the cycle, or a cycle too large to
    /// walk, answers `false`.
    fn cycle_all(&self, mu: Id, d: u16, ok: impl Fn(EffKind, &[Id]) -> bool) -> bool {
        let init = self.r(self.g.node(mu).args[0]);
        let mut seen: Vec<Id> = Vec::new();
        let mut work = vec![self.r(self.g.node(mu).args[1])];
        while let Some(t) = work.pop() {
            if t == mu || t == init || seen.contains(&t) {
                continue;
            }
            if seen.len() > 4096 {
                return false;
            }
            seen.push(t);
            let tn = self.g.node(t);
            match &tn.op {
                Op::Proj(1) => {
                    let e = self.g.node(self.r(tn.args[0]));
                    let Op::Eff(k) = e.op else { return false };
                    let ea: Vec<Id> = e.args.iter().map(|&x| self.r(x)).collect();
                    if !ok(k, &ea) {
                        return false;
                    }
                    work.push(ea[ea.len() - 1]);
                }
                Op::Phi => work.extend(tn.args.chunks(2).map(|c| self.r(c[1]))),
                Op::Mu(e) if *e > d => work.extend(tn.args.iter().map(|&x| self.r(x))),
                Op::Eta(e) if *e > d => work.push(self.r(tn.args[1])),
                _ => return false,
            }
        }
        true
    }

    /// R6 on the token of a check: it passes for sure (a non-zero constant
    /// divisor, `assert true`) or passed earlier on the chain.
    fn check_passes(&mut self, e: Id) -> Option<Id> {
        let en = self.g.node(e).clone();
        let Op::Eff(k) = en.op else { return None };
        if !k.is_check() {
            return None;
        }
        let ea: Vec<Id> = en.args.iter().map(|&x| self.r(x)).collect();
        let tok = ea[ea.len() - 1];
        match k {
            EffKind::DivCheck if self.konst(ea[0]).is_some_and(|k| k != 0) => return Some(tok),
            EffKind::Assert if self.boolean(ea[0]) == Some(true) => return Some(tok),
            _ => {}
        }
        // The same check earlier on the chain, with nothing in between
        // that could change its outcome (array lengths for bounds checks).
        let key = &ea[..ea.len() - 1];
        self.passed_before(k, key, tok).then_some(tok)
    }

    /// Whether the check `k` with arguments `key` passed on every path
    /// that leads to the token `tok`, with no effect since that could
    /// change its outcome: the walk goes down the token chain, through a
    /// loop's exit (`η`) into its last iteration, from a loop header (`μ`)
    /// to the token before the loop when the loop's cycle resizes no array,
    /// and into every branch of a token `φ` (each must reach the check; a
    /// loop unrolled by two exits through a `φ` of two `η`'s).
    fn passed_before(&self, k: EffKind, key: &[Id], tok: Id) -> bool {
        let mut seen: Vec<Id> = Vec::new();
        let mut work = vec![tok];
        let mut steps = 0;
        while let Some(t) = work.pop() {
            steps += 1;
            if steps > 256 {
                return false;
            }
            if seen.contains(&t) {
                continue;
            }
            seen.push(t);
            let tn = self.g.node(t);
            match tn.op {
                Op::Eta(_) => work.push(self.r(tn.args[1])),
                Op::Mu(d) => {
                    if k == EffKind::BoundsCheck && self.cycle_resizes(t, d) {
                        return false;
                    }
                    work.push(self.r(tn.args[0]));
                }
                Op::Phi => work.extend(tn.args.chunks(2).map(|c| self.r(c[1]))),
                Op::Proj(1) => {
                    let p = self.g.node(self.r(tn.args[0]));
                    let Op::Eff(pk) = p.op else { return false };
                    let pa: Vec<Id> = p.args.iter().map(|&x| self.r(x)).collect();
                    if pk == k && pa.len() == key.len() + 1 && pa[..key.len()] == *key {
                        continue;
                    }
                    if k == EffKind::BoundsCheck && may_resize(pk) {
                        return false;
                    }
                    work.push(pa[pa.len() - 1]);
                }
                _ => return false,
            }
        }
        true
    }
}

impl Rules<'_> {
    /// Whether an effect on the token cycle of the depth-`d` loop whose
    /// token is `mu` may change an array's length (or do anything).
    fn cycle_resizes(&self, mu: Id, d: u16) -> bool {
        !self.cycle_all(mu, d, |k, _| !may_resize(k))
    }
}

/// Whether an effect of kind `k` may change an array's length: push, pop,
/// and calls (which may run either).
fn may_resize(k: EffKind) -> bool {
    matches!(
        k,
        EffKind::ArrayPush | EffKind::ArrayPop | EffKind::Call(_) | EffKind::HostCall(_)
    )
}

/// The deepest loop each node varies with: `μ_d` varies at `d`, `η_d` at
/// most at `d - 1`, everything else as its deepest argument (the least
/// fixpoint, for cycles through μ). Every node that existed when the round
/// began gets its depth, not only the reached ones: R8's
/// `Rules::with_fact` may find a fact such as `¬x` hash-consed from an
/// earlier round, or read a loop's continue condition, and must not take
/// it for invariant; nodes made during the round get `u16::MAX`.
///
/// Computed on demand, per cone: a node's depth depends on its cone only,
/// and nodes of earlier rounds do not change during a round (rules only
/// add nodes; substitution edits arguments between rounds), so the depths
/// of a cone are those of the whole graph at the start of the round. Most
/// of the graph (what earlier rounds rewrote away) is never asked about.
pub struct Depths {
    /// Nodes at the start of the round.
    limit: usize,
    /// The depth of each node whose cone has been computed.
    depth: std::cell::RefCell<Vec<u16>>,
}

/// A node whose depth is not computed yet.
const UNKNOWN: u16 = u16::MAX;

impl Depths {
    /// The depths of the nodes of `g` as it is now, none computed yet.
    pub fn new(g: &Graph) -> Depths {
        Depths {
            limit: g.len(),
            depth: std::cell::RefCell::new(vec![UNKNOWN; g.len()]),
        }
    }

    /// The depth of `id` (`u16::MAX` for a node made after [`Depths::new`]).
    pub fn of(&self, g: &Graph, id: Id) -> u16 {
        if id.index() >= self.limit {
            return u16::MAX;
        }
        let mut depth = self.depth.borrow_mut();
        if depth[id.index()] != UNKNOWN {
            return depth[id.index()];
        }
        // The cone of `id` not computed yet, arguments first (except
        // around cycles), each node marked `0` (the fixpoint's start).
        let mut cone: Vec<Id> = Vec::new();
        let mut stack: Vec<(Id, usize)> = vec![(id, 0)];
        depth[id.index()] = 0;
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let args = &g.node(n).args;
            if *i < args.len() {
                let a = args[*i];
                *i += 1;
                if depth[a.index()] == UNKNOWN {
                    depth[a.index()] = 0;
                    stack.push((a, 0));
                }
            } else {
                cone.push(n);
                stack.pop();
            }
        }
        // Rounds over the cone until nothing rises (the depth is monotone
        // in the arguments' depths, so this is the least fixpoint).
        let mut changed = true;
        while changed {
            changed = false;
            for &n in &cone {
                let node = g.node(n);
                let inner = node
                    .args
                    .iter()
                    .map(|a| depth[a.index()])
                    .max()
                    .unwrap_or(0);
                let v = match node.op {
                    Op::Mu(d) => inner.max(d),
                    Op::Eta(d) => inner.min(d.saturating_sub(1)),
                    _ => inner,
                };
                if v != depth[n.index()] {
                    depth[n.index()] = v;
                    changed = true;
                }
            }
        }
        depth[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The depths by rounds over every node in index order until nothing
    /// changes (what `Depths` computes per cone).
    fn depths_by_rounds(g: &Graph) -> Vec<u16> {
        let mut vd = vec![0u16; g.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..g.len() {
                let node = g.node(Id(i as u32));
                let inner = node.args.iter().map(|a| vd[a.index()]).max().unwrap_or(0);
                let v = match node.op {
                    Op::Mu(d) => inner.max(d),
                    Op::Eta(d) => inner.min(d.saturating_sub(1)),
                    _ => inner,
                };
                if v != vd[i] {
                    vd[i] = v;
                    changed = true;
                }
            }
        }
        vd
    }

    proptest! {
        /// Random graphs of μ's, η's and sums over any nodes (arguments
        /// newer than their users too, as substitution makes them): the
        /// depths per cone are those of the rounds.
        #[test]
        fn depths_are_the_least_fixpoint(
            ops in proptest::collection::vec((0u8..4, 0u8..4, any::<u8>(), any::<u8>()), 1..48),
        ) {
            let mut g = Graph::new();
            let p = g.intern(Op::Param(0), Type::Int, Vec::new());
            let mut nodes = vec![p];
            for &(k, d, _, _) in &ops {
                let d = u16::from(d);
                let n = match k {
                    0 => g.open_mu(d, Type::Int, p),
                    1 => g.intern(Op::Eta(d), Type::Int, vec![p, p]),
                    _ => g.intern(Op::Bin(BinaryOp::IAdd), Type::Int, vec![p, Id(nodes.len() as u32)]),
                };
                nodes.push(n);
            }
            for (i, &(_, _, x, y)) in ops.iter().enumerate() {
                let n = nodes[i + 1];
                let (x, y) = (nodes[x as usize % nodes.len()], nodes[y as usize % nodes.len()]);
                g.set_arg(n, 0, x);
                g.set_arg(n, 1, y);
            }
            // Asked in any order (here from the last node down), every
            // node gets its depth by rounds over the whole graph.
            let want = depths_by_rounds(&g);
            let depths = Depths::new(&g);
            let got: Vec<u16> = (0..g.len()).rev().map(|i| depths.of(&g, Id(i as u32))).collect();
            prop_assert_eq!(got.into_iter().rev().collect::<Vec<_>>(), want);
        }
    }
}
