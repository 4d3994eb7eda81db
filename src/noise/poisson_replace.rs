//! The Poisson-subsampled Gaussian mechanism under replace-one neighbours.
//!
//! Each record enters the sum with probability q; its contribution lies within distance Δ (`mu`, the
//! clipping norm of DP-SGD) of an absent record's, so replacing a record moves the sum by up to 2Δ. With
//! the noise N(0, σ²) and s = Δ/σ, the dominating pair in standard units is dp_accounting's REPLACE pair
//! (`privacy_loss_mechanism.py`, "Support for sub-sampling", adjacency REPLACE)
//!
//!   A = q N(−s, 1) + (1 − q) N(0, 1),    B = q N(s, 1) + (1 − q) N(0, 1),
//!
//! the replaced record's contribution at −Δ, its replacement's at +Δ, the rest of the sum common to both
//! [ZDW22, §5]. Its privacy loss at z, with c = q e^{−s²/2}, r = 1 − q and u = e^{−sz},
//!
//!   L(z) = ln((c u + r)/(c/u + r)),
//!
//! is decreasing in z, so {L ≥ ℓ} = {z ≤ z*} where u* = e^{−s z*} is the positive root of
//! c u² + r(1 − e^ℓ) u − c e^ℓ = 0. The pair is its own mirror (z → −z swaps A and B): one direction.
//! The law depends on s² = 2η only, η = Δ²/(2σ²) the Gaussian's own.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::noise::replace_pair::{ln_a_tail_f64, planned_loss, replace_loss_f64, replace_shifts, rescaled};
use crate::num::special::{normal_cdf, normal_sf, normal_sf_f64};
use crate::num::Interval;
use rug::Rational;
use std::sync::Arc;

/// The replace-one pair of a Poisson-subsampled Gaussian (module doc).
#[derive(Clone, Debug)]
pub struct PoissonReplaceGaussian {
    /// η = Δ²/(2σ²) of the Gaussian
    eta: Rational,
    q: Rational,
    /// the add/remove law's spelling, for the spec
    base_spec: String,
    /// the subsampled mechanism under add/remove, where known (its scaled copies for calibration)
    sampled: Option<Arc<dyn LossLaw>>,
}

impl PoissonReplaceGaussian {
    pub fn new(eta: Rational, q: Rational, base_spec: String) -> Fallible<PoissonReplaceGaussian> {
        if eta <= 0 {
            return crate::fallible!(Input, "the Gaussian's eta must be positive, got {eta}");
        }
        if !(q > 0 && q <= 1) {
            return crate::fallible!(Input, "the sampling probability q must be in (0, 1], got {q}");
        }
        Ok(PoissonReplaceGaussian { eta, q, base_spec, sampled: None })
    }

    /// The pair of `sampled`, the Gaussian with this η run on a Poisson subsample with probability q.
    pub fn of(eta: Rational, q: Rational, sampled: Arc<dyn LossLaw>) -> Fallible<PoissonReplaceGaussian> {
        let mut l = PoissonReplaceGaussian::new(eta, q, sampled.spec())?;
        l.sampled = Some(sampled);
        Ok(l)
    }

    /// s = √(2η), enclosed.
    fn s(&self, p: u32) -> Interval {
        Interval::from_rational(&(self.eta.clone() * 2u32), p).sqrt()
    }

    /// z* with L(z*) = ℓ (module doc), enclosed; the root in its cancellation-free form on each side of 0.
    fn z_star(&self, l: &Rational, p: u32) -> Interval {
        let s = self.s(p);
        let one = Interval::one(p);
        let e = Interval::from_rational(l, p).exp();
        let c = Interval::from_rational(&self.q, p).mul(&Interval::from_rational(&self.eta, p).neg().exp());
        let r = Interval::from_rational(&(Rational::from(1) - self.q.clone()), p);
        // b = r(1 − e^ℓ); disc = b² + 4c²e^ℓ
        let b = r.mul(&one.sub(&e));
        let disc = b.mul(&b).add(&c.mul(&c).mul(&e).mul_rational(&Rational::from(4))).sqrt();
        let two_c = c.mul_rational(&Rational::from(2));
        let u = if *l >= 0 {
            // −b ≥ 0: (−b + √disc)/(2c), no cancellation
            b.neg().add(&disc).div(&two_c)
        } else {
            // b > 0: the product of the roots is −e^ℓ, so u = 2c e^ℓ/(b + √disc)
            two_c.mul(&e).div(&b.add(&disc))
        };
        u.ln().neg().div(&s)
    }

    fn loss_f64(&self, z: f64) -> f64 {
        let s = (2.0 * self.eta.to_f64()).sqrt();
        // ψ(z) = ln φ(z + s) − ln φ(z) = −sz − s²/2 (module doc: c = q e^{−s²/2})
        let psi = |z: f64| -s * z - self.eta.to_f64();
        replace_loss_f64(psi(z), psi(-z), self.q.to_f64())
    }

    /// ln A[z > x] (above) or ln A[z ≤ x], f64 (planning).
    fn ln_a_tail_f64(&self, x: f64, above: bool) -> f64 {
        let s = (2.0 * self.eta.to_f64()).sqrt();
        // A[z > x] = q Φ̄(x + s) + (1 − q) Φ̄(x); A[z ≤ x] = q Φ̄(−x − s) + (1 − q) Φ̄(−x)
        ln_a_tail_f64(|t| normal_sf_f64(t).ln(), s, self.q.to_f64(), x, above)
    }
}

impl LossLaw for PoissonReplaceGaussian {
    fn spec(&self) -> String {
        format!("{} (replace-one pair)", self.base_spec)
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// Its moment generating function by certified quadrature (`noise::mgf_replace`); at q = 1 the pair is
    /// N(−s, 1) against N(s, 1), a Gaussian loss with mean 2s² = 4η.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        Some(if self.q < 1 {
            crate::noise::mgf::Mgf::PoissonReplace { q: self.q.clone(), eta: self.eta.clone() }
        } else {
            crate::noise::mgf::Mgf::Gaussian { eta: self.eta.clone() * 4u32 }
        })
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let z = self.z_star(l, prec);
        let s = self.s(prec);
        let q = Interval::from_rational(&self.q, prec);
        let r = Interval::from_rational(&(Rational::from(1) - self.q.clone()), prec);
        let mix = |a: Interval, b: Interval| q.mul(&a).add(&r.mul(&b));
        // {L ≥ ℓ} = {z ≤ z*}: under A the shifted part is N(−s, 1), so z ≤ z* is z + s ≤ z* + s
        let (za, zb) = (z.add(&s), z.sub(&s));
        Ok(Split {
            a_above: mix(normal_cdf(&za), normal_cdf(&z)),
            a_below: mix(normal_sf(&za), normal_sf(&z)),
            b_above: mix(normal_cdf(&zb), normal_cdf(&z)),
            b_below: mix(normal_sf(&zb), normal_sf(&z)),
        })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        LossRange { lo: End::Open, hi: End::Open }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let bound = 40.0 + 2.0 * (2.0 * self.eta.to_f64()).sqrt();
        planned_loss(|x, above| self.ln_a_tail_f64(x, above), |x| self.loss_f64(x), bound, ln_p, upper)
    }

    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        replace_shifts(neighbors, &self.base_spec)
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        rescaled(self.sampled.as_ref()?, c)
    }
}

#[cfg(test)]
mod tests;
