//! Certified interval arithmetic over MPFR floats (`rug::Float`).
//!
//! An [`Interval`] `[lo, hi]` always contains the exact value of the quantity it stands for:
//! every operation rounds its lower end toward −∞ and its upper end toward +∞ (MPFR's
//! correctly rounded `Round::Down` / `Round::Up`), so errors never accumulate silently.

use rug::float::{Constant, Round};
use rug::{Float, Rational};
use std::fmt;

/// A closed interval `[lo, hi]` of MPFR floats with a common precision.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    pub lo: Float,
    pub hi: Float,
}

impl Interval {
    /// The degenerate interval `[x, x]` (x must be representable at `prec`; it is rounded outward otherwise).
    pub fn from_float(x: &Float, prec: u32) -> Self {
        let lo = Float::with_val_round(prec, x, Round::Down).0;
        let hi = Float::with_val_round(prec, x, Round::Up).0;
        Interval { lo, hi }
    }

    /// Exact rational enclosed by rounding outward.
    pub fn from_rational(q: &Rational, prec: u32) -> Self {
        let lo = Float::with_val_round(prec, q, Round::Down).0;
        let hi = Float::with_val_round(prec, q, Round::Up).0;
        Interval { lo, hi }
    }

    pub fn from_i64(v: i64, prec: u32) -> Self {
        Self::from_rational(&Rational::from(v), prec)
    }

    pub fn zero(prec: u32) -> Self {
        Interval { lo: Float::with_val(prec, 0), hi: Float::with_val(prec, 0) }
    }

    pub fn one(prec: u32) -> Self {
        Interval { lo: Float::with_val(prec, 1), hi: Float::with_val(prec, 1) }
    }

    /// `[lo, hi]` from two floats (caller guarantees lo ≤ hi).
    pub fn new(lo: Float, hi: Float) -> Self {
        debug_assert!(lo <= hi, "interval with lo > hi");
        Interval { lo, hi }
    }

    /// π enclosed.
    pub fn pi(prec: u32) -> Self {
        Interval {
            lo: Float::with_val_round(prec, Constant::Pi, Round::Down).0,
            hi: Float::with_val_round(prec, Constant::Pi, Round::Up).0,
        }
    }

    /// ln 2 enclosed.
    pub fn ln2(prec: u32) -> Self {
        Interval {
            lo: Float::with_val_round(prec, Constant::Log2, Round::Down).0,
            hi: Float::with_val_round(prec, Constant::Log2, Round::Up).0,
        }
    }

    pub fn prec(&self) -> u32 {
        self.lo.prec().max(self.hi.prec())
    }

    pub fn width(&self) -> Float {
        Float::with_val_round(self.prec(), &self.hi - &self.lo, Round::Up).0
    }

    pub fn mid(&self) -> Float {
        let s = Float::with_val(self.prec() + 1, &self.lo + &self.hi);
        s / 2u32
    }

    pub fn contains(&self, x: &Float) -> bool {
        &self.lo <= x && x <= &self.hi
    }

    pub fn contains_interval(&self, other: &Interval) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// Smallest interval containing both.
    pub fn hull(&self, other: &Interval) -> Interval {
        let lo = if self.lo <= other.lo { self.lo.clone() } else { other.lo.clone() };
        let hi = if self.hi >= other.hi { self.hi.clone() } else { other.hi.clone() };
        Interval { lo, hi }
    }

    pub fn is_nonneg(&self) -> bool {
        self.lo >= 0
    }

    pub fn to_f64(&self) -> f64 {
        self.mid().to_f64()
    }

    pub fn add(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        Interval {
            lo: Float::with_val_round(p, &self.lo + &o.lo, Round::Down).0,
            hi: Float::with_val_round(p, &self.hi + &o.hi, Round::Up).0,
        }
    }

    pub fn sub(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        Interval {
            lo: Float::with_val_round(p, &self.lo - &o.hi, Round::Down).0,
            hi: Float::with_val_round(p, &self.hi - &o.lo, Round::Up).0,
        }
    }

