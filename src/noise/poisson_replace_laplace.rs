//! The Poisson-subsampled Laplace mechanism under replace-one neighbours.
//!
//! Each record enters the sum with probability q; its contribution lies within Δ of an absent record's. With
//! the noise Lap(b), density p(x) = e^{−|x|/b}/(2b), the dominating pair is dp_accounting's REPLACE pair with
//! sub-sampling (`privacy_loss_mechanism.py`, `AdditiveNoisePrivacyLoss`; dp_accounting itself declines it
//! for Laplace) [ZDW22, §5]:
//!
//!   A(x) = q p(x + Δ) + r p(x),    B(x) = q p(x − Δ) + r p(x),    r = 1 − q.
//!
//! With a = Δ/b the loss L = ln(A/B) is non-increasing in x (p is log-concave), constant outside [−Δ, Δ]:
//!
//!   L = L_max = ln((q e^a + r)/(q e^{−a} + r)) on x ≤ −Δ (an atom),   L = −L_max on x ≥ Δ (an atom),
//!   L(x) = ln((q e^{−a} + r)/(q e^{(2x − Δ)/b} + r)) on [0, Δ],        L(−x) = −L(x).
//!
//! So {L ≥ ℓ} = {x ≤ x*} with, for −L_max < ℓ ≤ 0, y = e^{−x*/b} = W^{−1/2}, W = e^{−ℓ} + (r/q) e^a (e^{−ℓ} − 1)
//! (both terms ≥ 0: no cancellation), and for 0 < ℓ < L_max the mirror image y' = e^{x*/b} = W'^{−1/2}, W' the
//! same with −ℓ for ℓ. From the Laplace CDF, for x* ≥ 0:
//!
//!   A[x ≤ x*] = q(1 − y e^{−a}/2) + r(1 − y/2),     A[x > x*] = (y/2)(q e^{−a} + r),
//!   B[x ≤ x*] = q e^{−a}/(2y) + r(1 − y/2),         B[x > x*] = q(1 − e^{−a}/(2y)) + r y/2,         (1)
//!
//! and for x* ≤ 0 the same with A and B, and the two sides, exchanged (y' for y). Each side is a sum of
//! non-negative terms. Whether ℓ equals an atom's loss is decided exactly (`noise::replace_pair::
//! compare_loss`: at q = ½ the top atom's loss is a itself). The pair is its own mirror: one direction. At
//! q = 1 it is the Laplace mechanism with sensitivity 2Δ, which answers for it.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::noise::replace_pair::{
    compare_loss, hull4, ln_a_tail_f64, planned_loss, replace_loss, replace_loss_f64, replace_shifts, rescaled,
};
use crate::num::Interval;
use rug::{Float, Rational};
use std::cmp::Ordering;
use std::sync::Arc;

/// The replace-one pair of a Poisson-subsampled Laplace mechanism (module doc).
#[derive(Debug)]
pub struct PoissonReplaceLaplace {
    scale: Rational,
    mu: Rational,
    q: Rational,
    /// the subsampled mechanism under add/remove (its spelling, and its scaled copies for calibration)
    sampled: Arc<dyn LossLaw>,
    /// at q = 1: the Laplace mechanism with sensitivity 2Δ
    doubled: Option<Arc<dyn LossLaw>>,
}

/// Where x* lies: the masses (1) from y (x* ≥ 0) or y' (x* ≤ 0).
enum Crossing {
    NonNegative(Interval),
    NonPositive(Interval),
}

impl PoissonReplaceLaplace {
    /// `doubled`: at q = 1, the Laplace mechanism of sensitivity 2Δ (the caller's law, `noise::laplace`,
    /// builds it: this file does not name the law it serves).
    pub fn new(
        scale: Rational,
        mu: Rational,
        q: Rational,
        sampled: Arc<dyn LossLaw>,
        doubled: Option<Arc<dyn LossLaw>>,
    ) -> Fallible<PoissonReplaceLaplace> {
        if scale <= 0 || mu <= 0 {
            return crate::fallible!(Input, "the Laplace scale and sensitivity must be positive, got {scale} and {mu}");
        }
        if !(q > 0 && q <= 1) {
            return crate::fallible!(Input, "the sampling probability q must be in (0, 1], got {q}");
        }
        if (q == 1) != doubled.is_some() {
            return crate::fallible!(Internal, "the Laplace replace pair needs the doubled mechanism exactly at q = 1");
        }
        Ok(PoissonReplaceLaplace { scale, mu, q, sampled, doubled })
    }

    /// a = Δ/b.
    fn a(&self) -> Rational {
        self.mu.clone() / self.scale.clone()
    }

    /// W^{−1/2} for W = e^{u} + (r/q) e^a (e^{u} − 1), u = ∓ℓ ≥ 0, clamped to [e^{−a}, 1] (x* in [−Δ, Δ]).
    fn y(&self, u: &Rational, p: u32) -> Interval {
        let a = self.a();
        let eu = Interval::from_rational(u, p).exp();
        let ratio = Interval::from_rational(&((Rational::from(1) - self.q.clone()) / self.q.clone()), p);
        let w = eu.add(&ratio.mul(&Interval::from_rational(&a, p).exp()).mul(&eu.sub(&Interval::one(p))));
        let y = Interval::one(p).div(&w.sqrt());
        let floor = Interval::from_rational(&-a, p).exp();
        y.clamp_to(floor.lo(), &Float::with_val(p, 1))
    }

