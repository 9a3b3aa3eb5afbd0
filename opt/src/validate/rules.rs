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
//! | R13 | a μ of an operator becomes the operator on existing μ's: `μ_d(op(a₀, k), op(a', k)) ↓ op(μ_d(a₀, a'), k)` (`carry`) | §2.3.3, §4.0.3 (`map` pointwise) |
//!
//! In strict-termination mode (digest §5.2) R4's μ and η rules do not
//! fire on tokens, so deleting a loop that might not terminate alarms.
//!
//! This module holds the dispatch ([`Rules::apply`]), arithmetic (R1, R2,
//! R7) and R3 on φ; R3's gate algebra is in [`super::junction`], R4 on
//! loops in [`super::loops`], R6 and the loop side of R5 in
//! [`super::checks`].

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::fold;
use super::gates::Gates;
use super::graph::{EffKind, Graph, Id, LoadKind, Op};
use super::range::Strip;
use super::refine::Classes;
use crate::ir::{BinaryOp, Cmp, Type};

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
    pub(super) peeled: FxHashMap<(Id, u16), Option<Id>>,
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
    /// The round's μ's by (depth, next value's class), for R13
    /// (`carry`), computed at its first use.
    pub(super) mus: Option<super::carry::MuByNext>,
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
            mus: None,
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

    pub(super) fn boolean(&self, id: Id) -> Option<bool> {
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
            Op::Mu(d) => {
                let tok_ok = !(self.strict && ty == Type::Unit);
                (tok_ok && (self.same(a[1], n) || self.same(a[1], a[0])))
                    .then_some(a[0])
                    .or_else(|| self.strip_checks(n))
                    .or_else(|| self.uncarry(n, *d, ty, &a))
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
        let common = super::junction::common_conjuncts(&sets);
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

    /// Applies the rules to a node built during this round (whose
    /// arguments are already simplified) until none applies.
    pub(super) fn settle(&mut self, mut x: Id) -> Id {
        for _ in 0..8 {
            match self.apply(x) {
                Some(y) if y != x => x = y,
                _ => break,
            }
        }
        x
    }
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
