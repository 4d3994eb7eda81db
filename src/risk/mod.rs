//! Bayesian disclosure risk of noisy (hierarchical) counts — Kazan & Reiter,
//! `[KR22]` (KR below), on the certified discrete Gaussian core.
//!
//! Conventions (KR §2.2, eq. 2.1): KR's DG(μ, 1/(2ρ)) has pmf ∝ exp(−ρ(x − μ)²), i.e. it is
//! N_Z(μ, σ²) with σ² = 1/(2ρ). KR plug in the zCDP budget of the query, ρ = ρ_total·β_level·α_query.
//! The TopDown production code draws N_Z(0, 1/ρ_query) (the "replace" neighbour relation, L2² sensitivity 2),
//! so KR's model has twice the precision of the noise actually released; [`production_rho`] converts.
//!
//! Modules:
//! * [`single`] — one level: posterior (3.1), R′ (3.2), marginal posterior and risk (3.3)–(3.4) with
//!   certified truncation, Bayes decision and P(correct) (3.5)–(3.6); several levels with a target known
//!   to be unique (S1.1); sequential releases (S5.8).
//! * [`hier`] — two levels (§3.2, S3): priors of S4, the exact posterior by enumeration (certified), the
//!   stationary law of the Gibbs sampler (both the correct one and the one that reproduces the paper's
//!   Tables 7/8), and a seeded Monte Carlo Gibbs sampler.
//! * [`decisions`] — decision maps and P(correct decision) over the noisy data by exact enumeration
//!   (Figures 4–6, S4).
//! * [`postproc`] — the block-level least-squares post-processing of S6 and its risk (Figure 12).
//! * [`paper`] — the paper's constants (Table 2, Table 3) and tables 2, 4, 5, 7, 8 as records.
//! * [`figures`] — CSV data for Figures 1, 2, 3, 4, 5, 6, 7, 12.
//!
//! Tie rule (documented in docs/risk-findings.md): the adversary decides X̂₁ = m+1 only when
//! P[X₁ = m+1 | D] > 1/2 strictly (KR eq. 3.6); an exact tie goes to m = x_{1,−t}. Ties are detected
//! exactly: in rational arithmetic (by Lindemann–Weierstrass, Σ cᵢ e^{aᵢ} = 0 with rational cᵢ, aᵢ
//! holds iff the coefficients of each distinct exponent cancel), or, for infinite sums, by certified
//! interval arithmetic at increasing precision.
use crate::error::Fallible;
use crate::fallible;

pub mod decisions;
pub mod figures;
pub mod hier;
pub mod paper;
pub(crate) mod postproc;
pub mod single;

use rug::Rational;

/// Validate an adversary prior p ∈ (0, 1).
pub fn check_p(p: &Rational) -> Fallible<()> {
    if *p <= 0 || *p >= 1 {
        return fallible!(Input, "prior p must be in (0, 1), got {p}");
    }
    Ok(())
}

/// Smallest and largest KR ρ accepted: noise variance 1/(2ρ) from 5e-7 to 5e7. Below, the certified
/// tables of the noise law need more than ~10⁵ entries per unit of ρ^{-1/2} (ρ = 1e-8 already takes
/// ~7 s); above, the likelihoods e^{−ρ k²} underflow every precision for k ≠ 0 and evaluating them
/// exactly takes minutes (ρ = 1e10: 16 s) while the answer is the noiseless one.
pub const RHO_MIN: f64 = 1e-8;
pub const RHO_MAX: f64 = 1e6;

/// Largest |count| accepted for a known count m or a released noisy count: far above any Census
/// count, and small enough that sums and squares of a few of them stay exact in i64/i128.
pub const COUNT_MAX: i64 = 1_000_000_000_000;

/// Validate a privacy parameter ρ ∈ [RHO_MIN, RHO_MAX].
pub fn check_rho(rho: &Rational, what: &str) -> Fallible<()> {
    if *rho <= 0 {
        return fallible!(Input, "{what} must be positive, got {rho}");
    }
    let r = rho.to_f64();
    if !(RHO_MIN..=RHO_MAX).contains(&r) {
        return fallible!(
            Input,
            "{what} = {r:.3e} is outside the supported range [{RHO_MIN:e}, {RHO_MAX:e}] (noise variance 1/(2{what}) from 5e-7 to 5e7)"
        );
    }
    Ok(())
}