    pub fn neg(&self) -> Interval {
        Interval { lo: Float::with_val(self.hi.prec(), -&self.hi), hi: Float::with_val(self.lo.prec(), -&self.lo) }
    }

    /// Product; general signs.
    pub fn mul(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        if self.lo >= 0 && o.lo >= 0 {
            return Interval {
                lo: Float::with_val_round(p, &self.lo * &o.lo, Round::Down).0,
                hi: Float::with_val_round(p, &self.hi * &o.hi, Round::Up).0,
            };
        }
        let cands = [(&self.lo, &o.lo), (&self.lo, &o.hi), (&self.hi, &o.lo), (&self.hi, &o.hi)];
        let mut lo: Option<Float> = None;
        let mut hi: Option<Float> = None;
        for (a, b) in cands {
            let l = Float::with_val_round(p, a * b, Round::Down).0;
            let h = Float::with_val_round(p, a * b, Round::Up).0;
            if lo.as_ref().is_none_or(|x| l < *x) {
                lo = Some(l);
            }
            if hi.as_ref().is_none_or(|x| h > *x) {
                hi = Some(h);
            }
        }
        Interval { lo: lo.unwrap(), hi: hi.unwrap() }
    }

    /// Quotient; the divisor must not contain zero.
    pub fn div(&self, o: &Interval) -> Interval {
        assert!(o.lo > 0 || o.hi < 0, "interval division by an interval containing zero");
        let p = self.prec().max(o.prec());
        let cands = [(&self.lo, &o.lo), (&self.lo, &o.hi), (&self.hi, &o.lo), (&self.hi, &o.hi)];
        let mut lo: Option<Float> = None;
        let mut hi: Option<Float> = None;
        for (a, b) in cands {
            let l = Float::with_val_round(p, a / b, Round::Down).0;
            let h = Float::with_val_round(p, a / b, Round::Up).0;
            if lo.as_ref().is_none_or(|x| l < *x) {
                lo = Some(l);
            }
            if hi.as_ref().is_none_or(|x| h > *x) {
                hi = Some(h);
            }
        }
        Interval { lo: lo.unwrap(), hi: hi.unwrap() }
    }

    pub fn mul_rational(&self, q: &Rational) -> Interval {
        self.mul(&Interval::from_rational(q, self.prec()))
    }

    /// e^x (monotone increasing).
    pub fn exp(&self) -> Interval {
        let mut lo = self.lo.clone();
        lo.exp_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.exp_round(Round::Up);
        Interval { lo, hi }
    }

    /// ln x for x > 0 (monotone increasing).
    pub fn ln(&self) -> Interval {
        assert!(self.lo > 0, "ln of an interval not strictly positive");
        let mut lo = self.lo.clone();
        lo.ln_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.ln_round(Round::Up);
        Interval { lo, hi }
    }

    /// √x for x ≥ 0.
    pub fn sqrt(&self) -> Interval {
        assert!(self.lo >= 0, "sqrt of a negative interval");
        let mut lo = self.lo.clone();
        lo.sqrt_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.sqrt_round(Round::Up);
        Interval { lo, hi }
    }

    /// x^k for x ≥ 0 and integer k ≥ 0 (by repeated squaring, outward rounded).
    pub fn powu(&self, k: u32) -> Interval {
        assert!(self.lo >= 0, "powu expects a non-negative interval");
        let p = self.prec();
        let mut lo = Float::with_val(p, 1);
        let mut hi = Float::with_val(p, 1);
        let mut blo = self.lo.clone();
        let mut bhi = self.hi.clone();
        let mut e = k;
        while e > 0 {
            if e & 1 == 1 {
                lo.mul_assign_round(&blo, Round::Down);
                hi.mul_assign_round(&bhi, Round::Up);
            }
            e >>= 1;
            if e > 0 {
                let b2l = Float::with_val_round(p, &blo * &blo, Round::Down).0;
                let b2h = Float::with_val_round(p, &bhi * &bhi, Round::Up).0;
                blo = b2l;
                bhi = b2h;
            }
        }
        Interval { lo, hi }
    }

