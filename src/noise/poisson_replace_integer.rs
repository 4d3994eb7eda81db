//! Poisson subsampling under replace-one neighbours of additive integer noise (the discrete Gaussian and the
//! discrete Laplace), and the exact comparison of a replace-one loss with a rational that it and the
//! continuous Laplace pair (`noise::poisson_replace_laplace`) share.
//!
//! Each record enters the sum with probability q; its contribution lies within Δ of an absent record's, so
//! with noise N of mass function p (symmetric, log-concave) the dominating pair is dp_accounting's REPLACE
//! pair with sub-sampling (`privacy_loss_mechanism.py`, `AdditiveNoisePrivacyLoss`) [ZDW22, §5]
//!
//!   A(k) = q p(k + Δ) + (1 − q) p(k),    B(k) = q p(k − Δ) + (1 − q) p(k),    k ∈ ℤ.
//!
//! With ψ(k) = ln p(k + Δ) − ln p(k) (exact and rational for both laws: −(2kΔ + Δ²)/(2σ²) for N_Z(0, σ²),
//! (|k| − |k + Δ|)/t for the discrete Laplace of scale t) and p(k − Δ)/p(k) = e^{ψ(−k)} by symmetry, the
//! loss is
//!
//!   L(k) = ln((q e^{ψ(k)} + r)/(q e^{ψ(−k)} + r)),    r = 1 − q,                                    (1)
//!
//! non-increasing in k (ψ is non-increasing for a log-concave p), so {L ≥ ℓ} = {k ≤ k*}. The masses of that
//! set are the noise's tails, A[k ≤ k*] = q P[N ≤ k* + Δ] + r P[N ≤ k*] and likewise for B. The pair is
//! its own mirror (k → −k swaps A and B): one direction. At q = 1 it is the mechanism with shift 2Δ, which
//! is accounted as that law (its losses are then rational and on a lattice).
//!
//! k* is found from a floating-point guess and certified by deciding L(k) ≥ ℓ at the two integers that
//! bound it, exactly (`noise::replace_pair::compare_loss`: ties only where the Lindemann–Weierstrass theorem
//! allows them); an integer left undecided is counted on neither side and its mass widens the bracket
//! (still certified).

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::noise::replace_pair::{
    compare_loss, hull4, ln_a_tail_f64, planned_loss, replace_loss, replace_loss_f64, replace_shifts, rescaled,
};
use crate::num::Interval;
use rug::Rational;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Additive integer noise N with a symmetric log-concave mass function p, and the query's sensitivity Δ:
/// what the replace-one pair (module doc) needs of a law.
pub trait IntegerNoise: Send + Sync + fmt::Debug {
    /// Δ ≥ 1.
    fn shift(&self) -> u32;
    /// ψ(k) = ln p(k + Δ) − ln p(k), exact.
    fn psi(&self, k: i64) -> Rational;
    /// P[N ≥ m] for any integer m, certified (the small side summed directly).
    fn ge(&self, m: i64, prec: u32) -> Fallible<Interval>;
    /// True if ψ is constant for k ≥ 0 and for k ≤ −Δ (the discrete Laplace): L is then constant for
    /// |k| ≥ Δ, atoms at both ends of the losses.
    fn plateau(&self) -> bool;
    /// Planning only: ψ at a real x, and ln P[N > x] for real x (the law read as continuous).
    fn psi_f64(&self, x: f64) -> f64;
    fn ln_sf_f64(&self, x: f64) -> f64;
    /// Planning only: a distance beyond which P[N > x] < e^{−700}.
    fn reach_f64(&self) -> f64;
}

/// An integer k or one of the ends of ℤ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    MinusInf,
    At(i64),
    PlusInf,
}

/// The replace-one pair of Poisson-subsampled integer noise (module doc).
#[derive(Debug)]
pub struct PoissonReplaceInteger {
    noise: Arc<dyn IntegerNoise>,
    q: Rational,
    /// the subsampled mechanism under add/remove (its spelling, and its scaled copies for calibration)
    sampled: Arc<dyn LossLaw>,
    /// at q = 1: the mechanism with shift 2Δ, which answers for the pair
    doubled: Option<Arc<dyn LossLaw>>,
}

