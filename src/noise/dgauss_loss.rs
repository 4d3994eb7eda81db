//! The discrete Gaussian mechanism as a privacy-loss law (`noise::loss::LossLaw`): q(D) + N_Z(0, σ²) for
//! an integer query of integer sensitivity μ, so that it composes with any other law on the pld grid.
//!
//! The `Remove` pair is A = N_Z(0, σ²), B = N_Z(μ, σ²) (the `Add` pair is its mirror image x ↦ μ − x and
//! has the same law of L: the law is symmetric). With η = μ²/(2σ²) and s = μ/σ² the privacy loss is
//!
//!   L(x) = ln(A(x)/B(x)) = ((x − μ)² − x²)/(2σ²) = η − s·x,     x ∈ ℤ,                         (1)
//!
//! so every loss lies on the lattice η + sℤ, and with X ~ N_Z(0, σ²) (under B, x = μ + X, L = −η − sX):
//!
//!   A[L < ℓ] = P[X > (η − ℓ)/s],     A[L ≥ ℓ] = P[X ≤ (η − ℓ)/s],
//!   B[L < ℓ] = P[X > (−η − ℓ)/s],    B[L ≥ ℓ] = P[X ≤ (−η − ℓ)/s],                             (2)
//!
//! each from the certified tails of `noise::dgauss` (P[X ≤ t] = P[X > −⌊t⌋ − 1] by symmetry, so both
//! sides are summed directly, the small one without cancellation). One release is η-zCDP [CKS20, Thm 4].

use crate::error::Fallible;
use crate::noise::dgauss::DiscreteGaussian;
use crate::noise::gauss_terms::gauss_tail_upper;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Integer, Rational};
use std::sync::{Arc, Mutex};

/// Largest truncation radius of the tail table (weights summed term by term): σ² up to about 5·10⁹.
const MAX_RADIUS: usize = 1 << 20;

/// The tails P[X ≥ m], m = 1, …, K, and the normaliser, at one precision.
type Tails = (u32, Arc<(Vec<Interval>, Interval)>);

/// The discrete Gaussian mechanism N_Z(0, σ²) on an integer query of sensitivity μ.
#[derive(Debug)]
pub struct DiscreteGaussianLoss {
    dg: DiscreteGaussian,
    mu: u32,
    /// the tail table of the last precision asked (a discretisation asks thousands of splits at one)
    cache: Mutex<Option<Tails>>,
}

impl Clone for DiscreteGaussianLoss {
    fn clone(&self) -> Self {
        DiscreteGaussianLoss { dg: self.dg.clone(), mu: self.mu, cache: Mutex::new(None) }
    }
}

impl DiscreteGaussianLoss {
    /// σ² > 0 exact, μ ≥ 1.
    pub fn new(sigma2: Rational, mu: u32) -> Fallible<DiscreteGaussianLoss> {
        if mu == 0 {
            return crate::fallible!(Input, "the sensitivity must be at least 1");
        }
        Ok(DiscreteGaussianLoss { dg: DiscreteGaussian::new(sigma2)?, mu, cache: Mutex::new(None) })
    }

    /// η = μ²/(2σ²).
    pub fn eta(&self) -> Rational {
        let mu = Rational::from(self.mu);
        Rational::from(&mu * &mu) / (Rational::from(2) * self.dg.sigma2.clone())
    }

    /// s = μ/σ², the lattice step of the losses (1).
    pub fn step(&self) -> Rational {
        Rational::from(self.mu) / self.dg.sigma2.clone()
    }

