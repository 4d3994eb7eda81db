//! Double-double ("double-word") numbers: an unevaluated sum hi + lo of two f64 with |lo| ≤ ulp(hi)/2,
//! about 106 bits of precision at the speed of a few f64 operations.
//!
//! The building blocks and their error bounds are those of Joldes, Muller and Popescu, *Tight and rigorous
//! error bounds for basic building blocks of double-word arithmetic*, ACM TOMS 44(2), 2017 (u = 2^-53):
//! `two_sum` (Knuth) and `two_prod` (with a fused multiply-add) are exact; `fast_two_sum` is exact when
//! |a| ≥ |b|; `add` is their Algorithm 6 (AccurateDWPlusDW), relative error ≤ 3u²/(1 − 4u) ≤ 2^-104.4.
//! The lattice engine (`pld::fixed`) accumulates products with its own compensated scheme whose bound is
//! proved there. Every bound assumes no underflow: callers keep their values above a floor.

use rug::Float;

/// u = 2^-53, the unit roundoff of f64.
pub const U: f64 = f64::EPSILON / 2.0;

/// A double-double hi + lo.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DD {
    pub hi: f64,
    pub lo: f64,
}

/// s + e = a + b exactly, s = fl(a + b) (Knuth's TwoSum, 6 flops).
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// s + e = a + b exactly when |a| ≥ |b| (Dekker's FastTwoSum, 3 flops).
#[inline(always)]
pub fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// p + e = a·b exactly, p = fl(a·b) (TwoProd with a fused multiply-add), barring underflow.
#[inline(always)]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

impl DD {
    pub const ZERO: DD = DD { hi: 0.0, lo: 0.0 };

    /// The double-double nearest-ish to an MPFR value: hi = fl(x), lo = fl(x − hi); relative error
    /// ≤ u²(1 + u) ≤ 2^-105.9 (x − hi is exact in MPFR at the precision used, then rounded once).
    pub fn from_float(x: &Float) -> DD {
        let hi = x.to_f64();
        let r = Float::with_val(x.prec().max(128) + 64, x - hi);
        DD { hi, lo: r.to_f64() }
    }

    /// Exact value as an MPFR number (hi + lo needs at most 107 bits plus the exponent gap, which the
    /// normalisation keeps ≤ 53 + 1 bits: 128 bits hold it exactly).
    pub fn to_float(&self) -> Float {
        Float::with_val(128, self.hi) + self.lo
    }

    /// x + y, Algorithm 6 of Joldes–Muller–Popescu (AccurateDWPlusDW): relative error ≤ 3u²/(1 − 4u).
    #[inline(always)]
    pub fn add(self, y: DD) -> DD {
        let (sh, sl) = two_sum(self.hi, y.hi);
        let (th, tl) = two_sum(self.lo, y.lo);
        let c = sl + th;
        let (vh, vl) = fast_two_sum(sh, c);
        let w = tl + vl;
        let (hi, lo) = fast_two_sum(vh, w);
        DD { hi, lo }
    }
}

/// Relative error bound of [`DD::add`] (rounded up): 3u²/(1 − 4u) < 2^-104.4.
pub const ADD_REL: f64 = 3.0 * U * U * (1.0 + 5.0 * U);

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums of many positive double-doubles against MPFR at 300 bits: within the bound of n additions.
    #[test]
    fn accurate_add_meets_its_bound() {
        let mut rng = crate::num::xorshift::XorShift(0x9e3779b97f4a7c15);
        let mut next = || rng.next_f64();
        let mut acc = DD::ZERO;
        let mut exact = Float::with_val(300, 0);
        let n = 20_000;
        for _ in 0..n {
            let x = Float::with_val(300, next()) * Float::with_val(300, next() * 1e-8 + 1e-3).exp();
            let d = DD::from_float(&x);
            exact += d.to_float();
            acc = acc.add(d);
        }
        let err = Float::with_val(300, acc.to_float() - &exact).abs() / &exact;
        let bound = n as f64 * ADD_REL * 1.01;
        assert!(err.to_f64() <= bound, "relative error {} > {bound}", err.to_f64());
        // conversion round trip is within u²
        let x = Float::with_val(300, 1) / 3u32;
        let rt = Float::with_val(300, DD::from_float(&x).to_float() - &x).abs() / &x;
        assert!(rt.to_f64() <= U * U * (1.0 + U));
    }

    #[test]
    fn error_free_transformations_are_exact() {
        for (a, b) in [(1.0, 1e-20), (3.0e100, -2.5e84), (0.1, 0.2)] {
            let (s, e) = two_sum(a, b);
            assert_eq!(Float::with_val(2200, s) + e, Float::with_val(2200, a) + b);
            let (p, q) = two_prod(a, b);
            assert_eq!(Float::with_val(2200, p) + q, Float::with_val(2200, a) * b);
        }
    }
}
