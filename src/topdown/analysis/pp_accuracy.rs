//! Accuracy of TopDown's final counts, simulated: the same generated geography and persons, many
//! noise seeds, three noise settings —
//! * `bureau`: the DHC 2022-08-25 allocation ([SSW24, Table 3]; per query
//!   σ² = n/(2aρ), the "Bureau σ²" column of Table 1);
//! * `reduced`: Table 1's reduced σ² per geolevel (same exact ε(1e-11) per level as the Bureau's);
//! * `uniform`: the Bureau's σ² times 0.8772, the uniform variance reduction of 12.28% that keeps the
//!   overall ε(1e-10) (README, "The whole Census": both terms of Lemma A.9);
//!
//! and per geolevel the MAE and MSE of the detailed cells and of the totals for three estimators: the
//! noisy measurement itself, max(0, ·) of it, and TopDown's final integer counts (`postprocess.rs`). A
//! bypassed geounit (a single child) is compared through the measurement of its measured ancestor,
//! which has the same extent. The truth is the synthetic persons of `schema::synth_block` (seed 1, mean
//! 30 per block); the invariants (US and State totals) are exact, as in production.

use crate::error::Fallible;
use crate::topdown::estimation::postprocess::postprocess;
use crate::topdown::estimation::run::{GroupEntry, MeasurementGroup, RunData};
use crate::topdown::geography::spine::{Spine, NONE};
use crate::topdown::measurement::sampler::{seeded, DiscreteGaussianSampler};
use crate::topdown::measurement::schema::{synth_block, MarginalQuery, Schema, DEFAULT_QUERIES};
use crate::{err, fallible};
use rayon::prelude::*;
use rug::Rational;

/// True detailed histograms of every unit (unit-major), from synthetic persons.
pub fn truth_histograms(spine: &Spine, schema: &Schema, seed: u64, mean: u32) -> Vec<u64> {
    let nc = schema.cells();
    let mut h = vec![0u64; spine.n_units() * nc];
    let mut people = Vec::new();
    for u in spine.postorder() {
        let ui = u as usize;
        let b = spine.block_no[ui];
        if b != NONE {
            synth_block(seed, b as u64, mean, schema, &mut people);
            for p in &people {
                h[ui * nc + schema.cell(*p)] += 1;
            }
        }
        let p = spine.parent[ui];
        if p != NONE {
            let (pi, ui) = (p as usize, ui);
            for k in 0..nc {
                h[pi * nc + k] += h[ui * nc + k];
            }
        }
    }
    h
}

/// A run layout for a spine with `queries` measured at every geolevel, σ² per geolevel (the same for
/// every query of the level); a unit with budget span k is measured with the precisions of its k
/// geolevels added (γ adds, precision ∝ γ). Returns the run (values to be filled) and the exact σ² of
/// every noise entry.
pub fn layout(spine: &Spine, schema: &Schema, query_names: &[&str], level_sigma2: &[Rational]) -> Fallible<(RunData, Vec<Rational>)> {
    if level_sigma2.len() != spine.n_levels() {
        return fallible!(Input, "{} geolevel variances for {} geolevels", level_sigma2.len(), spine.n_levels());
    }
    let queries: Vec<MarginalQuery> = query_names.iter().map(|n| MarginalQuery::parse(n, schema)).collect::<Result<_, _>>()?;
    let mut keys: Vec<(usize, usize)> =
        (0..spine.n_units()).filter(|&u| spine.span[u] > 0).map(|u| (spine.level[u] as usize, spine.span[u] as usize)).collect();
    keys.sort();
    keys.dedup();
    let mut groups = Vec::new();
    let mut sig = Vec::new();
    for (l, k) in keys {
        let prec = level_sigma2[l..l + k].iter().fold(Rational::new(), |a, s| a + Rational::from(s.recip_ref()));
        let s2 = prec.recip();
        let mut entries = Vec::new();
        let mut len = 0;
        for (qi, q) in queries.iter().enumerate() {
            entries.push(GroupEntry { noise_id: sig.len(), query: qi, sigma2: s2.to_f64(), offset: len });
            sig.push(s2.clone());
            len += q.cells;
        }
        groups.push(MeasurementGroup { level: l, span: k, entries, len });
    }
    Ok((RunData::new(spine.clone(), schema.clone(), queries, groups)?, sig))
}

