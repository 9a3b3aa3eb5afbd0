//! R6 (digest R6) and the loop side of R5: a check that passed earlier on
//! the token chain passes again, and whether the effects on a loop's token
//! cycle may change what a load reads or an array's length. The rule table
//! is in [`super::rules`].

use super::graph::{EffKind, Id, LoadKind, Op};
use super::rules::Rules;

impl Rules<'_> {
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
    pub(super) fn cycle_all(&self, mu: Id, d: u16, ok: impl Fn(EffKind, &[Id]) -> bool) -> bool {
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
    pub(super) fn check_passes(&mut self, e: Id) -> Option<Id> {
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
    pub(super) fn passed_before(&self, k: EffKind, key: &[Id], tok: Id) -> bool {
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

    /// Whether an effect on the token cycle of the depth-`d` loop whose
    /// token is `mu` may change an array's length (or do anything).
    pub(super) fn cycle_resizes(&self, mu: Id, d: u16) -> bool {
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
