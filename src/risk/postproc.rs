//! Post-processing (KR supplement S6): block-level least squares and its effect on the risk (Figure 12).
//!
//! Given the post-processed parent count x̃₂ (taken as fixed), the block counts are fitted by least
//! squares under x̃₂ = x̃₁ + Σ ỹ₁⁽ⁱ⁾ (S6.1); the block estimate is x̄₁ = (d x₁* + (x̃₂ − y₁*))/(d+1) (S6.2),
//! clamped to [0, x̃₂] and rounded to the nearest integer (S6.3). The paper does not say how halves are
//! rounded; x̄₁ has denominator d+1 (= 28 in the application), so halves occur — we round half up
//! (⌊x̄₁ + 1/2⌋), computed exactly in integers.
//!
//! The adversary knows x₂ exactly and uses approximation (3.7) for Y₁* (as S6 assumes), m = x_{1,−t} = 0:
//! X₁* ~ DG(k₁, 1/(2ρ₁)), Y₁* ~ DG(x₂ − k₁, d/(2ρ₁)). Likelihood (S6.6) by enumeration over (x₁*, y₁*),
//! posterior (S6.7), marginal (S6.8). f64 (figure data).

use crate::error::Fallible;
use crate::fallible;
use crate::risk::dg_pmf_f64;

/// f(x₁*, y₁*, x̃₂) of (S6.3).
pub fn block_estimate(x1s: i64, y1s: i64, x2t: i64, d: u32) -> i64 {
    // i128: d·x₁* and x̃₂·(d+1) stay exact for every i64 input.
    let den = d as i128 + 1;
    let n = d as i128 * x1s as i128 + (x2t as i128 - y1s as i128); // x̄₁ = n/den
    if n < 0 {
        0
    } else if n > x2t as i128 * den {
        x2t
    } else {
        (2 * n + den).div_euclid(2 * den) as i64
    }
}

/// Marginal posterior and risk with and without post-processing.
#[derive(Clone, Debug)]
pub struct PostProcRisk {
    /// (S6.8): Σ_{x̃₁} P[X₁ = 1 | x̃₁, x̃₂] P[x̃₁ | x₁ = 1, x̃₂]
    pub marginal_pp: f64,
    /// the same from (x₁*, y₁*) without post-processing (the adversary knows x₂) — an upper bound
    pub marginal_raw: f64,
    /// KR (3.3) from x₁* alone
    pub marginal_single: f64,
    pub p: f64,
}

impl PostProcRisk {
    pub fn risk_pp(&self) -> f64 {
        self.marginal_pp / self.p
    }
    pub fn risk_raw(&self) -> f64 {
        self.marginal_raw / self.p
    }
    pub fn risk_single(&self) -> f64 {
        self.marginal_single / self.p
    }
}

/// Risk of the post-processed release for the truth x₁ = 1, known x₂, fixed x̃₂.
pub fn postproc_risk(p: f64, rho1: f64, d: u32, x2: i64, x2t: i64) -> Fallible<PostProcRisk> {
    if !(p > 0.0 && p < 1.0) {
        return fallible!(Input, "prior p must be in (0, 1), got {p}");
    }
    if !(rho1 > 0.0) {
        return fallible!(Input, "rho1 must be positive");
    }
    if d < 1 {
        return fallible!(Input, "d must be at least 1");
    }
    if x2 < 1 || x2t < 0 {
        return fallible!(Input, "need x2 >= 1 (the target is counted) and x2tilde >= 0");
    }
    crate::risk::check_count(x2, "x2", true)?;
    crate::risk::check_count(x2t, "x2tilde", true)?;
    let (k1r, p1) = dg_pmf_f64(rho1);
    let (kyr, py) = dg_pmf_f64(rho1 / d as f64);
    let lo = (p / (1.0 - p)).ln();
    let rd = rho1 / d as f64;
    // L[x̃₁] = [L(k₁ = 0), L(k₁ = 1)], only at the reachable x̃₁ (at most |pmf₁|·|pmf_y| of them, however
    // large x̃₂ is), in increasing x̃₁ as the sum below needs.
    let mut lik: std::collections::BTreeMap<i64, [f64; 2]> = std::collections::BTreeMap::new();
    let mut raw = 0.0;
    for k1 in 0..2i64 {
        for (i, w1) in p1.iter().enumerate() {
            let x1s = k1 + i as i64 - k1r;
            for (j, wy) in py.iter().enumerate() {
                let y1s = (x2 - k1) + j as i64 - kyr;
                let w = w1 * wy;
                lik.entry(block_estimate(x1s, y1s, x2t, d)).or_insert([0.0; 2])[k1 as usize] += w;
                if k1 == 1 {
                    let l = lo + rho1 * (2 * x1s - 1) as f64 - rd * (2 * (y1s - x2) + 1) as f64;
                    raw += w / (1.0 + (-l).exp());
                }
            }
        }
    }
    let mut pp = 0.0;
    for l in lik.values() {
        let (a, b) = (l[1], l[0]);
        if a > 0.0 {
            pp += p * a / (p * a + (1.0 - p) * b) * a;
        }
    }
    let single: f64 = p1
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let x1s = 1 + i as i64 - k1r;
            w / (1.0 + (-(lo + rho1 * (2 * x1s - 1) as f64)).exp())
        })
        .sum();
    Ok(PostProcRisk { marginal_pp: pp, marginal_raw: raw, marginal_single: single, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_postproc_rounding_and_bounds() {
        // x̄₁ = (27·1 + 1 − 0)/28 = 1
        assert_eq!(block_estimate(1, 0, 1, 27), 1);
        // half: n = 14, den = 28 → 0.5 → 1 (half up)
        assert_eq!(block_estimate(0, -13, 1, 27), 1);
        assert_eq!(block_estimate(-5, 0, 1, 27), 0);
        assert_eq!(block_estimate(9, 0, 3, 27), 3);
        for x2t in [1, 10, 100] {
            let r = postproc_risk(0.5, 0.0992263542254750, 27, 1, x2t).unwrap();
            // data processing: post-processed risk ≤ raw risk
            assert!(r.marginal_pp <= r.marginal_raw + 1e-12, "{r:?}");
            assert!(r.marginal_pp >= 0.5 - 1e-12);
        }
    }
}
