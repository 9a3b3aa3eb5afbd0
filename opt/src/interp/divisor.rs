//! Constant divisors of the interpreter's [`super::code::Op::IDivMagic`]
//! and [`super::code::Op::IRemMagic`]: a division by a constant is a
//! multiplication by its [`crate::magic`] number, without `idiv` (the
//! suite's `collatz` and `shortcircuit` divide by constants in their hot
//! loops).

use crate::magic::{magic, Magic};

/// A divisor `d` (`|d| >= 2`) with its magic numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConstDivisor {
    /// The divisor.
    d: i64,
    /// Its magic multiplier and shift.
    magic: Magic,
    /// [`Magic::fix`] of `d`.
    fix: i64,
}

impl ConstDivisor {
    /// The divisor `d`; `None` for `-1, 0, 1` (0 traps, and `MIN / -1`
    /// must wrap, which the divide handles).
    pub(crate) fn new(d: i64) -> Option<ConstDivisor> {
        let magic = magic(d)?;
        Some(ConstDivisor {
            d,
            magic,
            fix: magic.fix(d),
        })
    }

    /// `x / d`, truncating toward zero.
    #[inline(always)]
    pub(crate) fn div(&self, x: i64) -> i64 {
        self.magic.quotient(x, self.fix)
    }

    /// `x % d`, with the sign of `x`.
    #[inline(always)]
    pub(crate) fn rem(&self, x: i64) -> i64 {
        x.wrapping_sub(self.div(x).wrapping_mul(self.d))
    }
}

#[cfg(test)]
mod tests {
    use super::ConstDivisor;

    #[test]
    fn quotients_and_remainders_match_the_divide_instruction() {
        let mut xs = vec![i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX, i64::MAX - 1];
        let mut r: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r
        };
        for _ in 0..3000 {
            let v = next();
            xs.push(v as i64 >> (v % 64));
        }
        let mut ds: Vec<i64> = (2..300).chain([1009, 1_000_000_007, i64::MAX]).collect();
        for _ in 0..300 {
            let v = next();
            ds.push(v as i64 >> (v % 63));
        }
        ds.extend(ds.clone().iter().map(|d| -d));
        ds.push(i64::MIN);
        for &d in &ds {
            let Some(c) = ConstDivisor::new(d) else {
                assert!((-1..=1).contains(&d), "{d} has no magic");
                continue;
            };
            for &x in xs
                .iter()
                .chain(&[d, d.wrapping_sub(1), d.wrapping_add(1), d.wrapping_mul(7)])
            {
                assert_eq!(c.div(x), x.wrapping_div(d), "{x} / {d}");
                assert_eq!(c.rem(x), x.wrapping_rem(d), "{x} % {d}");
            }
        }
    }
}
