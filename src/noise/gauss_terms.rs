//! Certified tables of Gaussian weights g(y) = exp(-y²/(2v)) for y = 0, 1, …, N and certified bounds
//! on Σ_{y > N} g(y), computed with outward-rounded recurrences (no exp call per term):
//! g(y+1) = g(y)·r(y), r(y) = exp(-(2y+1)/(2v)), r(y+1) = r(y)·exp(-1/v).

use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};

/// Lower and upper tables of exp(-y²/(2v)), y = 0..=n, for an exact v > 0.
pub struct GaussTable {
    pub lo: Vec<Float>,
    pub hi: Vec<Float>,
}

impl GaussTable {
    pub fn new(v: &Rational, n: usize, prec: u32) -> GaussTable {
        // r(0) = exp(-1/(2v)), q = exp(-1/v), both enclosed.
        let half_inv = Rational::from(v.recip_ref()) / 2u32;
        let r0 = Interval::from_rational(&-half_inv.clone(), prec).exp();
        let q = Interval::from_rational(&(-Rational::from(v.recip_ref())), prec).exp();
        let mut lo = Vec::with_capacity(n + 1);
        let mut hi = Vec::with_capacity(n + 1);
        let mut glo = Float::with_val(prec, 1);
        let mut ghi = Float::with_val(prec, 1);
        let mut rlo = r0.lo().clone();
        let mut rhi = r0.hi().clone();
        for _ in 0..=n {
            lo.push(glo.clone());
            hi.push(ghi.clone());
            glo = Float::with_val_round(prec, &glo * &rlo, Round::Down).0;
            ghi = Float::with_val_round(prec, &ghi * &rhi, Round::Up).0;
            rlo = Float::with_val_round(prec, &rlo * q.lo(), Round::Down).0;
            rhi = Float::with_val_round(prec, &rhi * q.hi(), Round::Up).0;
        }
        GaussTable { lo, hi }
    }
}

/// Upper bound on Σ_{y ≥ m} exp(-y²/(2v)) for an integer m ≥ 0: the ratio of consecutive terms
/// exp(-(2y+1)/(2v)) is at most exp(-(2m+1)/(2v)) for y ≥ m, so the sum is at most
/// g(m) / (1 − exp(-(2m+1)/(2v))).
pub fn gauss_tail_upper(v: &Rational, m: u64, prec: u32) -> Float {
    let m_r = Rational::from(m);
    let expo = Rational::from(&m_r * &m_r) / (Rational::from(2u32) * v);
    let gm = Interval::from_rational(&-expo, prec).exp();
    let ratio_e = (2u32 * Rational::from(m) + 1u32) / (Rational::from(2u32) * v);
    let ratio = Interval::from_rational(&-ratio_e, prec).exp();
    let denom = Float::with_val_round(prec, 1 - ratio.hi(), Round::Down).0;
    Float::with_val_round(prec, gm.hi() / &denom, Round::Up).0
}

/// Radius K with exp(-K²/(2v)) ≤ 2^-(bits): K = ⌈√(2 v · bits · ln 2)⌉.
pub fn radius_for_bits(v: &Rational, bits: u32) -> usize {
    let vf = v.to_f64();
    let k = (2.0 * vf * bits as f64 * std::f64::consts::LN_2).sqrt().ceil();
    // capped far below usize::MAX, so that a caller's `radius + 2` cannot overflow (σ² = 1e300: ~1e151);
    // every caller refuses a radius this large before summing
    (k.min(1e18) as usize).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_direct_exp() {
        let v = Rational::from((1001, 100));
        let t = GaussTable::new(&v, 200, 192);
        for y in [0usize, 1, 7, 50, 200] {
            let e = Rational::from(y * y) / (Rational::from(2u32) * &v);
            let direct = Float::with_val(400, -Float::with_val(400, &e)).exp();
            assert!(t.lo[y] <= direct && direct <= t.hi[y], "y = {y}");
        }
    }

    #[test]
    fn tail_bound_is_an_upper_bound() {
        let v = Rational::from(5);
        let m = 20u64;
        let bound = gauss_tail_upper(&v, m, 128);
        let mut s = Float::with_val(200, 0);
        for y in m..400 {
            s += Float::with_val(200, -(Float::with_val(200, y * y) / 10u32)).exp();
        }
        assert!(s <= bound);
        assert!(bound < s.clone() * 1.2f64);
    }
}