/// Fill the run's measurements: true answers plus exact discrete Gaussian noise (none if `samplers` is
/// None), one stream per seed.
pub fn fill(run: &mut RunData, truth: &[u64], samplers: Option<&[DiscreteGaussianSampler]>, seed: u64) {
    let nc = run.schema.cells();
    let mut rng = seeded(seed);
    let mut ans = Vec::new();
    for u in 0..run.spine.n_units() {
        let g = run.unit_group[u];
        if g == NONE {
            continue;
        }
        let off = run.unit_off[u];
        for e in &run.groups[g as usize].entries {
            run.queries[e.query].answer(&truth[u * nc..(u + 1) * nc], &mut ans);
            for (j, &a) in ans.iter().enumerate() {
                let noise = samplers.map_or(0, |s| s[e.noise_id].sample(&mut rng));
                run.values[off + e.offset + j] = a as f64 + noise as f64;
            }
        }
    }
}

/// Exact totals of the top `levels` geolevels as invariants.
pub fn set_invariants(run: &mut RunData, truth: &[u64], levels: usize) {
    let nc = run.schema.cells();
    for u in 0..run.spine.n_units() {
        run.invariant[u] = if (run.spine.level[u] as usize) < levels { truth[u * nc..(u + 1) * nc].iter().sum::<u64>() as i64 } else { -1 };
    }
}

#[derive(Clone, Debug)]
pub struct PpAccuracyRow {
    pub noise: String,
    pub level: String,
    pub units: usize,
    /// "cell" (detailed histogram cells) or "total".
    pub query: String,
    /// (MAE, MSE) of the noisy measurement, of max(0, ·), of TopDown.
    pub noisy: (f64, f64),
    pub nonneg: (f64, f64),
    pub topdown: (f64, f64),
    /// Monte Carlo standard error of TopDown's MSE (over seeds).
    pub topdown_mse_se: f64,
}

/// Simulate `seeds` noise draws per setting; rows per setting × geolevel × {cell, total}.
pub fn simulate(
    spine: &Spine,
    schema: &Schema,
    settings: &[(String, Vec<Rational>)],
    seeds: u64,
    first_seed: u64,
) -> Fallible<Vec<PpAccuracyRow>> {
    let nc = schema.cells();
    let truth = truth_histograms(spine, schema, 1, 30);
    let inv_levels = ["US", "State"].iter().filter(|n| spine.level_index(n).is_some()).count();
    let nl = spine.n_levels();
    let mut rows = Vec::new();
    for (name, s2) in settings {
        let (template, sig) = layout(spine, schema, &DEFAULT_QUERIES, s2)?;
        let samplers: Vec<DiscreteGaussianSampler> =
            sig.iter().map(|s| DiscreteGaussianSampler::new(s.clone())).collect::<Result<_, _>>()?;
        let det = template.queries.iter().position(|q| q.name == "detailed").ok_or_else(|| err!(Input, "the queries need 'detailed'"))?;
        let tot = template.queries.iter().position(|q| q.name == "total").ok_or_else(|| err!(Input, "the queries need 'total'"))?;
        // per seed: per level, [noisy, nonneg, topdown] × [abs, sq] for cells and totals
        let per_seed: Vec<Fallible<Vec<[f64; 12]>>> = (0..seeds)
            .into_par_iter()
            .map(|s| {
                let mut run = template.clone();
                fill(&mut run, &truth, Some(&samplers), first_seed + s);
                set_invariants(&mut run, &truth, inv_levels);
                let (est, _) = postprocess(&run)?;
                let mut acc = vec![[0.0f64; 12]; nl];
                for u in 0..spine.n_units() {
                    // the measured unit with the same extent
                    let mut m = u;
                    while run.unit_group[m] == NONE {
                        m = spine.parent[m] as usize;
                    }
                    let g = &run.groups[run.unit_group[m] as usize];
                    let vals = run.unit_values(m).expect("invariant: a measured unit");
                    let (od, ot) = (
                        g.entries.iter().find(|e| e.query == det).expect("invariant: the group measures the detailed query").offset,
                        g.entries.iter().find(|e| e.query == tot).expect("invariant: the group measures the total").offset,
                    );
                    let a = &mut acc[spine.level[u] as usize];
                    let t = &truth[u * nc..(u + 1) * nc];
                    for k in 0..nc {
                        let y = vals[od + k];
                        let errs = [y - t[k] as f64, y.max(0.0) - t[k] as f64, (est[u * nc + k] - t[k] as i64) as f64];
                        for (i, e) in errs.iter().enumerate() {
                            a[2 * i] += e.abs() / nc as f64;
                            a[2 * i + 1] += e * e / nc as f64;
                        }
                    }
                    let tt: u64 = t.iter().sum();
                    let y = vals[ot];
                    let te: i64 = est[u * nc..(u + 1) * nc].iter().sum();
                    let errs = [y - tt as f64, y.max(0.0) - tt as f64, (te - tt as i64) as f64];
                    for (i, e) in errs.iter().enumerate() {
                        a[6 + 2 * i] += e.abs();
                        a[6 + 2 * i + 1] += e * e;
                    }
                }
                Ok(acc)
            })
            .collect();
        let per_seed: Vec<Vec<[f64; 12]>> = per_seed.into_iter().collect::<Result<_, _>>()?;
        for l in 0..nl {
            let units = (0..spine.n_units()).filter(|&u| spine.level[u] as usize == l).count();
            for (qi, qname) in ["cell", "total"].iter().enumerate() {
                let b = 6 * qi;
                let mean = |i: usize| per_seed.iter().map(|a| a[l][b + i] / units as f64).sum::<f64>() / seeds as f64;
                let mse_td: Vec<f64> = per_seed.iter().map(|a| a[l][b + 5] / units as f64).collect();
                let mu = mse_td.iter().sum::<f64>() / seeds as f64;
                let var = mse_td.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (seeds as f64 - 1.0).max(1.0);
                rows.push(PpAccuracyRow {
                    noise: name.clone(),
                    level: spine.levels[l].clone(),
                    units,
                    query: qname.to_string(),
                    noisy: (mean(0), mean(1)),
                    nonneg: (mean(2), mean(3)),
                    topdown: (mean(4), mean(5)),
                    topdown_mse_se: (var / seeds as f64).sqrt(),
                });
            }
        }
    }
    Ok(rows)
}