    /// (1): [A[x ≤ x*], A[x > x*], B[x ≤ x*], B[x > x*]].
    fn masses(&self, c: &Crossing, p: u32) -> [Interval; 4] {
        let qi = Interval::from_rational(&self.q, p);
        let r = Interval::from_rational(&(Rational::from(1) - self.q.clone()), p);
        let ea = Interval::from_rational(&-self.a(), p).exp();
        let one = Interval::one(p);
        let half = Rational::from((1, 2));
        let (y, mirrored) = match c {
            Crossing::NonNegative(y) => (y, false),
            Crossing::NonPositive(y) => (y, true),
        };
        // for x* ≥ 0; the mirror exchanges A with B and ≤ with >
        let a_le = qi.mul(&one.sub(&y.mul(&ea).mul_rational(&half))).add(&r.mul(&one.sub(&y.mul_rational(&half))));
        let a_gt = y.mul_rational(&half).mul(&qi.mul(&ea).add(&r));
        let b_le = qi.mul(&ea.div(y).mul_rational(&half)).add(&r.mul(&one.sub(&y.mul_rational(&half))));
        let b_gt = qi.mul(&one.sub(&ea.div(y).mul_rational(&half))).add(&r.mul(&y.mul_rational(&half)));
        if mirrored {
            [b_gt, b_le, a_gt, a_le]
        } else {
            [a_le, a_gt, b_le, b_gt]
        }
    }

    fn loss_f64(&self, x: f64) -> f64 {
        let (b, d) = (self.scale.to_f64(), self.mu.to_f64());
        let psi = |x: f64| (x.abs() - (x + d).abs()) / b;
        replace_loss_f64(psi(x), psi(-x), self.q.to_f64())
    }

    /// ln A[x > X] (above) or ln A[x ≤ X], f64 (planning).
    fn ln_a_tail_f64(&self, x: f64, above: bool) -> f64 {
        let b = self.scale.to_f64();
        // ln P[N > t] for Lap(b)
        let ln_sf = |t: f64| if t >= 0.0 { -t / b - std::f64::consts::LN_2 } else { (-0.5 * (t / b).exp()).ln_1p() };
        ln_a_tail_f64(ln_sf, self.mu.to_f64(), self.q.to_f64(), x, above)
    }
}

impl LossLaw for PoissonReplaceLaplace {
    fn spec(&self) -> String {
        format!("{} (replace-one pair)", self.sampled.spec())
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// Its moment generating function (`noise::mgf_laplace_sub`, `replace_line`); at q = 1 the doubled
    /// mechanism's.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        if let Some(d) = &self.doubled {
            return d.mgf();
        }
        Some(crate::noise::mgf::Mgf::PoissonReplaceLaplace { q: self.q.clone(), eps0: self.a() })
    }

    fn split(&self, dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        if let Some(d) = &self.doubled {
            return d.split(dir, l, prec);
        }
        let p = prec + 16;
        let a = self.a();
        let (zero, one) = (Interval::zero(p), Interval::one(p));
        let all_below = [zero.clone(), one.clone(), zero.clone(), one.clone()];
        let all_above = [one.clone(), zero.clone(), one, zero];
        let at_minus_delta = || self.masses(&Crossing::NonPositive(Interval::from_rational(&-a.clone(), p).exp()), p);
        // x*(ℓ) from (1) near an atom, clamped to [−Δ, Δ]: holds the true crossing whenever ℓ lies between the atoms
        let near_top = || self.masses(&Crossing::NonPositive(self.y(l, p)), p);
        let near_bottom = || self.masses(&Crossing::NonNegative(self.y(&-l.clone(), p)), p);
        // ℓ against the top atom L_max and the bottom one −L_max
        let m = match compare_loss(&a, &-a.clone(), &self.q, l, p) {
            Some(Ordering::Less) => all_below,
            Some(Ordering::Equal) => at_minus_delta(),
            // undecided: ℓ above L_max (nothing) or at or below it (x* ≥ −Δ)
            None => hull4(&all_below, &near_top()),
            Some(Ordering::Greater) => match compare_loss(&-a.clone(), &a, &self.q, l, p) {
                Some(Ordering::Greater) | Some(Ordering::Equal) => all_above,
                None => hull4(&all_above, &near_bottom()),
                Some(Ordering::Less) => {
                    if *l <= 0 {
                        self.masses(&Crossing::NonNegative(self.y(&-l.clone(), p)), p)
                    } else {
                        self.masses(&Crossing::NonPositive(self.y(l, p)), p)
                    }
                }
            },
        };
        let [a_above, a_below, b_above, b_below] = m;
        Ok(Split { a_below, a_above, b_below, b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, dir: Direction) -> LossRange {
        if let Some(d) = &self.doubled {
            return d.range(dir);
        }
        let a = self.a();
        let top = replace_loss(&a, &-a.clone(), &self.q, 128);
        LossRange { lo: End::Atom(top.neg()), hi: End::Atom(top) }
    }

    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64 {
        if let Some(d) = &self.doubled {
            return d.quantile(dir, ln_p, upper);
        }
        let bound = 800.0 * self.scale.to_f64() + 2.0 * self.mu.to_f64();
        planned_loss(|x, above| self.ln_a_tail_f64(x, above), |x| self.loss_f64(x), bound, ln_p, upper)
    }

    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        replace_shifts(neighbors, &self.sampled.spec())
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        rescaled(&self.sampled, c)
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        // |L| ≤ L_max is transcendental for q < 1; at q = 1 the doubled mechanism's 2Δ/b
        self.doubled.as_ref().and_then(|d| d.pure_epsilon())
    }
}

#[cfg(test)]
mod tests;
