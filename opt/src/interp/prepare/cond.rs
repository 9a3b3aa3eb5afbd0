//! Branch conditions and their compare-and-branch ops.

use crate::interp::code::{Op, Slot, Target};
use crate::ir::Cmp;

/// A condition a conditional branch tests.
#[derive(Copy, Clone, Debug)]
pub(super) enum Cond {
    /// `c` (a bool word) is `want`.
    Bool { c: Slot, want: bool },
    /// Signed int comparison of two slots.
    Int { cc: Cmp, a: Slot, b: Slot },
    /// Signed int comparison with an immediate.
    IntImm { cc: Cmp, a: Slot, imm: i32 },
    /// `a & mask` is zero (`zero`) or not (`!zero`); `mask` sign-extended.
    Mask { a: Slot, mask: i32, zero: bool },
    /// IEEE comparison, negated when `neg` (so NaN makes it true).
    Float {
        cc: Cmp,
        a: Slot,
        b: Slot,
        neg: bool,
    },
}

/// The comparison that holds exactly when `cc` does not (integers).
fn negate(cc: Cmp) -> Cmp {
    match cc {
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Le => Cmp::Gt,
        Cmp::Gt => Cmp::Le,
    }
}

/// The comparison with its operands swapped: `a cc b` ⇔ `b swap(cc) a`.
pub(super) fn swap(cc: Cmp) -> Cmp {
    match cc {
        Cmp::Eq => Cmp::Eq,
        Cmp::Ne => Cmp::Ne,
        Cmp::Lt => Cmp::Gt,
        Cmp::Gt => Cmp::Lt,
        Cmp::Le => Cmp::Ge,
        Cmp::Ge => Cmp::Le,
    }
}

impl Cond {
    /// The condition that holds exactly when `self` does not.
    pub(super) fn not(self) -> Cond {
        match self {
            Cond::Bool { c, want } => Cond::Bool { c, want: !want },
            Cond::Int { cc, a, b } => Cond::Int {
                cc: negate(cc),
                a,
                b,
            },
            Cond::IntImm { cc, a, imm } => Cond::IntImm {
                cc: negate(cc),
                a,
                imm,
            },
            Cond::Mask { a, mask, zero } => Cond::Mask {
                a,
                mask,
                zero: !zero,
            },
            Cond::Float { cc, a, b, neg } => Cond::Float {
                cc,
                a,
                b,
                neg: !neg,
            },
        }
    }

    /// The op jumping to `t` when the condition holds (falling through otherwise).
    pub(super) fn branch(self, t: Target) -> Op {
        match self {
            Cond::Bool { c, want: true } => Op::BrTrue { c, t },
            Cond::Bool { c, want: false } => Op::BrFalse { c, t },
            Cond::Int { cc, a, b } => match cc {
                Cmp::Eq => Op::BrIEq { a, b, t },
                Cmp::Ne => Op::BrINe { a, b, t },
                Cmp::Lt => Op::BrILt { a, b, t },
                Cmp::Le => Op::BrILe { a, b, t },
                Cmp::Gt => Op::BrILt { a: b, b: a, t },
                Cmp::Ge => Op::BrILe { a: b, b: a, t },
            },
            Cond::IntImm { cc, a, imm } => match cc {
                Cmp::Eq => Op::BrIEqImm { a, imm, t },
                Cmp::Ne => Op::BrINeImm { a, imm, t },
                Cmp::Lt => Op::BrILtImm { a, imm, t },
                Cmp::Le => Op::BrILeImm { a, imm, t },
                Cmp::Gt => Op::BrIGtImm { a, imm, t },
                Cmp::Ge => Op::BrIGeImm { a, imm, t },
            },
            Cond::Mask {
                a,
                mask,
                zero: true,
            } => Op::BrMaskZero { a, mask, t },
            Cond::Mask {
                a,
                mask,
                zero: false,
            } => Op::BrMaskNonZero { a, mask, t },
            Cond::Float { cc, a, b, neg } => match (cc, neg) {
                (Cmp::Eq, false) | (Cmp::Ne, true) => Op::BrFEq { a, b, t },
                (Cmp::Ne, false) | (Cmp::Eq, true) => Op::BrFNe { a, b, t },
                (Cmp::Lt, false) => Op::BrFLt { a, b, t },
                (Cmp::Lt, true) => Op::BrFNLt { a, b, t },
                (Cmp::Le, false) => Op::BrFLe { a, b, t },
                (Cmp::Le, true) => Op::BrFNLe { a, b, t },
                (Cmp::Gt, false) => Op::BrFLt { a: b, b: a, t },
                (Cmp::Gt, true) => Op::BrFNLt { a: b, b: a, t },
                (Cmp::Ge, false) => Op::BrFLe { a: b, b: a, t },
                (Cmp::Ge, true) => Op::BrFNLe { a: b, b: a, t },
            },
        }
    }
}
