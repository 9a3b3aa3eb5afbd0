//! Two rules on φ's whose branches have a common shape.
//!
//! # R10, nested φ's flatten
//! `φ{G → φ{h_j → v_j}, ..} ↓ φ{G ∧ h_j → v_j, ..}`.
//!
//! **Soundness.** φ selects pointwise (Govereau §4.0.3): at a tick where
//! `G ∧ h_j` holds both sides are `v_j`; where `G` holds and no `h_j` does
//! the inner φ is not observed (the convention of R3 and R9: a φ matters
//! only where one of its gates holds), and no gate of the flattened φ
//! holds either. Gates of one φ stay disjoint (`G_i` disjoint, `h_j`
//! disjoint). Oriented to reduce nesting, so it ends.
//!
//! **Assumption.** The inner gates cover the outer one where the outer φ
//! is observed: `G ⇒ ⋁_j h_j`. Without it, at a tick where `G` holds and
//! no `h_j` does, the original φ is the inner φ's unobserved value while
//! the flattened φ has no true gate. Every φ [`super::build`] makes
//! satisfies it: the gates of a join block's φ are the path conditions of
//! its incoming arcs from the block's immediate dominator, whose
//! disjunction holds wherever the block is reached, and an inner φ (an
//! exit φ of a loop, a φ of a branch nested in another) is reached on
//! every tick its outer branch selects it. Rules keep it: R3 drops only
//! false branches and conjuncts common to every gate, and R8's case split
//! copies a branch with its gates.
//!
//! **When.** Only in a round where nothing else rewrites, R8's case split
//! included (`Rules::flatten`): the case split compares the two branches
//! of a two-way φ (bce's loop versioning), a shape flattening would take
//! away.
//!
//! **Why.** A loop that exits from its body (`is_prime`'s `return false`
//! after a division check) has a token φ per exit kind, nested in the
//! function's return φ. The inner gates of the original and of the
//! unrolled loop differ by facts that only the outer gate implies
//! (`n % d == 0 ∨ n < d²` against `n < d²` under the outer gate's exit
//! test `n < d² ∨ (n % d ≠ 0 ∧ n < (d+2)²)`). Once flattened, each gate
//! is one conjunction and their ROBDDs over exit variables
//! ([`super::gates`]: the exit tests of one loop share their exit
//! variables) are equal, so R3 merges them.
//!
//! # R9, a common operator factors out
//! A pure operator common to every branch of a φ is factored out of
//! it: `φ{g_i → op(.., a_i, ..)} ↓ op(.., φ{g_i → a_i}, ..)` when the
//! branches apply the same operator to the same arguments except at one
//! position (a commutative binary operator may have them in either order).
//!
//! **Soundness.** In the stream semantics of Govereau §4.0.3 a φ selects
//! pointwise and a pure operator is `map`, so at every tick where a gate
//! `g_j` holds both sides are `op(.., a_j, ..)`. The new φ has the old
//! one's gates and is used only by the new operator node, which replaces
//! the old φ: it is observed exactly where the old φ was, under the
//! convention R3 already relies on (a φ matters only where one of its
//! gates holds). Pure operators are total here (traps are effects), so
//! evaluating `op` where no gate holds observes nothing.
//!
//! **Why.** R4 pushes an η inward over pure operators and φ's, so a loop
//! exit computed after the exit (`IAdd(φ{exit₁ → η(i), exit₂ → η(i')}, 1)`
//! in the original, one exit test per copy once doubled by
//! [`super::unroll`]) and the same exit computed in each exiting block of
//! the unrolled loop (`φ{exit₁ → IAdd(η(i), 1), exit₂ → IAdd(η(i'), 1)}`)
//! meet only with the operator on one side of the φ. The rule is oriented
//! to shrink the graph (one operator node for `n`), as the thesis orients
//! its general rules (§2.4).
//!
//! # R12, an operator on constants moves into a φ where it folds
//! `op(φ{g_i → a_i}, k) ↓ φ{g_i → op(a_i, k)}` when the other arguments
//! `k` are constants and some `a_i` is a constant: `op(a_i, k)` folds
//! there (R1, by the interpreter; when an operation would trap the rule
//! does not fire), and is a new node elsewhere. Not on boolean φ's (R3
//! makes them disjunctions).
//!
//! **Soundness.** R9's equation read the other way: at a tick where `g_i`
//! holds both sides are `op(a_i, k)`; where no gate holds the φ is not
//! observed, and pure operators are total (traps are effects), so the
//! operator observes nothing there either. R9 factors only a φ whose
//! every branch applies the operator, and a folded branch is a constant,
//! so R9 and R12 cannot undo each other; each R12 step moves an operator
//! one φ down, so it ends.
//!
//! **Why.** The VSDG round trip moves an operator on a γ's output into
//! the γ's regions, where it folds in a region that gives a constant:
//! `c = x == 0 ? 0 : 1; if c == 0 {..}` becomes a γ with a boolean output
//! `x == 0 ? true : false` that the branch tests, and `(len(a) == 0 ? 0 :
//! a[0]) & 7` becomes `len(a) == 0 ? 0 : a[0] & 7`. The original keeps the
//! operator over the φ (for the comparison, an atom to the gate
//! diagrams, while the other side's `φ{x = 0 → true, x ≠ 0 → false}` is
//! R3's disjunction `x = 0`); moved into the φ, both sides meet.

use super::fold;
use super::graph::{Id, Op};
use super::rules::Rules;
use crate::ir::Type;