    /// The table of `DiscreteGaussian::tails_ge_table` at `prec`, built once per precision.
    fn table(&self, prec: u32) -> Fallible<Arc<(Vec<Interval>, Interval)>> {
        let r = self.dg.radius(prec + 16) + 2;
        if r > MAX_RADIUS {
            return crate::fallible!(
                Resource,
                "the discrete Gaussian with sigma2 = {} is too wide for its loss-law tails (summed term by term to a radius of {r} > {MAX_RADIUS})",
                crate::num::format::fmt_rational(&self.dg.sigma2)
            );
        }
        let mut c = self.cache.lock().map_err(|_| crate::err!(Internal, "the discrete Gaussian tail cache is poisoned"))?;
        if let Some((p, t)) = c.as_ref() {
            if *p == prec {
                return Ok(t.clone());
            }
        }
        let t = Arc::new(self.dg.tails_ge_table(prec));
        *c = Some((prec, t.clone()));
        Ok(t)
    }

    /// P[X > t] for each threshold t, certified at `prec` bits: with m = ⌊t⌋ + 1, P[X ≥ m] from the tail
    /// table for 1 ≤ m ≤ K, 1 − P[X ≥ 1 − m] for −K < m ≤ 0 (symmetry), and beyond the table from the
    /// Gaussian tail bound 0 ≤ P[X ≥ m] ≤ Σ_{x ≥ m} e^{−x²/(2σ²)} / Z (`gauss_tail_upper`).
    fn tails_gt(&self, ts: &[Rational], prec: u32) -> Fallible<Vec<Interval>> {
        let t = self.table(prec)?;
        let (tab, z) = (&t.0, &t.1);
        let k = tab.len() as i64;
        let p = z.prec();
        // P[X ≥ j] for j ≥ 1
        let ge = |j: &Integer| -> Interval {
            match j.to_i64() {
                Some(j) if j <= k => tab[(j - 1) as usize].clone(),
                _ => {
                    let j = j.to_u64().unwrap_or(u64::MAX);
                    let bound = Interval::new(Float::with_val(p, 0), gauss_tail_upper(&self.dg.sigma2, j, p)).div(z);
                    round(&Interval::new(Float::with_val(p, 0), bound.into_parts().1), prec)
                }
            }
        };
        Ok(ts
            .iter()
            .map(|t| {
                let m = Integer::from(t.floor_ref()) + 1u32;
                if m >= 1 {
                    ge(&m)
                } else {
                    round(&Interval::one(p).sub(&ge(&(Integer::from(1) - m))), prec)
                }
            })
            .collect())
    }
}

/// θ(s)/θ(0) for θ(s) = Σ_{x∈ℤ} e^{−(x − s)²/(2σ²)}, certified: Σ_x p(x)^α q(x)^{1−α} for the discrete
/// Gaussians p centred at 0 and q at μ is e^{α(α−1)η} θ((1 − α)μ)/θ(0) (complete the square in x), and by
/// Poisson summation θ(s)/θ(0) = (1 + 2 Σ_{k≥1} r^{k²} cos 2πks)/(1 + 2 Σ_{k≥1} r^{k²}), r = e^{−2π²σ²},
/// with the terms beyond K at most 2r^{(K+1)²}/(1 − r^{2K+3}) in absolute value. None for σ² < 1/10⁴
/// (hundreds of terms; no such noise is deployed).
fn renyi_theta_ratio(sigma2: &Rational, shift: &Rational, prec: u32) -> Option<Interval> {
    if *sigma2 < (1, 10_000) {
        return None;
    }
    let p = prec + 32;
    let two_pi = Interval::pi(p).mul(&Interval::from_i64(2, p));
    let ln_r = two_pi.mul(&Interval::pi(p)).mul(&Interval::from_rational(sigma2, p)).neg();
    // K with r^{(K+1)²} below 2^{−p}
    let k_max =
        ((f64::from(p) * std::f64::consts::LN_2 / (2.0 * std::f64::consts::PI.powi(2) * sigma2.to_f64())).sqrt().ceil() as i64).max(1);
    let s = Interval::from_rational(shift, p);
    let (mut num, mut den) = (Interval::one(p), Interval::one(p));
    for k in 1..=k_max {
        let w = ln_r.mul(&Interval::from_i64(k * k, p)).exp().mul(&Interval::from_i64(2, p));
        num = num.add(&w.mul(&two_pi.mul(&s).mul(&Interval::from_i64(k, p)).cos()));
        den = den.add(&w);
    }
    let k1 = Interval::from_i64(k_max + 1, p);
    let tail = ln_r.mul(&k1.mul(&k1)).exp().mul(&Interval::from_i64(2, p));
    let tail = tail.div(&Interval::one(p).sub(&ln_r.mul(&Interval::from_i64(2 * k_max + 3, p)).exp()));
    let t = tail.hi().clone();
    let num = num.widen(&t);
    let den = Interval::new(den.lo().clone(), Float::with_val_round(p, den.hi() + &t, Round::Up).0);
    Some(round(&num.div(&den), prec))
}

