//! Figures 6 and 8 of [SSW24] on real (or same-layout) counts: every cell of the
//! race table at each level receives i.i.d. N_Z(0, σ²) noise with the level's σ² — the Bureau's, or
//! Table 1's reduced one — and is released as is or after max(0, ·). For each level (Figure 6) and, at
//! the block level, each race cell (Figure 8) we report the MSE and MAE over units (paper, footnote 9:
//! (y′ − y)² and |y′ − y| averaged over the Summary File), both
//!
//! * **exactly**: the mean over cells of the per-count expectations (`noise::DgTable::count_errors`), and
//! * **by simulation**: K independent noisy releases of the whole file; each trial's statistic is one
//!   replicate, so the simulated value is the mean of K replicates and its standard error their standard
//!   deviation / √K (exact integer sums within a trial; no pooling assumption).
//!
//! Reproducibility: units are cut into fixed chunks and chunk c of (noise, level) draws from ChaCha20
//! stream (noise, level, c) of the source, so results do not depend on thread scheduling.

use crate::accuracy::noise::{AliasDg, DgTable, Draw};
use crate::accuracy::{mean_se, table1_sigma2, Allocation};
use crate::data::nhgis::{Geo, NhgisLevel, RaceTable};
use crate::error::Fallible;
use crate::fallible;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use rayon::prelude::*;
use rug::Rational;
use std::collections::HashMap;

/// The four error statistics, in this order.
pub const METRICS: [&str; 4] = ["mse", "mae", "mse_nonneg", "mae_nonneg"];

/// Units per chunk of the simulation (one ChaCha20 stream each).
const CHUNK: usize = 1024;

#[derive(Clone, Debug)]
pub struct GroupStats {
    /// "all cells" or the race label
    pub label: String,
    pub exact: [f64; 4],
    pub sim: Option<[f64; 4]>,
    pub se: Option<[f64; 4]>,
}

#[derive(Clone, Debug)]
pub struct NoiseStats {
    /// "Bureau" or "reduced"
    pub noise: &'static str,
    pub sigma2: Rational,
    pub sampler_tv: f64,
    /// all cells of the level (Figure 6)
    pub pooled: GroupStats,
    /// one per race cell (Figure 8)
    pub groups: Vec<GroupStats>,
}

#[derive(Clone, Debug)]
pub struct LevelStudy {
    pub geo: Geo,
    pub table1_level: String,
    pub table: RaceTable,
    pub units: usize,
    pub trials: u32,
    /// [Bureau, reduced]
    pub noises: Vec<NoiseStats>,
}

pub struct CountsOptions<'a> {
    pub trials: u32,
    pub exact_sampler: bool,
    pub source: &'a NoiseSource,
    pub delta: Rational,
    /// overrides of Geo::table1_level
    pub map: Vec<(String, String)>,
}

/// The allocation level whose σ² applies to an NHGIS level (default, or a `--map` override).
pub fn allocation_level(geo: Geo, map: &[(String, String)]) -> Fallible<String> {
    for (k, v) in map {
        if Geo::parse(k)? == geo {
            return Ok(v.clone());
        }
    }
    Ok(geo.table1_level().to_string())
}

/// Exact expectations: per race cell and pooled over all cells of the level.
pub fn exact(lv: &NhgisLevel, t: &DgTable) -> (Vec<[f64; 4]>, [f64; 4]) {
    let g = lv.cells();
    let mut per = Vec::with_capacity(g);
    let mut pooled = [0.0; 4];
    for j in 0..g {
        let mut hist: HashMap<u32, u64> = HashMap::new();
        for u in 0..lv.units {
            *hist.entry(lv.cell(u, j)).or_default() += 1;
        }
        let mut ys: Vec<(u32, u64)> = hist.into_iter().collect();
        ys.sort_unstable();
        let mut s = [0.0; 4];
        for (y, n) in ys {
            let e = t.count_errors(y as u64);
            for m in 0..4 {
                s[m] += n as f64 * e[m];
            }
        }
        for m in 0..4 {
            pooled[m] += s[m];
            s[m] /= lv.units as f64;
        }
        per.push(s);
    }
    for v in &mut pooled {
        *v /= (lv.units * g) as f64;
    }
    (per, pooled)
}