/// Validate a count (known count m ≥ 0 when `nonneg`, or a released noisy count): |x| ≤ COUNT_MAX.
pub fn check_count(x: i64, what: &str, nonneg: bool) -> Fallible<()> {
    if nonneg && x < 0 {
        return fallible!(Input, "{what} is a count and must be non-negative, got {x}");
    }
    if x.unsigned_abs() > COUNT_MAX as u64 {
        return fallible!(Input, "{what} = {x} is beyond the supported range of counts (|x| <= {COUNT_MAX})");
    }
    Ok(())
}

/// Deterministic pseudo-random numbers for the Monte Carlo modes: the one RNG stack of the crate
/// (`noise::sampler::NoiseSource`, ChaCha20 keyed by the seed), read as uniforms.
#[derive(Clone, Debug)]
pub struct Rng {
    inner: rand_chacha::ChaCha20Rng,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { inner: crate::noise::sampler::NoiseSource::seeded(seed).rng }
    }

    pub fn next_u64(&mut self) -> u64 {
        rand_core::RngCore::next_u64(&mut self.inner)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// f64 pmf of KR's DG(0, 1/(2ρ)) on [−K, K] (weights below 1e-20 of the mode dropped); for screening and
/// plotting sweeps only. Returns (K, pmf) with pmf[k + K] = P[η = k].
pub fn dg_pmf_f64(rho: f64) -> (i64, Vec<f64>) {
    let k = ((46.0 / rho).sqrt().ceil() as i64).max(1);
    let mut w: Vec<f64> = (-k..=k).map(|i| (-rho * (i * i) as f64).exp()).collect();
    let z: f64 = w.iter().sum();
    for x in w.iter_mut() {
        *x /= z;
    }
    (k, w)
}

/// f64 pmf of the sum of d i.i.d. DG(0, 1/(2ρ)) by exact convolution (entries below 1e-300 dropped
/// during the convolution, below 1e-22 of the mode at the end).
/// Returns (offset, pmf) with pmf[i] = P[S = i + offset].
pub fn dg_sum_pmf_f64(rho: f64, d: u32) -> (i64, Vec<f64>) {
    let (k, base) = dg_pmf_f64(rho);
    let mut off = 0i64;
    let mut cur = vec![1.0f64];
    for _ in 0..d {
        let mut next = vec![0.0f64; cur.len() + base.len() - 1];
        for (i, a) in cur.iter().enumerate() {
            if *a == 0.0 {
                continue;
            }
            for (j, b) in base.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        off -= k;
        // trim negligible ends
        let first = next.iter().position(|x| *x > 1e-300).unwrap_or(0);
        let last = next.iter().rposition(|x| *x > 1e-300).unwrap_or(next.len() - 1);
        cur = next[first..=last].to_vec();
        off += first as i64;
    }
    let mx = cur.iter().cloned().fold(0.0f64, f64::max);
    let first = cur.iter().position(|x| *x > 1e-22 * mx).unwrap_or(0);
    let last = cur.iter().rposition(|x| *x > 1e-22 * mx).unwrap_or(cur.len() - 1);
    (off + first as i64, cur[first..=last].to_vec())
}

/// log(Σ exp(xᵢ)) in f64, −∞ for an empty slice.
pub fn logsumexp(xs: &[f64]) -> f64 {
    let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_rng_is_deterministic_and_uniform() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<f64> = (0..10000).map(|_| a.uniform()).collect();
        let ys: Vec<f64> = (0..10000).map(|_| b.uniform()).collect();
        assert_eq!(xs, ys);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.02);
    }

    #[test]
    fn risk_sum_pmf_is_a_pmf() {
        let (off, p) = dg_sum_pmf_f64(0.099, 27);
        let s: f64 = p.iter().sum();
        assert!((s - 1.0).abs() < 1e-12);
        let mean: f64 = p.iter().enumerate().map(|(i, x)| (i as i64 + off) as f64 * x).sum();
        assert!(mean.abs() < 1e-10);
        let var: f64 = p.iter().enumerate().map(|(i, x)| ((i as i64 + off) as f64).powi(2) * x).sum();
        assert!((var - 27.0 / (2.0 * 0.099)).abs() < 1e-6, "{var}");
    }
}
