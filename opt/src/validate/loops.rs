//! R4 on loops (Govereau rules 2.7–2.9, §2.4.2 steps 3–4): η-invariance,
//! values pulled out of a loop's exit (`η` of an operator), and the
//! first-iteration peel `η_d(c, v) ↓ v₀` when `c₀` is false. The rule table
//! is in [`super::rules`].

use super::bdd::{FALSE, TRUE};
use super::graph::{Args, Id, Op};
use super::rules::Rules;
use crate::ir::Type;

impl Rules<'_> {
    /// R4 on η.
    pub(super) fn eta(&mut self, d: u16, ty: Type, c: Id, v: Id) -> Option<Id> {
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
    pub(super) fn pull_exit(&mut self, op: &Op, a: &[Id]) -> Option<Id> {
        let (d, c) = a.iter().find_map(|&x| self.find_exit(x, 4))?;
        let mut args = Vec::with_capacity(a.len());
        for &x in a {
            args.push(self.unexit(x, d, c, 8)?);
        }
        let inner = self.g.intern(op.clone(), Type::Bool, args);
        Some(self.g.intern(Op::Eta(d), Type::Bool, vec![c, inner]))
    }

    /// An η of a value at the leaves of the pure expression `x`.
    pub(super) fn find_exit(&self, x: Id, fuel: u8) -> Option<(u16, Id)> {
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
    pub(super) fn unexit(&mut self, x: Id, d: u16, c: Id, fuel: u8) -> Option<Id> {
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
    pub(super) fn peel(&mut self, x: Id, d: u16) -> Option<Id> {
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
}