fn round(x: &Interval, prec: u32) -> Interval {
    crate::noise::dgauss::round_to(x, prec)
}

impl LossLaw for DiscreteGaussianLoss {
    fn spec(&self) -> String {
        format!("dgauss:sigma2={},mu={}", crate::num::format::fmt_rational(&self.dg.sigma2), self.mu)
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// M(z) = E_A[e^{zL}] on vertical lines by its direct sum (`noise::mgf_dgauss`).
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        Some(crate::noise::mgf::Mgf::DiscreteGaussian { sigma2: self.dg.sigma2.clone(), mu: self.mu })
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let (eta, s) = (self.eta(), self.step());
        // (2): thresholds of X for A (η − ℓ)/s and B (−η − ℓ)/s, and their reflections −⌊t⌋ − 1
        let ta = (eta.clone() - l.clone()) / s.clone();
        let tb = (-eta - l.clone()) / s;
        let refl = |t: &Rational| -> Rational { -Rational::from(Integer::from(t.floor_ref())) - 1u32 };
        let v = self.tails_gt(&[ta.clone(), refl(&ta), tb.clone(), refl(&tb)], prec)?;
        let [a_below, a_above, b_below, b_above]: [Interval; 4] =
            v.try_into().map_err(|_| crate::err!(Internal, "four discrete Gaussian tails expected"))?;
        Ok(Split { a_below, a_above, b_below, b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        LossRange { lo: End::Open, hi: End::Open }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        // planning: X ≈ N(0, σ²); A[L ≥ ℓ] = P[X ≤ (η − ℓ)/s] ≈ p at ℓ = η + sσz, A[L < ℓ] ≈ p at η − sσz
        let (eta, s, sigma) = (self.eta().to_f64(), self.step().to_f64(), self.dg.sigma2.to_f64().sqrt());
        let z = crate::noise::gauss::normal_quantile_f64(ln_p);
        if upper {
            eta + s * sigma * z
        } else {
            eta - s * sigma * z
        }
    }

    /// D_α = αη + ln(θ((1 − α)μ)/θ(0))/(α − 1) (`renyi_theta_ratio`).
    fn renyi(&self, _dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        let am1 = alpha.clone() - 1u32;
        let shift = am1.clone() * Rational::from(self.mu);
        let base = Interval::from_rational(&(self.eta() * alpha.clone()), prec);
        // an integer shift: θ is 1-periodic, the ratio is 1 and D_α = αη exactly
        if *shift.denom() == 1u32 {
            return Some(Ok(base));
        }
        let ratio = renyi_theta_ratio(&self.dg.sigma2, &shift, prec)?;
        Some(Ok(base.add(&ratio.ln().div(&Interval::from_rational(&am1, prec)))))
    }

    /// [CKS20, Thm 4]: μ²/(2σ²).
    fn rho(&self) -> Option<Rational> {
        Some(self.eta())
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        Some(DiscreteGaussianLoss::new(self.dg.sigma2.clone() * c.clone(), self.mu).map(|g| Arc::new(g) as Arc<dyn LossLaw>))
    }

    fn lattice(&self) -> Option<Rational> {
        Some(self.step())
    }

    fn lattice_offset(&self) -> Rational {
        self.eta()
    }
}

#[cfg(test)]
pub(crate) mod tests;
