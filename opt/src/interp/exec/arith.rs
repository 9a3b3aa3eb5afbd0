//! Scalar semantics shared by the dispatch loop: float min/max with signed
//! zeros, one-operand operations.

use crate::interp::code::UnKind;

/// The float with IEEE bits `w`.
#[inline(always)]
pub(super) fn f(w: u64) -> f64 {
    f64::from_bits(w)
}

/// `f64::min` with `min(-0.0, 0.0) = -0.0` (docs/language.md "Built-in functions"): a NaN
/// operand yields the other operand.
pub(super) fn fmin(a: f64, b: f64) -> f64 {
    if a == b {
        // Equal: identical bits, or zeros of either sign (negative wins).
        f64::from_bits(a.to_bits() | b.to_bits())
    } else {
        a.min(b)
    }
}

/// `f64::max` with `max(-0.0, 0.0) = 0.0` (docs/language.md "Built-in functions").
pub(super) fn fmax(a: f64, b: f64) -> f64 {
    if a == b {
        f64::from_bits(a.to_bits() & b.to_bits())
    } else {
        a.max(b)
    }
}

/// A one-operand operation on a word.
#[inline(always)]
pub(super) fn unary(kind: UnKind, x: u64) -> u64 {
    match kind {
        UnKind::INeg => (x as i64).wrapping_neg() as u64,
        UnKind::FNeg => (-f(x)).to_bits(),
        UnKind::BNot => x ^ 1,
        UnKind::IToF => (x as i64 as f64).to_bits(),
        // `as` truncates toward zero, saturates, and maps NaN to 0.
        UnKind::FToI => f(x) as i64 as u64,
        UnKind::IAbs => (x as i64).wrapping_abs() as u64,
        UnKind::FAbs => f(x).abs().to_bits(),
        UnKind::FSqrt => f(x).sqrt().to_bits(),
        // IEEE floor/ceil keep the sign of zero.
        UnKind::FFloor => f(x).floor().to_bits(),
        UnKind::FCeil => f(x).ceil().to_bits(),
        UnKind::FSin => f(x).sin().to_bits(),
        UnKind::FCos => f(x).cos().to_bits(),
        UnKind::FTan => f(x).tan().to_bits(),
        UnKind::FExp => f(x).exp().to_bits(),
        UnKind::FLog => f(x).ln().to_bits(),
    }
}
