//! Figure 9 of [SSW24, §3.4.2]: distortion of a downstream regression.
//!
//! Per geographic level, the paper fits y = βx + α by least squares across areas, y = median earnings
//! and x = the proportion with a bachelor's degree or higher; it then adds N_Z(0, σ²) to each of the six
//! education counts of every area, applies max(0, ·), recomputes x from the noisy counts, refits, and
//! reports MAE = (1/K) Σ_k |β̂_σ⁽ᵏ⁾ − β̂| (eq. 3.1) for the Bureau's σ² and the reduced σ² of Table 1,
//! and the relative improvement 1 − MAE_reduced / MAE_Bureau (60.57% at the state level, K = 3).
//!
//! Choices where the paper is silent (stated in the output and the README):
//! * x is the share of the *six categories' total* (the population 25+), in percent, so β̂ is in dollars
//!   of median earnings per percentage point; the relative improvement does not depend on the unit.
//! * Median earnings are not noised (the paper noises only the education counts).
//! * An area whose six noisy counts are all 0 has no x in that trial and leaves the fit (counted).
//! * Bureau and reduced trials use independent noise.
//!
//! Next to the simulation, the first-order (delta-method) value: β̂ is a smooth function of the counts,
//! β̂_σ − β̂ ≈ Σ_ij g_ij X_ij with g_ij = ∂β̂/∂c_ij, so E|β̂_σ − β̂| ≈ √(2/π) · √(Var X · Σ g_ij²) —
//! proportional to σ, i.e. an expected improvement of 1 − √(Var_reduced/Var_Bureau) (7.84% for the state
//! level's 5.00 → 4.25) wherever counts are large enough for max(0, ·) never to bind.
//! With ∂β̂/∂x_i = ((y_i − ȳ) − 2β̂(x_i − x̄))/S_xx and x_i = 100 c_i6/S_i:
//! Σ_j (∂x_i/∂c_ij)² = 100² ((1 − x_i/100)² + 5 (x_i/100)²) / S_i².

use crate::accuracy::counts::chunk_rng;
use crate::accuracy::noise::{AliasDg, DgTable, Draw};
use crate::accuracy::{mean_se, table1_sigma2, Allocation};
use crate::data::acs::{AcsArea, AcsGeo, AcsLevel};
use crate::err;
use crate::error::Fallible;
use crate::fallible;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use rayon::prelude::*;
use rug::Rational;

/// Least-squares slope of y on x with an intercept (two-pass, centred); None if x is constant or n < 2.
pub fn ols_slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || y.len() != n {
        return None;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for i in 0..n {
        let dx = x[i] - mx;
        sxx += dx * dx;
        sxy += dx * (y[i] - my);
    }
    if sxx > 0.0 {
        Some(sxy / sxx)
    } else {
        None
    }
}

/// Percent with a bachelor's degree or higher among the six categories (None if they sum to 0).
pub fn share_pct(c: &[u64; 6]) -> Option<f64> {
    let s: u64 = c.iter().sum();
    (s > 0).then(|| 100.0 * c[5] as f64 / s as f64)
}

pub fn true_slope(areas: &[AcsArea]) -> Option<f64> {
    let x: Vec<f64> = areas.iter().map(|a| share_pct(&a.counts).unwrap_or(f64::NAN)).collect();
    let y: Vec<f64> = areas.iter().map(|a| a.earnings).collect();
    ols_slope(&x, &y)
}

/// One noisy release: every count gets a draw, then max(0, ·); returns (slope, areas left out).
pub fn noisy_slope<D: Draw, R: rand_chacha::rand_core::RngCore>(areas: &[AcsArea], d: &D, rng: &mut R) -> (Option<f64>, usize) {
    let mut x = Vec::with_capacity(areas.len());
    let mut y = Vec::with_capacity(areas.len());
    let mut dropped = 0;
    for a in areas {
        let mut c = [0u64; 6];
        for j in 0..6 {
            c[j] = (a.counts[j] as i64 + d.draw(rng)).max(0) as u64;
        }
        match share_pct(&c) {
            Some(s) => {
                x.push(s);
                y.push(a.earnings);
            }
            None => dropped += 1,
        }
    }
    (ols_slope(&x, &y), dropped)
}

/// First-order E|β̂_σ − β̂| for noise variance `var` (module doc).
pub fn linear_mae(areas: &[AcsArea], var: f64) -> f64 {
    let n = areas.len() as f64;
    let x: Vec<f64> = areas.iter().map(|a| share_pct(&a.counts).unwrap_or(f64::NAN)).collect();
    let y: Vec<f64> = areas.iter().map(|a| a.earnings).collect();
    let Some(beta) = ols_slope(&x, &y) else { return f64::NAN };
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|v| (v - mx) * (v - mx)).sum();
    let mut g2 = 0.0;
    for (i, a) in areas.iter().enumerate() {
        let db_dx = ((y[i] - my) - 2.0 * beta * (x[i] - mx)) / sxx;
        let s = a.counts.iter().sum::<u64>() as f64;
        let p = x[i] / 100.0;
        let dx2 = 1e4 * ((1.0 - p).powi(2) + 5.0 * p * p) / (s * s);
        g2 += db_dx * db_dx * dx2;
    }
    (2.0 / std::f64::consts::PI).sqrt() * (var * g2).sqrt()
}