    /// sin x and cos x enclosed through the 1-Lipschitz bound: for x ∈ [lo, hi],
    /// |f(x) − f(lo)| ≤ hi − lo, with f(lo) rounded down and up by MPFR (correctly rounded), clamped to [−1, 1].
    pub fn sin(&self) -> Interval {
        self.lipschitz_trig(|x, r| x.sin_round(r))
    }

    /// See [`Interval::sin`].
    pub fn cos(&self) -> Interval {
        self.lipschitz_trig(|x, r| x.cos_round(r))
    }

    fn lipschitz_trig(&self, f: impl Fn(&mut Float, Round) -> std::cmp::Ordering) -> Interval {
        let p = self.prec();
        let w = Float::with_val_round(p, &self.hi - &self.lo, Round::Up).0;
        let mut lo = self.lo.clone();
        f(&mut lo, Round::Down);
        let mut hi = self.lo.clone();
        f(&mut hi, Round::Up);
        lo = Float::with_val_round(p, &lo - &w, Round::Down).0;
        hi = Float::with_val_round(p, &hi + &w, Round::Up).0;
        Interval { lo, hi }.clamp_to(&Float::with_val(p, -1), &Float::with_val(p, 1))
    }

    /// [lo − r, hi + r], rounded outward (r ≥ 0).
    pub fn widen(&self, r: &Float) -> Interval {
        let p = self.prec();
        Interval { lo: Float::with_val_round(p, &self.lo - r, Round::Down).0, hi: Float::with_val_round(p, &self.hi + r, Round::Up).0 }
    }

    /// Clamp both ends into [a, b] (used to intersect an enclosure with a known range).
    pub fn clamp_to(&self, a: &Float, b: &Float) -> Interval {
        let lo = if &self.lo < a {
            a.clone()
        } else if &self.lo > b {
            b.clone()
        } else {
            self.lo.clone()
        };
        let hi = if &self.hi > b {
            b.clone()
        } else if &self.hi < a {
            a.clone()
        } else {
            self.hi.clone()
        };
        Interval { lo, hi }
    }
}

trait MulAssignRound {
    fn mul_assign_round(&mut self, o: &Float, r: Round);
}

impl MulAssignRound for Float {
    fn mul_assign_round(&mut self, o: &Float, r: Round) {
        let p = self.prec();
        *self = Float::with_val_round(p, &*self * o, r).0;
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", crate::num::format::fmt_down(&self.lo, 30), crate::num::format::fmt_up(&self.hi, 30))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_ln_enclose_true_values() {
        let p = 128;
        let one = Interval::one(p);
        let e = one.exp();
        // e = 2.718281828459045235360287471352662497757...
        let e_ref = Float::with_val(256, Float::parse("2.718281828459045235360287471352662497757247093699959574966").unwrap());
        assert!(e.lo <= e_ref && e_ref <= e.hi);
        assert!(e.width() < Float::with_val(p, 1e-37));
        let l = e.ln();
        assert!(l.lo <= 1 && l.hi >= 1);
    }

    #[test]
    fn mul_handles_signs() {
        let p = 64;
        let a = Interval::new(Float::with_val(p, -2), Float::with_val(p, 3));
        let b = Interval::new(Float::with_val(p, -5), Float::with_val(p, 1));
        let c = a.mul(&b);
        assert_eq!(c.lo, -15);
        assert_eq!(c.hi, 10);
    }

    #[test]
    fn rational_enclosure_is_outward() {
        let q = Rational::from((1, 3));
        let i = Interval::from_rational(&q, 64);
        assert!(i.lo < i.hi);
        let third = Float::with_val(200, &q);
        assert!(i.lo <= third && third <= i.hi);
    }

    #[test]
    fn powu_matches_repeated_product() {
        let p = 128;
        let x = Interval::from_rational(&Rational::from((7, 5)), p);
        let y = x.powu(10);
        use rug::ops::Pow;
        let exact = Float::with_val(400, Rational::from((7, 5)).pow(10u32));
        assert!(y.lo <= exact && exact <= y.hi);
    }
}