/// The generator of one chunk: ChaCha8 keyed by 32 bytes of ChaCha20 stream `k` of the source (a
/// reduced-round ChaCha is ample for Monte Carlo and ~2× faster; keying from the source keeps seeded runs
/// reproducible and OS-keyed runs unpredictable).
pub fn chunk_rng(src: &NoiseSource, k: u64) -> rand_chacha::ChaCha8Rng {
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    let mut key = [0u8; 32];
    src.substream(k).rng.fill_bytes(&mut key);
    rand_chacha::ChaCha8Rng::from_seed(key)
}

/// Integer error sums of K trials: `out[(g·K + k)·4 + m]` for race cell g, trial k, metric m.
pub fn simulate<D: Draw>(lv: &NhgisLevel, d: &D, trials: usize, src: &NoiseSource, stream: u64) -> Vec<u64> {
    let g = lv.cells();
    let len = g * trials * 4;
    let chunks = lv.units.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .fold(
            || vec![0u64; len],
            |mut acc, c| {
                let mut rng = chunk_rng(src, (stream << 32) | c as u64);
                for u in c * CHUNK..((c + 1) * CHUNK).min(lv.units) {
                    for j in 0..g {
                        let y = lv.cell(u, j) as i64;
                        let a = &mut acc[j * trials * 4..(j + 1) * trials * 4];
                        for cell in a.chunks_exact_mut(4) {
                            let x = d.draw(&mut rng);
                            let p = x.max(-y);
                            cell[0] += (x * x) as u64;
                            cell[1] += x.unsigned_abs();
                            cell[2] += (p * p) as u64;
                            cell[3] += p.unsigned_abs();
                        }
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![0u64; len],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// Means and standard errors over trials from the integer sums (per race cell and pooled).
fn summarise(lv: &NhgisLevel, sums: &[u64], trials: usize) -> (Vec<([f64; 4], Option<[f64; 4]>)>, ([f64; 4], Option<[f64; 4]>)) {
    let g = lv.cells();
    let stat = |vals: &dyn Fn(usize, usize) -> f64| -> ([f64; 4], Option<[f64; 4]>) {
        let mut mean = [0.0; 4];
        let mut se = [0.0; 4];
        let mut has_se = true;
        for m in 0..4 {
            let v: Vec<f64> = (0..trials).map(|k| vals(k, m)).collect();
            let (a, b) = mean_se(&v);
            mean[m] = a;
            match b {
                Some(b) => se[m] = b,
                None => has_se = false,
            }
        }
        (mean, if has_se { Some(se) } else { None })
    };
    let per: Vec<_> = (0..g).map(|j| stat(&|k, m| sums[(j * trials + k) * 4 + m] as f64 / lv.units as f64)).collect();
    let pooled = stat(&|k, m| (0..g).map(|j| sums[(j * trials + k) * 4 + m]).sum::<u64>() as f64 / (lv.units * g) as f64);
    (per, pooled)
}

/// The whole study: each level present, Bureau and reduced noise, exact and (K ≥ 1) simulated.
/// Most noise draws a simulation may take (about a minute on one core): counts × trials above it is
/// refused before anything is drawn.
pub const MAX_DRAWS: u128 = 1_000_000_000;

pub fn check_draws(units: u128, trials: u32) -> Fallible<()> {
    let n = units * trials as u128 * 2;
    if n > MAX_DRAWS {
        return fallible!(
            Input,
            "{units} counts x {trials} trials x 2 noise levels would take {n} draws (limit {MAX_DRAWS}); lower --trials"
        );
    }
    Ok(())
}

pub fn study(levels: &[NhgisLevel], alloc: &Allocation, opt: &CountsOptions) -> Fallible<Vec<LevelStudy>> {
    check_draws(levels.iter().map(|lv| (lv.units * lv.table.cells()) as u128).sum(), opt.trials)?;
    let mut out = Vec::new();
    for (li, lv) in levels.iter().enumerate() {
        let level = allocation_level(lv.geo, &opt.map)?;
        let (sb, sr) = table1_sigma2(alloc, &level, &opt.delta)?;
        let mut noises = Vec::new();
        for (ni, (name, s2)) in [("Bureau", sb), ("reduced", sr)].into_iter().enumerate() {
            let t = DgTable::new(&s2)?;
            let (per, pooled) = exact(lv, &t);
            let trials = opt.trials as usize;
            let stream = ((ni as u64) << 8) | li as u64;
            let (sims, tv) = if trials == 0 {
                (None, 0.0)
            } else if opt.exact_sampler {
                let d = DiscreteGaussianSampler::new(s2.clone())?;
                (Some(summarise(lv, &simulate(lv, &d, trials, opt.source, stream), trials)), 0.0)
            } else {
                let d = AliasDg::new(&t);
                (Some(summarise(lv, &simulate(lv, &d, trials, opt.source, stream), trials)), d.tv_bound)
            };
            let labels = lv.table.labels();
            let groups = (0..lv.cells())
                .map(|j| GroupStats {
                    label: labels[j].to_string(),
                    exact: per[j],
                    sim: sims.as_ref().map(|s| s.0[j].0),
                    se: sims.as_ref().and_then(|s| s.0[j].1),
                })
                .collect();
            let pooled = GroupStats {
                label: "all cells".into(),
                exact: pooled,
                sim: sims.as_ref().map(|s| s.1 .0),
                se: sims.as_ref().and_then(|s| s.1 .1),
            };
            noises.push(NoiseStats { noise: name, sigma2: s2, sampler_tv: tv, pooled, groups });
        }
        out.push(LevelStudy { geo: lv.geo, table1_level: level, table: lv.table, units: lv.units, trials: opt.trials, noises });
    }
    Ok(out)
}

/// 100 (1 − reduced/Bureau) and, from two independent estimates with standard errors, its standard
/// error by the delta method.
pub fn reduction_pct(b: f64, r: f64, se: Option<(f64, f64)>) -> (f64, Option<f64>) {
    let ratio = r / b;
    let s = se.map(|(sb, sr)| 100.0 * ratio.abs() * ((sb / b).powi(2) + (sr / r).powi(2)).sqrt());
    (100.0 * (1.0 - ratio), s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(counts: Vec<u32>, table: RaceTable) -> NhgisLevel {
        let units = counts.len() / table.cells();
        NhgisLevel { geo: Geo::Block, table, units, counts, states: vec!["99".into()], files: vec![] }
    }

    /// Exact pooled MSE without post-processing is Var N_Z(0, σ²) whatever the counts; with max(0, ·) it is
    /// the mean of the per-count expectations.
    #[test]
    fn exact_pools_per_count_expectations() {
        let t = DgTable::new(&Rational::from(9)).unwrap();
        let lv = level(vec![0, 3, 0, 50, 2, 2, 0, 0], RaceTable::P1);
        let (per, pooled) = exact(&lv, &t);
        assert_eq!(per.len(), 1);
        assert!((pooled[0] - t.var).abs() < 1e-12);
        let want: f64 = [0u64, 3, 0, 50, 2, 2, 0, 0].iter().map(|&y| t.count_errors(y)[2]).sum::<f64>() / 8.0;
        assert!((pooled[2] - want).abs() < 1e-12);
    }

    /// The simulation agrees with the exact values within 5 standard errors, the alias and the exact
    /// CKS samplers alike, and is reproducible from a seed.
    #[test]
    fn simulation_matches_exact_and_is_reproducible() {
        let t = DgTable::new(&Rational::from((45662, 100))).unwrap();
        let counts: Vec<u32> = (0..3000u32).map(|i| [0, 0, 1, 4, 17, 60, 300][(i % 7) as usize]).collect();
        let lv = level(counts, RaceTable::P1);
        let (_, ex) = exact(&lv, &t);
        let src = NoiseSource::seeded(5);
        let a = AliasDg::new(&t);
        let s1 = simulate(&lv, &a, 40, &src, 1);
        assert_eq!(s1, simulate(&lv, &a, 40, &src, 1));
        let (_, (m, se)) = summarise(&lv, &s1, 40);
        let se = se.unwrap();
        for k in 0..4 {
            assert!((m[k] - ex[k]).abs() < 5.0 * se[k], "metric {k}: {} vs {} ± {}", m[k], ex[k], se[k]);
        }
        let cks = DiscreteGaussianSampler::new(Rational::from((45662, 100))).unwrap();
        let (_, (m2, se2)) = summarise(&lv, &simulate(&lv, &cks, 6, &src, 2), 6);
        for k in 0..4 {
            assert!((m2[k] - ex[k]).abs() < 5.0 * se2.unwrap()[k], "CKS metric {k}");
        }
    }
}