/// Most branches R10 makes one φ (larger nests stay nested), counted
/// before any node is made. Large enough for any nest a program spells
/// out (the parser nests at most `MAX_DEPTH` = 256 levels; an `else if`
/// arm with an inner chain of three adds three branches per level), and
/// a bound on the work where φ's share children (a nest of shared φ's
/// flattens to exponentially many branches). It was 16: a 20-level
/// `if .. else { if .. }` nest then stayed nested on one side while the
/// VSDG round trip's code, which returns from each arm, gives the other
/// side one flat φ, and the two never met.
const MAX_FLAT: usize = 1024;

impl Rules<'_> {
    /// R10 on the φ `n` of type `ty` with resolved arguments `a`: the
    /// branches whose value is a φ of the same type are replaced by that
    /// φ's branches, each gate conjoined with the outer one.
    pub(super) fn flatten_phi(&mut self, n: Id, ty: Type, a: &[Id]) -> Option<Id> {
        if !self.flatten || ty == Type::Bool {
            return None;
        }
        // The size first, so a nest too large to flatten makes no nodes.
        let (mut size, mut nested) = (0, false);
        for c in a.chunks(2) {
            let vn = self.g.node(self.r(c[1]));
            if vn.op == Op::Phi && vn.ty == ty && !self.same(c[1], n) {
                nested = true;
                size += vn.args.len() / 2;
            } else {
                size += 1;
            }
        }
        if !nested || size > MAX_FLAT {
            return None;
        }
        let mut out: Vec<(Id, Id)> = Vec::with_capacity(size);
        for c in a.chunks(2) {
            let (g, v) = (self.r(c[0]), self.r(c[1]));
            let vn = self.g.node(v);
            if vn.op != Op::Phi || vn.ty != ty || self.same(v, n) {
                out.push((g, v));
                continue;
            }
            let inner: Vec<Id> = vn.args.iter().map(|&x| self.r(x)).collect();
            for ic in inner.chunks(2) {
                let gate = self.g.and(&[g, ic[0]]);
                out.push((gate, ic[1]));
            }
        }
        Some(self.g.phi(ty, &out))
    }

    /// R12 on the pure operator `op` of type `ty` with resolved
    /// arguments `a`: one of them a φ with a constant branch, the others
    /// constants.
    pub(super) fn fold_into_phi(&mut self, op: &Op, ty: Type, a: &[Id]) -> Option<Id> {
        if !matches!(op, Op::Un(_) | Op::Bin(_)) {
            return None;
        }
        let pos = a
            .iter()
            .position(|&x| self.g.node(x).op == Op::Phi && self.g.node(x).ty != Type::Bool)?;
        let mut ks: Vec<u64> = Vec::with_capacity(a.len());
        for (i, &x) in a.iter().enumerate() {
            ks.push(if i == pos { 0 } else { self.konst(x)? });
        }
        let types: Vec<Type> = a.iter().map(|&x| self.g.node(x).ty).collect();
        let phi = self.g.node(a[pos]).args.clone();
        if !phi.chunks(2).any(|c| self.konst(c[1]).is_some()) {
            return None;
        }
        let mut branches: Vec<(Id, Id)> = Vec::with_capacity(phi.len() / 2);
        for c in phi.chunks(2) {
            let (g, x) = (self.r(c[0]), self.r(c[1]));
            let v = match self.konst(x) {
                Some(k) => {
                    ks[pos] = k;
                    let v = match op {
                        Op::Un(u) => fold::unary(*u, types[0], ks[0])?,
                        Op::Bin(b) => fold::binary(*b, types[0], types[1], ks[0], ks[1])?,
                        _ => return None,
                    };
                    self.g.konst(ty, v)
                }
                None => {
                    let mut args: Vec<Id> = a.to_vec();
                    args[pos] = x;
                    self.g.intern(op.clone(), ty, args)
                }
            };
            branches.push((g, v));
        }
        Some(self.g.phi(ty, &branches))
    }

    /// R9 on a φ of type `ty` with resolved arguments `a`
    /// (`gate, value` pairs).
    pub(super) fn factor_phi(&mut self, ty: Type, a: &[Id]) -> Option<Id> {
        if ty == Type::Bool || a.len() < 4 {
            return None;
        }
        let vals: Vec<Id> = a.chunks(2).map(|c| self.r(c[1])).collect();
        let first = self.g.node(vals[0]).clone();
        if !matches!(
            first.op,
            Op::Un(_) | Op::Bin(_) | Op::StrLen | Op::StrCmp(_)
        ) {
            return None;
        }
        let arity = first.args.len();
        let swaps = first.op.commutative() && arity == 2;
        // The arguments of each branch, resolved, and its swapped order.
        let mut rows: Vec<Vec<Id>> = Vec::with_capacity(vals.len());
        for &v in &vals {
            let node = self.g.node(v);
            if node.op != first.op || node.ty != first.ty || node.args.len() != arity {
                return None;
            }
            rows.push(node.args.iter().map(|&x| self.r(x)).collect());
        }
        'position: for p in 0..arity {
            let mut picked: Vec<Id> = Vec::with_capacity(rows.len());
            for row in &rows {
                let fits = |r: &[Id]| (0..arity).all(|i| i == p || r[i] == rows[0][i]);
                if fits(row) {
                    picked.push(row[p]);
                } else if swaps && fits(&[row[1], row[0]]) {
                    picked.push(row[1 - p]);
                } else {
                    continue 'position;
                }
            }
            let inner_ty = self.g.node(picked[0]).ty;
            if inner_ty == Type::Bool || picked.iter().any(|&x| self.g.node(x).ty != inner_ty) {
                return None;
            }
            let branches: Vec<(Id, Id)> = a
                .chunks(2)
                .zip(&picked)
                .map(|(c, &x)| (self.r(c[0]), x))
                .collect();
            let phi = self.g.phi(inner_ty, &branches);
            let mut args = rows[0].clone();
            args[p] = phi;
            return Some(self.g.intern(first.op.clone(), first.ty, args));
        }
        None
    }
}