impl PoissonReplaceInteger {
    /// `doubled`: the mechanism with shift 2Δ (used at q = 1 only).
    pub fn new(
        noise: Arc<dyn IntegerNoise>,
        q: Rational,
        sampled: Arc<dyn LossLaw>,
        doubled: Arc<dyn LossLaw>,
    ) -> Fallible<PoissonReplaceInteger> {
        if !(q > 0 && q <= 1) {
            return crate::fallible!(Input, "the sampling probability q must be in (0, 1], got {q}");
        }
        if noise.shift() == 0 {
            return crate::fallible!(Input, "the sensitivity must be at least 1");
        }
        let doubled = if q == 1 { Some(doubled) } else { None };
        Ok(PoissonReplaceInteger { noise, q, sampled, doubled })
    }

    fn delta(&self) -> i64 {
        i64::from(self.noise.shift())
    }

    /// L(k) ≥ ℓ decided (Some(true)), L(k) < ℓ decided (Some(false)), or undecided.
    fn above(&self, k: i64, l: &Rational, prec: u32) -> Option<bool> {
        let (plus, minus) = (self.noise.psi(k), self.noise.psi(k.checked_neg()?));
        compare_loss(&plus, &minus, &self.q, l, prec).map(|o| o != Ordering::Less)
    }

    fn loss_f64(&self, x: f64) -> f64 {
        replace_loss_f64(self.noise.psi_f64(x), self.noise.psi_f64(-x), self.q.to_f64())
    }