/// The three noise settings for the DHC 2022-08-25 allocation's eight geolevels (all queries of a
/// level with the same σ²): exact Bureau σ² from the allocation file, Table 1, and 0.8772 × Bureau.
pub fn dhc_settings(alloc: &crate::census::allocation::Allocation) -> Fallible<Vec<(String, Vec<Rational>)>> {
    let rho = alloc.rho.clone().ok_or_else(|| err!(Input, "the allocation needs rho"))?;
    let mut bureau = Vec::new();
    for lv in &alloc.levels {
        let share = lv.share.clone().ok_or_else(|| err!(Input, "the allocation needs level shares"))?;
        let n = lv.query_rho.len() as u32;
        // σ² = n/(2·share·ρ) ([SSW24, §A.1], add-remove, equal split)
        bureau.push(Rational::from(n) / (Rational::from(2) * share * &rho));
    }
    let reduced: Vec<Rational> = crate::topdown::estimation::estimate::TABLE1_REDUCED
        .iter()
        .map(|s| crate::num::parse_rational(s).expect("invariant: a decimal constant"))
        .collect();
    if reduced.len() != bureau.len() {
        return fallible!(Input, "Table 1 has 8 geolevels, the allocation {}", bureau.len());
    }
    let uniform: Vec<Rational> = bureau.iter().map(|s| s * Rational::from((8772, 10000))).collect();
    Ok(vec![("bureau".into(), bureau), ("reduced".into(), reduced), ("uniform".into(), uniform)])
}

/// The TopDown accuracy rows on the bundled dhc-small geography (Bureau, Table 1 and uniform noise,
/// `seeds` noise draws); `reproduce` writes them as results/topdown-postprocess-accuracy.csv and
/// `plots::topdown` draws them.
pub fn bundled_results(data: &std::path::Path, seeds: u64) -> Fallible<Vec<PpAccuracyRow>> {
    let alloc = crate::census::allocation::Allocation::from_path(&data.join("allocations/dhc-2022-08-25.toml"))?;
    let mut spine = Spine::from_path(&data.join("topdown/dhc-small.csv"))?;
    spine.apply_bypass(crate::topdown::geography::spine::Bypass::Zcdp);
    let schema = Schema::parse(BENCH_SCHEMA)?;
    simulate(&spine, &schema, &dhc_settings(&alloc)?, seeds, 1)
}

/// The 10-cell histogram of the accuracy table and the benchmark.
pub const BENCH_SCHEMA: &str = "hhgq=5,votingage=2";

pub fn render(rows: &[PpAccuracyRow]) -> String {
    let mut s =
        String::from("noise,level,units,query,mae_noisy,mse_noisy,mae_nonneg,mse_nonneg,mae_topdown,mse_topdown,mse_topdown_mc_se\n");
    for r in rows {
        s += &format!(
            "{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4}\n",
            r.noise, r.level, r.units, r.query, r.noisy.0, r.noisy.1, r.nonneg.0, r.nonneg.1, r.topdown.0, r.topdown.1, r.topdown_mse_se
        );
    }
    s
}
