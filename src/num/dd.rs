//! Double-double ("double-word") numbers: an unevaluated sum hi + lo of two f64 with |lo| ≤ ulp(hi)/2,
//! about 106 bits of precision at the speed of a few f64 operations.
//!
//! The building blocks and their error bounds are those of Joldes, Muller and Popescu [JMP17], *Tight and rigorous
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

    /// Exact value as an MPFR number. hi + lo needs 53 bits plus the exponent gap between hi and lo; the
    /// normalisation |lo| ≤ ulp(hi)/2 bounds lo from above only (from_float of a value just above an f64, or
    /// a sum that nearly cancels, leaves a lo far below ulp(hi)), so the precision is 128 bits or the gap plus
    /// 54, whichever is larger.
    pub fn to_float(self) -> Float {
        let e = |x: f64| Float::with_val(53, x).get_exp().unwrap_or(0);
        let gap = if self.lo == 0.0 || self.hi == 0.0 { 0 } else { (e(self.hi) - e(self.lo)).max(0) as u32 };
        Float::with_val(128.max(gap + 54), self.hi) + self.lo
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

/// Randomized checks against MPFR (exact at 2200 bits, which holds any sum or product of two f64): random
/// signs, exponents over ±1000, mantissas with long runs of ones, cancellation (y ≈ −x).
#[cfg(test)]
mod random_tests {
    use super::*;
    use crate::num::xorshift::gen::{case, Range};
    use crate::num::xorshift::XorShift;

    const P: u32 = 2200;

    /// A random f64 with exponent in ±`e` (a run-heavy 53-bit mantissa from `gen`).
    fn f(g: &mut XorShift, e: i32) -> f64 {
        let m = g.mantissa(53).to_f64();
        let s = if g.chance(1, 2) { -1.0 } else { 1.0 };
        s * m * 2f64.powi(g.below(2 * e as u64 + 1) as i32 - e - 53)
    }

    fn exact(x: f64) -> Float {
        Float::with_val(P, x)
    }

    #[test]
    fn error_free_transformations_are_exact_on_random_operands() {
        for i in 0..crate::num::test_cases(2_000) {
            let mut g = case(0xdd0, i);
            let a = f(&mut g, 1000);
            let b = if g.chance(1, 4) { -a * (1.0 + f(&mut g, 60).abs() * 1e-17) } else { f(&mut g, 1000) };
            let (s, e) = two_sum(a, b);
            assert!(s == a + b && exact(s) + e == exact(a) + b, "two_sum({a:e}, {b:e}) = ({s:e}, {e:e}), case {i}");
            let (x, y) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
            let (s, e) = fast_two_sum(x, y);
            assert!(exact(s) + e == exact(x) + y, "fast_two_sum({x:e}, {y:e}) = ({s:e}, {e:e}), case {i}");
            let (c, d) = (f(&mut g, 480), f(&mut g, 480));
            let (p, q) = two_prod(c, d);
            assert!(p == c * d && exact(p) + q == exact(c) * d, "two_prod({c:e}, {d:e}) = ({p:e}, {q:e}), case {i}");
        }
    }

    /// A random `px`-bit float of moderate exponent, scaled by 2^j with j uniform in [−`shift`, `shift`).
    fn random_float(g: &mut XorShift, px: u32, shift: i32) -> Float {
        g.float(px, Range::Moderate) << (g.below(2 * shift as u64) as i32 - shift)
    }

    /// A normalised double-double: hi = fl(hi + lo).
    fn normalised(d: DD) -> bool {
        d.hi + d.lo == d.hi
    }

    #[test]
    fn conversion_and_add_meet_their_bounds() {
        for i in 0..crate::num::test_cases(2_000) {
            let mut g = case(0xdd1, i);
            let px = 60 + g.below(340) as u32;
            let x = random_float(&mut g, px, 600);
            let dx = DD::from_float(&x);
            assert!(
                normalised(dx) && Float::with_val(P, dx.to_float() - &x).abs() <= Float::with_val(P, x.abs_ref()) * (U * U * (1.0 + U)),
                "from_float({x}) = {dx:?}, case {i}"
            );
            assert_eq!(dx.to_float(), exact(dx.hi) + dx.lo, "to_float is not exact, case {i}");
            let y = if g.chance(1, 4) {
                // cancellation: y = −x(1 + δ) with δ down to 2^-120
                let d = Float::with_val(px, g.next_f64()) >> (g.below(120) as i32);
                Float::with_val(px + 130, -Float::with_val(px + 130, &x * (1 + d)))
            } else {
                random_float(&mut g, px, 600)
            };
            let dy = DD::from_float(&y);
            let s = dx.add(dy);
            let ex = exact(dx.hi) + dx.lo + dy.hi + dy.lo;
            let err = Float::with_val(P, s.to_float() - &ex).abs();
            assert!(
                normalised(s) && err <= Float::with_val(P, ex.abs_ref()) * ADD_REL,
                "{dx:?} + {dy:?} = {s:?}: error {err:e} above ADD_REL·|x + y|, case {i}"
            );
        }
    }
}
