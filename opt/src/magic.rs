//! Signed division by a constant through multiplication by a "magic"
//! number (Hacker's Delight, 2nd ed., §10-1 and §10-3, Granlund &
//! Montgomery 1994): `n / d == mulhs(n, M) (+/- n) >> s`, rounded toward
//! zero, for any `d` outside `{-1, 0, 1}`. A 64-bit divide instruction
//! costs several times the multiply, add and shifts; the interpreter
//! ([`crate::interp`]) and the baseline JIT use this, Cranelift does its
//! own.

/// The magic multiplier and shift of a divisor `d` with `|d| >= 2`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Magic {
    /// Multiplier `M` (as a signed 64-bit number).
    pub mul: i64,
    /// Arithmetic right shift `s` of the high product.
    pub shift: u32,
}

/// Computes the magic number of `d` (Hacker's Delight Fig. 10-1, 64-bit).
pub fn magic(d: i64) -> Option<Magic> {
    if (-1..=1).contains(&d) {
        return None;
    }
    let two63: u64 = 1 << 63;
    let ad = d.unsigned_abs();
    let t = two63.wrapping_add((d as u64) >> 63);
    let anc = t - 1 - t % ad;
    let mut p: u32 = 63;
    let mut q1 = two63 / anc;
    let mut r1 = two63 - q1 * anc;
    let mut q2 = two63 / ad;
    let mut r2 = two63 - q2 * ad;
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
    Some(Magic {
        mul: if d < 0 { m.wrapping_neg() } else { m },
        shift: p - 64,
    })
}

impl Magic {
    /// How the high product is corrected by the dividend for divisor `d`
    /// (Hacker's Delight §10-3): `1` (add it) when `d > 0` and the
    /// multiplier is negative, `-1` (subtract it) when `d < 0` and the
    /// multiplier is positive, else 0.
    pub fn fix(self, d: i64) -> i64 {
        if d > 0 && self.mul < 0 {
            1
        } else if d < 0 && self.mul > 0 {
            -1
        } else {
            0
        }
    }

    /// The quotient `n / d` (truncated, wrapping like `wrapping_div`) as
    /// the emitted code computes it, given `fix` = [`Magic::fix`] of `d`.
    #[inline(always)]
    pub fn quotient(self, n: i64, fix: i64) -> i64 {
        let hi = ((i128::from(n) * i128::from(self.mul)) >> 64) as i64;
        let q = hi.wrapping_add(fix.wrapping_mul(n)) >> self.shift;
        q.wrapping_add(((q as u64) >> 63) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotients_match_division() {
        let mut divisors = vec![2, 3, 5, 6, 7, 10, 11, 12, 25, 60, 100, 125, 641, 1000];
        divisors.extend([1 << 20, (1 << 40) + 3, i64::MAX, i64::MAX - 1, 1 << 62]);
        let neg: Vec<i64> = divisors.iter().map(|d| -d).collect();
        divisors.extend(neg);
        divisors.push(i64::MIN);
        let mut nums = vec![
            0,
            1,
            -1,
            2,
            -2,
            6,
            -6,
            7,
            -7,
            13,
            99,
            -99,
            i64::MAX,
            i64::MIN,
        ];
        nums.extend([
            i64::MIN + 1,
            i64::MAX - 1,
            1 << 40,
            -(1 << 40),
            123_456_789_012,
        ]);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            nums.push(x as i64);
            nums.push((x as i64) >> (x % 60));
        }
        for &d in &divisors {
            let m = magic(d).unwrap();
            for &n in &nums {
                assert_eq!(
                    m.quotient(n, m.fix(d)),
                    n.wrapping_div(d),
                    "{n} / {d} with {m:?}"
                );
            }
        }
        assert_eq!(magic(1), None);
        assert_eq!(magic(-1), None);
        assert_eq!(magic(0), None);
    }
}