#[derive(Clone, Debug)]
pub struct NoiseRun {
    pub sigma2: Rational,
    pub sampler_tv: f64,
    /// β̂_σ − β̂ per trial (None: the noisy fit was undefined)
    pub deltas: Vec<Option<f64>>,
    /// mean number of areas left out per trial (all six noisy counts 0)
    pub dropped_mean: f64,
    pub mae: f64,
    pub mae_se: Option<f64>,
    pub linear: f64,
}

#[derive(Clone, Debug)]
pub struct LevelFit {
    pub geo: AcsGeo,
    pub table1_level: String,
    pub layout: &'static str,
    pub areas: usize,
    pub missing: usize,
    pub zero_population: usize,
    pub coded: usize,
    pub beta: f64,
    pub trials: usize,
    /// [Bureau, reduced]
    pub runs: Vec<NoiseRun>,
    /// batch size and the 5%, 50%, 95% points of the improvement of batches of that many trials
    pub batch: usize,
    pub batch_quantiles: Option<[f64; 3]>,
}

pub struct RegressionOptions<'a> {
    pub trials: usize,
    pub batch: usize,
    pub exact_sampler: bool,
    pub source: &'a NoiseSource,
    pub delta: Rational,
    pub map: Vec<(String, String)>,
}

pub fn allocation_level(geo: AcsGeo, map: &[(String, String)]) -> Fallible<String> {
    for (k, v) in map {
        if AcsGeo::parse(k)? == geo {
            return Ok(v.clone());
        }
    }
    Ok(geo.table1_level().to_string())
}

fn run_trials<D: Draw>(areas: &[AcsArea], d: &D, beta: f64, trials: usize, src: &NoiseSource, stream: u64) -> Vec<(Option<f64>, usize)> {
    (0..trials)
        .into_par_iter()
        .map(|k| {
            let mut rng = chunk_rng(src, (stream << 32) | k as u64);
            let (b, dropped) = noisy_slope(areas, d, &mut rng);
            (b.map(|b| b - beta), dropped)
        })
        .collect()
}

/// Nearest-rank quantiles of a sample.
fn quantiles(mut v: Vec<f64>, qs: [f64; 3]) -> [f64; 3] {
    v.sort_by(|a, b| a.partial_cmp(b).expect("invariant: finite values (no NaN)"));
    qs.map(|q| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1])
}

