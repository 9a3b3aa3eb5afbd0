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

/// `x / 2^k` truncating toward zero (`1 <= k <= 62`), as `wrapping_div`
/// gives it: an arithmetic shift of `x` biased by `2^k - 1` when negative.
#[inline(always)]
pub(crate) fn div_pow2(x: i64, k: u32) -> i64 {
    let bias = ((x >> 63) as u64 >> (64 - k)) as i64;
    x.wrapping_add(bias) >> k
}

/// `x % 2^k` with the sign of `x` (`1 <= k <= 62`), as `wrapping_rem`
/// gives it.
#[inline(always)]
pub(crate) fn rem_pow2(x: i64, k: u32) -> i64 {
    x.wrapping_sub(div_pow2(x, k) << k)
}

#[cfg(test)]
mod tests {
    use super::{div_pow2, rem_pow2};

    #[test]
    fn division_by_a_power_of_two_matches_the_divide_instruction() {
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            -9,
            -8,
            -7,
            -2,
            -1,
            0,
            1,
            2,
            7,
            8,
            9,
            i64::MAX,
        ];
        let mut xs: Vec<i64> = edges.to_vec();
        let mut r: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            xs.push(r as i64 >> (r % 64));
        }
        for k in 1..=62 {
            let d = 1i64 << k;
            for &x in &xs {
                assert_eq!(div_pow2(x, k), x.wrapping_div(d), "{x} / 2^{k}");
                assert_eq!(rem_pow2(x, k), x.wrapping_rem(d), "{x} % 2^{k}");
            }
        }
    }
}
