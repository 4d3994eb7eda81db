//! The discrete Laplace mechanism as a privacy-loss law (`noise::loss::LossLaw`): q(D) + DLap(b) for an
//! integer query of integer sensitivity μ, so that it composes with any other law on the pld grid.
//!
//! The `Remove` pair is A = DLap(0, b), B = DLap(μ, b) (the `Add` pair is its mirror image x ↦ μ − x with
//! the same law of L: symmetric). The privacy loss is L(x) = (|x − μ| − |x|)/b: μ/b for x ≤ 0,
//! (μ − 2x)/b for 0 ≤ x ≤ μ, −μ/b for x ≥ μ — so the losses are (μ − 2k)/b, k = 0, …, μ: the lattice
//! μ/b + (2/b)ℤ, with atoms at both ends. L is non-increasing in x, and with u = bℓ ∈ (−μ, μ] and
//! X ~ DLap(b) (under B, x = μ + X):
//!
//!   A[L < ℓ] = P[X > (μ − u)/2],     B[L < ℓ] = P[X > (−μ − u)/2],                              (1)
//!
//! the other sides P[X ≤ ·], all from the closed forms of `noise::dlaplace` (each side a geometric tail
//! computed directly); for u > μ every loss is below ℓ, for u ≤ −μ none. One release is (μ/b)-DP (|L| ≤
//! μ/b), hence (μ/b)²/2-zCDP [BS16, Prop. 1.4].

use crate::error::Fallible;
use crate::noise::dlaplace::DiscreteLaplace;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::num::Interval;
use rug::{Integer, Rational};
use std::sync::Arc;

/// The discrete Laplace mechanism DLap(b) on an integer query of sensitivity μ.
#[derive(Clone, Debug)]
pub struct DiscreteLaplaceLoss {
    dl: DiscreteLaplace,
    mu: u32,
}

impl DiscreteLaplaceLoss {
    /// b > 0 exact, μ ≥ 1.
    pub fn new(scale: Rational, mu: u32) -> Fallible<DiscreteLaplaceLoss> {
        if mu == 0 {
            return crate::fallible!(Input, "the sensitivity must be at least 1");
        }
        Ok(DiscreteLaplaceLoss { dl: DiscreteLaplace::new(scale)?, mu })
    }

    /// ε₀ = μ/b.
    pub fn eps0(&self) -> Rational {
        Rational::from(self.mu) / self.dl.scale.clone()
    }

    /// (P[X > t], P[X ≤ t]) for X ~ DLap(b), t rational with |t| ≤ μ (the closed forms).
    fn sides(&self, t: &Rational, prec: u32) -> Fallible<(Interval, Interval)> {
        let k =
            Integer::from(t.floor_ref()).to_i64().ok_or_else(|| crate::err!(Internal, "a discrete Laplace threshold is out of range"))?;
        Ok((self.dl.tail_ge(k + 1, prec), self.dl.cdf(k, prec)))
    }
}

impl LossLaw for DiscreteLaplaceLoss {
    fn spec(&self) -> String {
        format!("dlap:scale={},mu={}", crate::num::format::fmt_rational(&self.dl.scale), self.mu)
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let p = prec + 8;
        let mu = Rational::from(self.mu);
        let u = l.clone() * self.dl.scale.clone();
        let (zero, one) = (Interval::zero(p), Interval::one(p));
        if u > mu {
            return Ok(Split { a_below: one.clone(), a_above: zero.clone(), b_below: one, b_above: zero });
        }
        if u <= -mu.clone() {
            return Ok(Split { a_below: zero.clone(), a_above: one.clone(), b_below: zero, b_above: one });
        }
        // (1)
        let (a_below, a_above) = self.sides(&((mu.clone() - u.clone()) / 2u32), p)?;
        let (b_below, b_above) = self.sides(&((-mu - u) / 2u32), p)?;
        Ok(Split { a_below, a_above, b_below, b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        let e0 = self.eps0();
        LossRange { lo: End::Atom(Interval::from_rational(&-e0.clone(), 128)), hi: End::Atom(Interval::from_rational(&e0, 128)) }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        // planning: P[X ≥ m] = r^m/(1 + r) for m ≥ 1, r = e^{−1/b}; L = (μ − 2x)/b on 0 ≤ x ≤ μ
        let (b, mu) = (self.dl.scale.to_f64(), self.mu as f64);
        let ln_r = -1.0 / b;
        let ln_1r = (1.0 + ln_r.exp()).ln();
        let e0 = mu / b;
        // the x whose upper tail P[X ≥ x] is e^{ln_q} (x ≥ 1 when the tail is below 1/(1 + r))
        let x_of = |ln_q: f64| (ln_q + ln_1r) / ln_r;
        let l = if upper {
            // A[L ≥ ℓ] = P[X ≤ x] = 1 − P[X ≥ x + 1] ≈ p; the atom at ε₀ holds P[X ≤ 0] = 1/(1 + r)
            let p = ln_p.exp();
            if p <= 1.0 / (1.0 + ln_r.exp()) {
                e0
            } else {
                (mu - 2.0 * (x_of((1.0 - p).ln()) - 1.0)) / b
            }
        } else {
            // A[L < ℓ] = P[X ≥ x] ≈ p with L just above (μ − 2x)/b
            (mu - 2.0 * x_of(ln_p) + 2.0) / b
        };
        if l.is_nan() {
            e0
        } else {
            l.clamp(-e0, e0)
        }
    }

    /// [BS16, Prop. 1.4] from the pure ε₀.
    fn rho(&self) -> Option<Rational> {
        let e = self.eps0();
        Some(Rational::from(&e * &e) / 2u32)
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        Some(self.eps0())
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        Some(DiscreteLaplaceLoss::new(self.dl.scale.clone() * c.clone(), self.mu).map(|l| Arc::new(l) as Arc<dyn LossLaw>))
    }

    fn lattice(&self) -> Option<Rational> {
        Some(Rational::from(2) / self.dl.scale.clone())
    }

    fn lattice_offset(&self) -> Rational {
        self.eps0()
    }
}

#[cfg(test)]
mod tests;