pub fn study(levels: &[AcsLevel], alloc: &Allocation, opt: &RegressionOptions) -> Fallible<Vec<LevelFit>> {
    if opt.trials == 0 {
        return fallible!(Input, "--trials must be at least 1");
    }
    let mut out = Vec::new();
    for lv in levels {
        let level = allocation_level(lv.geo, &opt.map)?;
        let beta = true_slope(&lv.areas).ok_or_else(|| {
            err!(Input, "{}: the regression is undefined ({} areas with data, constant share)", lv.geo.name(), lv.areas.len())
        })?;
        let (sb, sr) = table1_sigma2(alloc, &level, &opt.delta)?;
        let mut runs = Vec::new();
        for (ni, (_, s2)) in [("Bureau", sb), ("reduced", sr)].into_iter().enumerate() {
            let t = DgTable::new(&s2)?;
            let stream = 0x100 | ((ni as u64) << 4) | lv.geo as u64;
            let (res, tv) = if opt.exact_sampler {
                let d = DiscreteGaussianSampler::new(s2.clone())?;
                (run_trials(&lv.areas, &d, beta, opt.trials, opt.source, stream), 0.0)
            } else {
                let d = AliasDg::new(&t);
                (run_trials(&lv.areas, &d, beta, opt.trials, opt.source, stream), d.tv_bound)
            };
            let abs: Vec<f64> = res.iter().filter_map(|r| r.0.map(f64::abs)).collect();
            if abs.is_empty() {
                return fallible!(Input, "{}: no trial gave a defined noisy regression", lv.geo.name());
            }
            let (mae, mae_se) = mean_se(&abs);
            let dropped_mean = res.iter().map(|r| r.1 as f64).sum::<f64>() / res.len() as f64;
            runs.push(NoiseRun {
                sigma2: s2,
                sampler_tv: tv,
                deltas: res.iter().map(|r| r.0).collect(),
                dropped_mean,
                mae,
                mae_se,
                linear: linear_mae(&lv.areas, t.var),
            });
        }
        // the improvement a K = batch study would print, over disjoint batches of trials
        let nb = opt.trials / opt.batch.max(1);
        let batch_quantiles = if opt.batch >= 1 && nb >= 20 {
            let red: Vec<f64> = (0..nb)
                .filter_map(|b| {
                    let m = |r: &NoiseRun| -> Option<f64> {
                        let v: Vec<f64> =
                            r.deltas[b * opt.batch..(b + 1) * opt.batch].iter().map(|d| d.map(f64::abs)).collect::<Option<_>>()?;
                        Some(v.iter().sum::<f64>() / v.len() as f64)
                    };
                    Some(100.0 * (1.0 - m(&runs[1])? / m(&runs[0])?))
                })
                .filter(|v| v.is_finite())
                .collect();
            (red.len() >= 20).then(|| quantiles(red, [0.05, 0.5, 0.95]))
        } else {
            None
        };
        out.push(LevelFit {
            geo: lv.geo,
            table1_level: level,
            layout: lv.layout.name(),
            areas: lv.areas.len(),
            missing: lv.missing,
            zero_population: lv.zero_population,
            coded: lv.coded,
            beta,
            trials: opt.trials,
            runs,
            batch: opt.batch,
            batch_quantiles,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ols_slope_by_hand() {
        // y = 3x + 1 exactly
        let x = [1.0, 2.0, 4.0, 7.0];
        let y: Vec<f64> = x.iter().map(|v| 3.0 * v + 1.0).collect();
        assert!((ols_slope(&x, &y).unwrap() - 3.0).abs() < 1e-12);
        // x̄ = 2, ȳ = 2: Sxy = (−1)(−1) + 0 + (1)(2)... hand value 1.5
        assert!((ols_slope(&[1.0, 2.0, 3.0], &[1.0, 1.0, 4.0]).unwrap() - 1.5).abs() < 1e-12);
        assert_eq!(ols_slope(&[2.0, 2.0], &[1.0, 5.0]), None);
        assert_eq!(ols_slope(&[2.0], &[1.0]), None);
    }

    fn areas(n: usize, scale: u64) -> Vec<AcsArea> {
        (0..n)
            .map(|i| {
                let b = 10 + (i as u64 * 37) % 50; // bachelor's-or-higher share driver
                let counts = [5 * scale, 8 * scale, 30 * scale, 20 * scale, 9 * scale, b * scale];
                let earnings = 30000.0 + 400.0 * (100.0 * b as f64 / (72 + b) as f64) + ((i * 7919) % 1000) as f64;
                AcsArea { counts, earnings }
            })
            .collect()
    }

    /// With large counts the slope error is linear in the noise: the simulated MAE agrees with the
    /// first-order value within its standard error, for the alias and the exact CKS sampler.
    #[test]
    fn large_counts_follow_the_first_order_value() {
        let a = areas(52, 20_000);
        let beta = true_slope(&a).unwrap();
        let s2 = Rational::from(5);
        let t = DgTable::new(&s2).unwrap();
        let src = NoiseSource::seeded(3);
        let alias = AliasDg::new(&t);
        let res = run_trials(&a, &alias, beta, 400, &src, 1);
        let abs: Vec<f64> = res.iter().map(|r| r.0.unwrap().abs()).collect();
        let (m, se) = mean_se(&abs);
        let lin = linear_mae(&a, t.var);
        assert!((m - lin).abs() < 4.0 * se.unwrap(), "{m} ± {} vs {lin}", se.unwrap());
        let cks = DiscreteGaussianSampler::new(s2).unwrap();
        let res = run_trials(&a, &cks, beta, 100, &src, 2);
        let abs: Vec<f64> = res.iter().map(|r| r.0.unwrap().abs()).collect();
        let (m, se) = mean_se(&abs);
        assert!((m - lin).abs() < 4.0 * se.unwrap(), "CKS {m} ± {} vs {lin}", se.unwrap());
    }

    #[test]
    fn all_zero_noisy_areas_leave_the_fit() {
        let mut a = areas(30, 1);
        a[0].counts = [0, 0, 0, 0, 0, 1];
        let t = DgTable::new(&Rational::from(400)).unwrap();
        let alias = AliasDg::new(&t);
        let src = NoiseSource::seeded(9);
        let res = run_trials(&a, &alias, 0.0, 2000, &src, 3);
        // with σ = 20 the one-person area is all-zero after max(0, ·) with probability
        // P[X ≤ 0]⁵ P[X ≤ −1] ≈ 0.0169 (the other areas almost never): ≈ 34 of 2000 trials
        let dropped: usize = res.iter().map(|r| r.1).sum();
        assert!((10..=70).contains(&dropped), "{dropped}");
        assert!(res.iter().all(|r| r.0.is_some()));
    }
}
