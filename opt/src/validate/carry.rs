//! R13, a μ of an operator becomes the operator on μ's: the rule that
//! validates the `carry` pass (a value the loop body computes for the next
//! iteration, carried there as a new header parameter).
//!
//! `μ_d(I, op(n_1, .., n_k)) ↓ op(m_1, .., m_k)` where each `m_j` is an
//! existing `μ_d(x_j, n_j)` (found by its next value `n_j`, up to the
//! current classes) or, when `n_j` is invariant at depth `d`, `n_j`
//! itself (`x_j = n_j`), and the init `I` equals `op(x_1, .., x_k)`
//! (folded when the `x_j` are constants, else the same class).
//!
//! **Soundness.** A μ of depth `d` is the stream whose element 0 is its
//! init and whose element `t + 1` is element `t` of its next (Govereau
//! §2.3.3, §4.0.3); a pure operator is `map` over its arguments' streams
//! (pointwise), and an invariant node is the same element at every tick of
//! the loop. Element 0 of `op(m_1, .., m_k)` is `op(x_1, .., x_k) = I`,
//! and element `t + 1` is `op(n_1[t], .., n_k[t])`, element `t` of the
//! μ's next: both sides are the same stream. Pure operators are total
//! (traps are effects). The `m_j` belong to the μ's own loop: `n_j`
//! varies in it, and a value leaves its loop only through an η.
//!
//! **Termination.** Each step replaces a μ by an operator over other,
//! existing μ's and creates none, so the number of μ's reached falls.
//!
//! **Why.** `carry` turns `zr * zr` at the top of mandelbrot's loop into a
//! header parameter `q = μ(zr₀ * zr₀, tr * tr)`, where `tr` is the value
//! the back edge passes as `zr = μ(zr₀, tr)`. The rule turns `q` back into
//! `zr * zr`, the original's node; read the other way (`op(μ, ..)` into a
//! μ) it would have to run before R4 pushes the loop's exit η's into
//! `zr * zr` on the original side, where a μ no longer meets them.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::fold;
use super::graph::{Id, Op};
use super::rules::Rules;
use crate::ir::Type;

/// The μ's of the round by (depth, next value's class): the first found.
pub(super) type MuByNext = FxHashMap<(u16, Id), Id>;

impl Rules<'_> {
    /// R13 on the μ `n` of depth `d` and type `ty` with resolved arguments
    /// `a` (init, next).
    pub(super) fn uncarry(&mut self, n: Id, d: u16, ty: Type, a: &[Id]) -> Option<Id> {
        let next = self.g.node(a[1]);
        if !matches!(next.op, Op::Un(_) | Op::Bin(_)) {
            return None;
        }
        let op = next.op.clone();
        let ns: SmallVec<[Id; 2]> = next.args.iter().map(|&x| self.r(x)).collect();
        self.index_mus();
        let by_next = self.mus.as_ref().expect("indexed");
        let found: SmallVec<[Option<Id>; 2]> = ns
            .iter()
            .map(|&nj| by_next.get(&(d, nj)).copied())
            .collect();
        let mut ms: SmallVec<[Id; 2]> = SmallVec::new();
        let mut xs: SmallVec<[Id; 2]> = SmallVec::new();
        let mut found_mu = false;
        for (&nj, m) in ns.iter().zip(found) {
            if let Some(m) = m {
                if self.same(m, n) {
                    return None;
                }
                found_mu = true;
                ms.push(m);
                xs.push(self.r(self.g.node(m).args[0]));
            } else if self.depth_of(nj) < d {
                ms.push(nj);
                xs.push(nj);
            } else {
                return None;
            }
        }
        if !found_mu {
            return None;
        }
        // The init is the operation on the μ's inits.
        let ks: Option<SmallVec<[u64; 2]>> = xs.iter().map(|&x| self.konst(x)).collect();
        let init_ok = match (ks, self.konst(a[0])) {
            (Some(ks), Some(i)) => {
                let t0 = self.g.node(xs[0]).ty;
                let folded = match &op {
                    Op::Un(u) => fold::unary(*u, t0, ks[0]),
                    Op::Bin(b) => {
                        let t1 = self.g.node(xs[1]).ty;
                        fold::binary(*b, t0, t1, ks[0], ks[1])
                    }
                    _ => None,
                };
                folded == Some(i)
            }
            _ => {
                let first = self.g.intern(op.clone(), ty, &xs[..]);
                self.same(first, a[0])
            }
        };
        init_ok.then(|| self.g.intern(op, ty, &ms[..]))
    }

    /// Computes the round's μ's by (depth, next value's class)
    /// ([`Rules::mus`]) at the first use in the round.
    fn index_mus(&mut self) {
        if self.mus.is_none() {
            let mut map = MuByNext::default();
            for &m in &self.cls.reached {
                if self.r(m) != m {
                    continue;
                }
                if let Op::Mu(d) = self.g.node(m).op {
                    let next = self.r(self.g.node(m).args[1]);
                    map.entry((d, next)).or_insert(m);
                }
            }
            self.mus = Some(map);
        }
    }
}
