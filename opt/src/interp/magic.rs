//! Division by a constant without a divide instruction, for the
//! interpreter's [`super::code::Op::IDivMagic`] and
//! [`super::code::Op::IRemMagic`]: the quotient is the high half of a
//! multiplication by a "magic" reciprocal, shifted and corrected toward
//! zero (Granlund and Montgomery, "Division by invariant integers using
//! multiplication", PLDI 1994; the signed algorithm as in Warren,
//! *Hacker's Delight* §10-1 and §10-3). A 64-bit `idiv` costs several times
//! the few multiply, add and shift instructions it takes, and `x % 3`,
//! `x % 1009` are common in Waddle's loops (the suite's `shortcircuit`).

/// A divisor `d` (`|d| >= 2`) with its magic multiplier and shift.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Magic {
    /// The divisor.
    pub d: i64,
    /// The multiplier `M`: `q = (mulhs(M, x) + fix·x) >> shift`, then
    /// rounded toward zero.
    pub m: i64,
    /// The multiplier's correction: `1` when `d > 0` and `M < 0`, `-1`
    /// when `d < 0` and `M > 0`, else 0 (Hacker's Delight §10-3).
    pub fix: i64,
    /// The shift after the multiplication.
    pub shift: u32,
}

impl Magic {
    /// The magic numbers of divisor `d`; `None` for `|d| < 2` (0 traps,
    /// ±1 is cheaper as it is, and `MIN / -1` must wrap), and for
    /// `i64::MIN`.
    pub(crate) fn new(d: i64) -> Option<Magic> {
        if d.unsigned_abs() < 2 || d == i64::MIN {
            return None;
        }
        // Hacker's Delight, Figure 10-1 ("magic"), for 64-bit words.
        const TWO63: u64 = 1 << 63;
        let ad = d.unsigned_abs();
        let t = TWO63 + ((d as u64) >> 63);
        let anc = t - 1 - t % ad;
        let mut p = 63u32;
        let (mut q1, mut r1) = (TWO63 / anc, TWO63 % anc);
        let (mut q2, mut r2) = (TWO63 / ad, TWO63 % ad);
        loop {
            p += 1;
            q1 = q1.wrapping_mul(2);
            r1 = r1.wrapping_mul(2);
            if r1 >= anc {
                q1 = q1.wrapping_add(1);
                r1 = r1.wrapping_sub(anc);
            }
            q2 = q2.wrapping_mul(2);
            r2 = r2.wrapping_mul(2);
            if r2 >= ad {
                q2 = q2.wrapping_add(1);
                r2 = r2.wrapping_sub(ad);
            }
            let delta = ad - r2;
            if !(q1 < delta || (q1 == delta && r1 == 0)) {
                break;
            }
        }
        let m = q2.wrapping_add(1) as i64;
        let m = if d < 0 { m.wrapping_neg() } else { m };
        let fix = match (d > 0, m < 0) {
            (true, true) => 1,
            (false, false) => -1,
            _ => 0,
        };
        Some(Magic {
            d,
            m,
            fix,
            shift: p - 64,
        })
    }

    /// `x / d`, truncating toward zero.
    #[inline(always)]
    pub(crate) fn div(&self, x: i64) -> i64 {
        let hi = ((i128::from(self.m) * i128::from(x)) >> 64) as i64;
        let q = hi.wrapping_add(self.fix.wrapping_mul(x)) >> self.shift;
        q.wrapping_add((q as u64 >> 63) as i64)
    }

    /// `x % d`, with the sign of `x`.
    #[inline(always)]
    pub(crate) fn rem(&self, x: i64) -> i64 {
        x.wrapping_sub(self.div(x).wrapping_mul(self.d))
    }
}

#[cfg(test)]
mod tests {
    use super::Magic;

    #[test]
    fn magic_division_matches_the_divide_instruction() {
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
        let mut ds: Vec<i64> = (2..300)
            .chain([1009, 1_000_000_007, i32::MAX as i64])
            .collect();
        for _ in 0..300 {
            let v = next();
            ds.push(v as i64 >> (v % 63));
        }
        ds.extend(ds.clone().iter().map(|d| -d));
        ds.push(i64::MIN + 1);
        for &d in &ds {
            let Some(m) = Magic::new(d) else {
                assert!(d.unsigned_abs() < 2, "{d} has no magic");
                continue;
            };
            for &x in xs.iter().chain(&[d, d - 1, d + 1, d.wrapping_mul(7)]) {
                assert_eq!(m.div(x), x.wrapping_div(d), "{x} / {d}");
                assert_eq!(m.rem(x), x.wrapping_rem(d), "{x} % {d}");
            }
        }
    }
}