    /// Planning: the real x with L(x) = ℓ (L non-increasing), by bisection.
    fn guess(&self, l: f64) -> i64 {
        let reach = self.noise.reach_f64() + 2.0 * self.delta() as f64;
        let (mut lo, mut hi) = (-reach, reach);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.loss_f64(mid) >= l {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let x = (0.5 * (lo + hi)).floor();
        x.clamp(-(i64::MAX as f64) / 4.0, (i64::MAX as f64) / 4.0) as i64
    }

    /// The largest k found with L(k) ≥ ℓ decided (a) and the smallest with L(k) < ℓ decided (b): every
    /// k ≤ a is in {L ≥ ℓ}, every k ≥ b outside it (L is non-increasing); a + 1 = b unless a comparison
    /// stayed undecided. From the guess by doubling steps, then bisection.
    fn cuts(&self, l: &Rational, prec: u32) -> (Cut, Cut) {
        let d = self.delta();
        if self.noise.plateau() {
            // L is constant for k ≥ Δ and for k ≤ −Δ
            if self.above(d, l, prec) == Some(true) {
                return (Cut::PlusInf, Cut::PlusInf);
            }
            if self.above(-d, l, prec) == Some(false) {
                return (Cut::MinusInf, Cut::MinusInf);
            }
        }
        let k0 = self.guess(l.to_f64());
        let a = self.search(k0, l, prec, true);
        let b = self.search(k0, l, prec, false);
        if self.noise.plateau() {
            // a surely-above k ≥ Δ holds the whole upper plateau; a surely-below k ≤ −Δ the lower one
            let a = match a {
                Cut::At(k) if k >= d => Cut::PlusInf,
                c => c,
            };
            let b = match b {
                Cut::At(k) if k <= -d => Cut::MinusInf,
                c => c,
            };
            return (a, b);
        }
        (a, b)
    }

    /// want = true: the largest k with L(k) ≥ ℓ decided; false: the smallest with L(k) < ℓ decided.
    fn search(&self, k0: i64, l: &Rational, prec: u32, want: bool) -> Cut {
        let hit = |k: i64| self.above(k, l, prec) == Some(want);
        // move from k0 towards the side where hits lie until one is found (hits: k small for want = true)
        let toward: i64 = if want { -1 } else { 1 };
        let (mut inside, mut outside);
        if hit(k0) {
            inside = k0;
            // gallop away from the hits to a non-hit
            let mut step: i64 = 1;
            loop {
                let k = inside.saturating_sub(toward.saturating_mul(step));
                if k == inside || step > (1 << 62) {
                    return if want { Cut::PlusInf } else { Cut::MinusInf };
                }
                if hit(k) {
                    inside = k;
                    step = step.saturating_mul(2);
                } else {
                    outside = k;
                    break;
                }
            }
        } else {
            outside = k0;
            let mut step: i64 = 1;
            loop {
                let k = outside.saturating_add(toward.saturating_mul(step));
                if k == outside || step > (1 << 62) {
                    return if want { Cut::MinusInf } else { Cut::PlusInf };
                }
                if hit(k) {
                    inside = k;
                    break;
                }
                outside = k;
                step = step.saturating_mul(2);
            }
        }
        // bisect between inside (hit) and outside (no hit)
        while (i128::from(inside) - i128::from(outside)).abs() > 1 {
            let mid = ((i128::from(inside) + i128::from(outside)) / 2) as i64;
            if hit(mid) {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        Cut::At(inside)
    }

    /// (A[k ≤ c], A[k > c], B[k ≤ c], B[k > c]) at a cut c.
    fn masses(&self, c: Cut, p: u32) -> Fallible<[Interval; 4]> {
        let (zero, one) = (Interval::zero(p), Interval::one(p));
        let k = match c {
            Cut::MinusInf => return Ok([zero.clone(), one.clone(), zero, one]),
            Cut::PlusInf => return Ok([one.clone(), zero.clone(), one, zero]),
            Cut::At(k) => k,
        };
        let d = self.delta();
        let qi = Interval::from_rational(&self.q, p);
        let r = Interval::from_rational(&(Rational::from(1) - self.q.clone()), p);
        let n = &self.noise;
        // P[N ≤ j] = P[N ≥ −j] (symmetry), P[N > j] = P[N ≥ j + 1]
        let le = |j: i64| n.ge(j.saturating_neg(), p);
        let gt = |j: i64| n.ge(j.saturating_add(1), p);
        let mix = |x: Interval, y: Interval| qi.mul(&x).add(&r.mul(&y));
        Ok([
            mix(le(k.saturating_add(d))?, le(k)?),
            mix(gt(k.saturating_add(d))?, gt(k)?),
            mix(le(k.saturating_sub(d))?, le(k)?),
            mix(gt(k.saturating_sub(d))?, gt(k)?),
        ])
    }

    /// ln A[k > x] (above) or ln A[k ≤ x] in f64 (planning).
    fn ln_a_tail_f64(&self, x: f64, above: bool) -> f64 {
        ln_a_tail_f64(|t| self.noise.ln_sf_f64(t), self.delta() as f64, self.q.to_f64(), x, above)
    }
}

impl LossLaw for PoissonReplaceInteger {
    fn spec(&self) -> String {
        format!("{} (replace-one pair)", self.sampled.spec())
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        if let Some(d) = &self.doubled {
            return d.split(dir, l, prec);
        }
        let p = prec + 16;
        let (a, b) = self.cuts(l, p);
        let at_a = self.masses(a, p)?;
        if a == b {
            // an end of ℤ: everything on one side
            let [a_above, a_below, b_above, b_below] = at_a;
            return Ok(Split { a_below, a_above, b_below, b_above });
        }
        let before_b = match b {
            Cut::At(k) => Cut::At(k - 1),
            c => c,
        };
        let [a_above, a_below, b_above, b_below] = if before_b == a {
            at_a
        } else {
            // undecided integers between a and b: on either side
            hull4(&at_a, &self.masses(before_b, p)?)
        };
        Ok(Split { a_below, a_above, b_below, b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, dir: Direction) -> LossRange {
        if let Some(d) = &self.doubled {
            return d.range(dir);
        }
        if !self.noise.plateau() {
            return LossRange { lo: End::Open, hi: End::Open };
        }
        let d = self.delta();
        let at = |k: i64| replace_loss(&self.noise.psi(k), &self.noise.psi(-k), &self.q, 128);
        LossRange { lo: End::Atom(at(d)), hi: End::Atom(at(-d)) }
    }

    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64 {
        if let Some(d) = &self.doubled {
            return d.quantile(dir, ln_p, upper);
        }
        let bound = self.noise.reach_f64() + 2.0 * self.delta() as f64;
        planned_loss(|x, above| self.ln_a_tail_f64(x, above), |x| self.loss_f64(x), bound, ln_p, upper)
    }

    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        replace_shifts(neighbors, &self.sampled.spec())
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        rescaled(&self.sampled, c)
    }

    fn lattice(&self) -> Option<Rational> {
        self.doubled.as_ref().and_then(|d| d.lattice())
    }

    fn lattice_offset(&self) -> Rational {
        self.doubled.as_ref().map(|d| d.lattice_offset()).unwrap_or_else(|| Rational::from(0))
    }
}

#[cfg(test)]
mod tests;
