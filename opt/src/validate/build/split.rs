//! Gates over the threaded CFG: a φ entering a block along an edge that
//! tests a φ with the same gates is split by that test.
//!
//! A short-circuit `a && b` joins in a block `j(c)` that only switches on
//! `c = φ{¬a → false, a → b}`; an unfolded call (`super::super::unfold`)
//! returns `r = φ{g_i → r_i}` with its final token `φ{g_i → t_i}` over
//! the same gates, and the caller branches on `r`. Govereau's gating
//! (§2.3.2, §6.2 Def. 12) hands `j`'s successor `s` the φ built at `j` as
//! it is: the else block of `a && b` runs on `φ{¬a → t₁, a → t₂}`. Once
//! `jt` threads the join (Fritz §9.3), or the call is inlined and its
//! return join threaded, the else block is itself a join with the gates
//! `φ{¬a → t₁, a ∧ ¬b → t₂}`. Both are right where the block runs, but
//! no rule turns one into the other inside a loop, where the φ's sit in
//! the μ cycles that refinement matches only once everything on them
//! does (vcov3's shape 3, session 12).
//!
//! So the builder gives the value the threaded CFG's gates: a value
//! `v = φ{g_i → v_i}` entering a block `s` along its only arc, an edge
//! `p → s` whose condition `e` tests `c` with `c`'s node `φ{g_i → c_i}`
//! over the same gates, becomes
//!
//! `φ{g_i ∧ e[c := c_i] → v_i}`
//!
//! **Soundness.** The new φ is read only where `s` runs (by `s`'s
//! instructions and terminator, by the blocks `s` dominates, and by the
//! φ branches, μ next values and η exit values whose gates or conditions
//! pass through `s`), so only where the edge was taken in that tick. There
//! `e` holds; `p` ran, so the φ `c` it tests has exactly one gate `g_i`
//! true (every φ the builder makes has, wherever it is read), and `c` *is*
//! `c_i`, so `e[c := c_i]` holds too, while every other branch's gate is
//! false. The new φ selects `v_i`, as `v` does. Gates stay disjoint (each
//! is a `g_i` narrowed). Only the syntax of the gates changes, to the one
//! the threaded CFG has. Applying the split to the arcs of joins and
//! loop exits as well was tried: no function more on 100 generated
//! programs, one less.

use super::Builder;
use crate::ir::Terminator;
use crate::ir::Type;
use crate::validate::cfg::{Edge, RNode};
use crate::validate::graph::{Id, Op};

impl Builder<'_> {
    /// `v`, entering along `edge` out of `src`, split by the edge's test
    /// (see the module doc); `v` itself when the test is on no φ with
    /// `v`'s gates.
    pub(super) fn split_phi(
        &mut self,
        src: RNode,
        edge: Edge,
        v: Id,
        ty: Type,
    ) -> Result<Id, String> {
        let RNode::Block(p) = src else {
            return Ok(v);
        };
        let Terminator::Switch { value: Some(c), .. } = self.f.blocks[p].term else {
            return Ok(v);
        };
        let cv = self.val(c)?;
        let (xv, xc) = (self.g.node(v), self.g.node(cv));
        if xv.op != Op::Phi || xc.op != Op::Phi || xv.args.len() != xc.args.len() {
            return Ok(v);
        }
        if !(xv.args.iter().step_by(2)).eq(xc.args.iter().step_by(2)) {
            return Ok(v);
        }
        let (va, ca) = (xv.args.clone(), xc.args.clone());
        let mut branches = Vec::with_capacity(va.len() / 2);
        for (bv, bc) in va.chunks(2).zip(ca.chunks(2)) {
            let e = self.switch_cond(edge, c, bc[1])?;
            branches.push((self.g.and(&[bv[0], e]), bv[1]));
        }
        Ok(self.g.phi(ty, &branches))
    }
}
