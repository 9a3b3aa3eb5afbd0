//! R9, a pure operator common to every branch of a φ is factored out of
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

use super::graph::{Id, Op};
use super::rules::Rules;
use crate::ir::Type;

impl Rules<'_> {
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
