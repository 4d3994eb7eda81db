//! TopDown noisy measurements on a spine ([CAK24] Theorems 1 and 3).
//!
//! For every measured geounit u at geolevel l (share γ[u], = β[l] without bypass) and every query
//! group i of level l with share α[i,l], each cell of Q[i]·x_u gets independent exact N_Z(0, σ²):
//! * `replace` (bounded neighbours, the TDA's "modify one record"): σ² = 1/(ρ γ α) — Theorem 1(2),
//!   the production `inverse_scale`; a changed record moves one cell down and one up (L2² = 2);
//! * `add-remove`: σ² = 1/(2 ρ γ α) = n/(2aρ) for equal splits ([SSW24]
//!   §A.1); an added record moves one cell by one (L2² = 1).
//!
//! Measurements are streamed in post-order of the spine (children before parents), so memory is the
//! block histograms plus one histogram per tree depth, whatever the number of levels and cells.

use crate::census::allocation::{norm_name, Allocation};
use crate::error::Fallible;
use crate::model::Neighbors;
use crate::topdown::geography::spine::{Spine, NONE};
use crate::topdown::measurement::sampler::{os_seed, seeded, DiscreteGaussianSampler};
use crate::topdown::measurement::schema::{synth_block, MarginalQuery, Schema, DEFAULT_QUERIES};
use crate::{err, fallible};
use rug::Rational;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST_FORMAT: &str = "tightdp-topdown-manifest/1";

/// An allocation bound to a spine: shares per geolevel and query, and the noise formula.
#[derive(Clone, Debug)]
pub struct Plan {
    pub alloc_name: String,
    pub rho: Rational,
    pub neighbors: Neighbors,
    pub beta: Vec<Rational>,
    pub alpha: Vec<Vec<Rational>>,
    pub queries: Vec<Vec<MarginalQuery>>,
    pub schema: Schema,
}

impl Plan {
    pub fn new(alloc: &Allocation, spine: &Spine, schema: &Schema, neighbors: Neighbors) -> Fallible<Plan> {
        let rho = alloc.rho.clone().ok_or_else(|| err!(Input, "the allocation needs a total `rho` and level `share`s for TopDown"))?;
        if alloc.levels.len() != spine.n_levels() {
            return fallible!(
                Input,
                "the allocation has {} geolevels ({}) but the spine has {} ({})",
                alloc.levels.len(),
                alloc.levels.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", "),
                spine.n_levels(),
                spine.levels.join(", ")
            );
        }
        let mut beta = Vec::new();
        let mut alpha = Vec::new();
        let mut queries = Vec::new();
        for (l, lv) in alloc.levels.iter().enumerate() {
            if norm_name(&lv.name) != norm_name(&spine.levels[l]) {
                return fallible!(Input, "geolevel {} is '{}' in the allocation but '{}' in the spine", l + 1, lv.name, spine.levels[l]);
            }
            let share = lv.share.clone().ok_or_else(|| err!(Input, "level '{}': TopDown needs `share` (not `query_rho`)", lv.name))?;
            let a: Vec<Rational> = lv.query_rho.iter().map(|q| Rational::from(q / &lv.rho)).collect();
            let names: Vec<String> = if lv.query_names.len() == a.len() {
                lv.query_names.clone()
            } else {
                (0..a.len()).map(|j| DEFAULT_QUERIES[j % DEFAULT_QUERIES.len()].to_string()).collect()
            };
            let qs = names
                .iter()
                .map(|n| MarginalQuery::parse(n, schema).map_err(|e| e.context(format!("level '{}'", lv.name))))
                .collect::<Result<Vec<_>, _>>()?;
            beta.push(share);
            alpha.push(a);
            queries.push(qs);
        }
        let sum: Rational = beta.iter().fold(Rational::new(), |s, b| s + b);
        if sum != 1 {
            return fallible!(Input, "geolevel shares sum to {sum}, not 1 (Theorems 1 and 3 need Σ β[l] = 1)");
        }
        Ok(Plan { alloc_name: alloc.name.clone(), rho, neighbors, beta, alpha, queries, schema: schema.clone() })
    }

    /// γ of a geounit at level l with budget span k: β[l] + … + β[l+k−1].
    pub fn gamma(&self, l: usize, span: usize) -> Rational {
        self.beta[l..l + span].iter().fold(Rational::new(), |s, b| s + b)
    }

    /// σ² of query i at level l for share γ.
    pub fn sigma2(&self, l: usize, gamma: &Rational, i: usize) -> Rational {
        sigma2_of(&self.rho, gamma, &self.alpha[l][i], self.neighbors)
    }
}

/// σ² = 1/(ρ γ α) (replace) or 1/(2 ρ γ α) (add-remove).
pub fn sigma2_of(rho: &Rational, gamma: &Rational, alpha: &Rational, nb: Neighbors) -> Rational {
    let c = match nb {
        Neighbors::Replace => 1u32,
        Neighbors::AddRemove => 2u32,
    };
    let prec = Rational::from(rho * gamma) * alpha * c;
    prec.recip()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NoiseEntry {
    pub id: usize,
    pub level: String,
    pub level_index: usize,
    /// Geolevels whose shares this measurement carries (more than one after a bypass).
    pub span_levels: Vec<String>,
    pub gamma: String,
    pub query: String,
    pub alpha: String,
    pub sigma2: String,
    pub cells: usize,
    pub units: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PathEntry {
    /// Noise entries met along the root-to-block path (one geounit each, in parallel over blocks).
    pub noise_ids: Vec<usize>,
    pub blocks: u64,
    /// Σ γ along the path (Theorem 3: must be 1).
    pub gamma_sum: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LevelEntry {
    pub name: String,
    pub beta: String,
    pub units: usize,
    pub measured_units: usize,
    pub fanout_min: usize,
    pub fanout_mean: f64,
    pub fanout_max: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopdownManifest {
    pub format: String,
    pub allocation: String,
    pub rho: String,
    pub neighbors: String,
    pub sensitivity_model: String,
    pub noise_formula: String,
    pub composition: String,
    pub bypass: String,
    pub bypassed_units: usize,
    pub schema: String,
    pub blocks: usize,
    pub levels: Vec<LevelEntry>,
    pub noise: Vec<NoiseEntry>,
    pub paths: Vec<PathEntry>,
    pub measurements_file: String,
    pub rows: u64,
    pub rng: String,
    /// `--no-noise`: the measurements are the exact counts. Not private; `certify` refuses such a run.
    #[serde(default)]
    pub noise_free: bool,
    /// The run's geography and invariants (rundir.rs), for post-processing.
    #[serde(default)]
    pub geography_file: String,
    #[serde(default)]
    pub invariants_file: String,
    /// Structural zeros of the schema (`estimation::constraints`; empty: none).
    #[serde(default)]
    pub structural_zeros: String,
    /// The facilities per block and hhgq type (`units.csv`), empty when not written.
    #[serde(default)]
    pub units_file: String,
}

/// Build the manifest's noise table and paths (no data needed).
pub fn noise_table(plan: &Plan, spine: &Spine) -> Fallible<(Vec<NoiseEntry>, Vec<PathEntry>, HashMap<(usize, usize), usize>)> {
    // units per (level, span)
    let mut units: HashMap<(usize, usize), u64> = HashMap::new();
    for u in 0..spine.n_units() {
        if spine.span[u] > 0 {
            *units.entry((spine.level[u] as usize, spine.span[u] as usize)).or_insert(0) += 1;
        }
    }
    let mut keys: Vec<(usize, usize)> = units.keys().copied().collect();
    keys.sort();
    let mut entries = Vec::new();
    let mut first_id = HashMap::new();
    for &(l, k) in &keys {
        let gamma = plan.gamma(l, k);
        first_id.insert((l, k), entries.len());
        for (i, q) in plan.queries[l].iter().enumerate() {
            entries.push(NoiseEntry {
                id: entries.len(),
                level: spine.levels[l].clone(),
                level_index: l,
                span_levels: spine.levels[l..l + k].to_vec(),
                gamma: gamma.to_string(),
                query: q.name.clone(),
                alpha: plan.alpha[l][i].to_string(),
                sigma2: plan.sigma2(l, &gamma, i).to_string(),
                cells: q.cells,
                units: units[&(l, k)],
            });
        }
    }
    let sigs = spine.path_signatures()?;
    let mut paths = Vec::new();
    for (sig, blocks) in sigs {
        let mut ids = Vec::new();
        let mut gsum = Rational::new();
        for &(l, k) in &sig {
            let (l, k) = (l as usize, k as usize);
            gsum += plan.gamma(l, k);
            let f = first_id[&(l, k)];
            ids.extend(f..f + plan.queries[l].len());
        }
        if gsum != 1 {
            return fallible!(Input, "internal: a block path has shares summing to {gsum} (Theorem 3 needs 1)");
        }
        paths.push(PathEntry { noise_ids: ids, blocks, gamma_sum: gsum.to_string() });
    }
    Ok((entries, paths, first_id))
}

/// Where block histograms come from.
pub enum Persons {
    /// Block-major histograms read from a person file.
    Table(Vec<u32>),
    /// Generated on the fly per block (same persons as `topdown persons` writes with this seed).
    Synthetic { seed: u64, mean: u32 },
}

pub struct MeasureOpts<'a> {
    pub out_dir: &'a Path,
    pub seed: Option<u64>,
    /// Measure without noise (testing only: NOT PRIVATE).
    pub no_noise: bool,
    /// Geolevels whose exact totals are written to `invariants.csv`: per geounit, or per entity of the
    /// off-spine category of the same name when the spine has one (the states of the AIAN spine).
    pub invariant_levels: Vec<usize>,
    /// Structural zeros (`estimation::constraints`), as written (empty: none) and per cell. Synthetic
    /// persons in such a cell are left out; a person file with one is refused.
    pub structural_zeros: String,
    pub structural_zero: Vec<bool>,
    /// Write `units.csv`: synthetic facilities per block and hhgq type (the group-quarters invariant).
    pub gq_units: bool,
}

impl MeasureOpts<'_> {
    /// The options of a plain run (no structural zeros, no group-quarters units).
    pub fn plain(out_dir: &Path, seed: Option<u64>, no_noise: bool, invariant_levels: Vec<usize>) -> MeasureOpts<'_> {
        MeasureOpts {
            out_dir,
            seed,
            no_noise,
            invariant_levels,
            structural_zeros: String::new(),
            structural_zero: Vec::new(),
            gq_units: false,
        }
    }
}

/// What the stream collects beside the measurements.
#[derive(Default)]
struct Side {
    /// (geounit, total) of the invariant geolevels measured per geounit.
    invariants: Vec<(u32, u64)>,
    /// Per off-spine category with invariants: (category, total per entity).
    entity_totals: Vec<(usize, Vec<u64>)>,
    /// Facilities per block (block-major, hhgq types) with `gq_units`.
    units: Vec<u32>,
}

/// Run the measurements: write `measurements.csv` and `manifest.json` into the output directory.
/// Everything is validated before anything is written; the CSV is streamed to a temporary file and
/// renamed at the end, so a failure leaves nothing behind.
pub fn measure(plan: &Plan, spine: &Spine, persons: &Persons, opts: &MeasureOpts) -> Fallible<TopdownManifest> {
    let (entries, paths, first_id) = noise_table(plan, spine)?;
    let samplers: Vec<DiscreteGaussianSampler> = entries
        .iter()
        .map(|e| {
            DiscreteGaussianSampler::new(
                crate::num::parse_rational(&e.sigma2).expect("invariant: sigma2 written as a rational by noise_table"),
            )
        })
        .collect::<Result<_, _>>()?;
    std::fs::create_dir_all(opts.out_dir).map_err(|e| err!(Io, "cannot create '{}': {e}", opts.out_dir.display()))?;
    let csv_path = opts.out_dir.join("measurements.csv");
    let tmp: PathBuf = opts.out_dir.join(format!(".measurements.csv.tmp{}", std::process::id()));
    check_structural_zeros(plan, persons, opts)?;
    let mut side = Side::default();
    for &l in &opts.invariant_levels {
        if let Some(k) = spine.ose.iter().position(|o| norm_name(&o.name) == norm_name(&spine.levels[l])) {
            side.entity_totals.push((k, vec![0; spine.ose[k].entities.len()]));
        }
    }
    let res = (|| -> Fallible<u64> {
        let f = std::fs::File::create(&tmp).map_err(|e| err!(Io, "cannot write '{}': {e}", tmp.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 22, f);
        let rows =
            stream(plan, spine, persons, &samplers, &first_id, opts, &mut side, &mut w).map_err(|e| err!(Io, "write failed: {e}"))?;
        w.flush().map_err(|e| err!(Io, "write failed: {e}"))?;
        Ok(rows)
    })();
    let rows = match res {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    let manifest = manifest(plan, spine, opts, entries, paths, rows);
    let json = serde_json::to_string_pretty(&manifest).expect("invariant: a serialisable manifest") + "\n";
    if let Err(e) = std::fs::rename(&tmp, &csv_path) {
        let _ = std::fs::remove_file(&tmp);
        return fallible!(Io, "cannot write '{}': {e}", csv_path.display());
    }
    if let Err(e) = write_run_files(plan, spine, opts, &side, &json) {
        let _ = std::fs::remove_file(&csv_path);
        return Err(e);
    }
    Ok(manifest)
}

/// A person table with persons in structural-zero cells is refused before anything is written.
fn check_structural_zeros(plan: &Plan, persons: &Persons, opts: &MeasureOpts) -> Fallible<()> {
    if let Persons::Table(h) = persons {
        let nc = plan.schema.cells();
        let n: u64 = (0..h.len()).filter(|&i| opts.structural_zero.get(i % nc).copied().unwrap_or(false)).map(|i| h[i] as u64).sum();
        if n > 0 {
            return fallible!(Input, "person file: {n} persons in cells that are structural zeros ({})", opts.structural_zeros);
        }
    }
    Ok(())
}

/// The run's manifest: the plan, the geography's statistics, the noise table and what was written.
fn manifest(plan: &Plan, spine: &Spine, opts: &MeasureOpts, entries: Vec<NoiseEntry>, paths: Vec<PathEntry>, rows: u64) -> TopdownManifest {
    let stats = spine.level_stats();
    let levels = stats
        .iter()
        .enumerate()
        .map(|(l, s)| LevelEntry {
            name: s.name.clone(),
            beta: plan.beta[l].to_string(),
            units: s.units,
            measured_units: s.measured,
            fanout_min: s.fanout_min,
            fanout_mean: (s.fanout_mean * 1000.0).round() / 1000.0,
            fanout_max: s.fanout_max,
        })
        .collect();
    let (sens, formula) = match plan.neighbors {
        Neighbors::Replace => (
            "replace: one record modified (bounded neighbours, geographic-spines-topdown.txt §2.1); in each query group of each geounit on the record's old and new block paths at most two cells move by 1 (L2^2 = 2); accounted as two unit shifts per noise entry on the union of two block paths",
            "sigma2 = 1/(rho * gamma * alpha) (Theorem 1(2), Theorem 3(2))",
        ),
        Neighbors::AddRemove => (
            "add-remove: one record added or removed; in each query group of each geounit on the record's block path one cell moves by 1 (L2^2 = 1); accounted as one unit shift per noise entry on one block path",
            "sigma2 = 1/(2 * rho * gamma * alpha) = n/(2 a rho) for equal splits (census-2020-more-private-fdp.txt §A.1)",
        ),
    };
    let bypassed = spine.span.iter().filter(|&&s| s == 0).count();
    TopdownManifest {
        format: MANIFEST_FORMAT.into(),
        allocation: plan.alloc_name.clone(),
        rho: plan.rho.to_string(),
        neighbors: plan.neighbors.as_str().into(),
        sensitivity_model: sens.into(),
        noise_formula: formula.into(),
        composition: "parallel over the geounits of a geolevel (disjoint blocks); sequential over query groups and along each block's root-to-block path; the gammas on every path sum to 1 (Theorem 3)".into(),
        bypass: spine.bypass.as_str().into(),
        bypassed_units: bypassed,
        schema: plan.schema.describe(),
        blocks: spine.blocks.len(),
        levels,
        noise: entries,
        paths,
        measurements_file: "measurements.csv".into(),
        rows,
        noise_free: opts.no_noise,
        geography_file: crate::topdown::measurement::rundir::GEOGRAPHY_FILE.into(),
        invariants_file: crate::topdown::measurement::rundir::INVARIANTS_FILE.into(),
        structural_zeros: opts.structural_zeros.clone(),
        units_file: if opts.gq_units { crate::topdown::measurement::rundir::UNITS_FILE.into() } else { String::new() },
        rng: if opts.no_noise {
            "none: --no-noise, the measurements are the exact counts (NOT PRIVATE; for testing only)".into()
        } else if opts.seed.is_some() {
            "ChaCha20 seeded by --seed (reproducible; use OS randomness for a real release)".into()
        } else {
            "ChaCha20 seeded from the operating system".into()
        },
    }
}

/// The run's geography, invariants and units, then the manifest last; on a failure none of them is left.
fn write_run_files(plan: &Plan, spine: &Spine, opts: &MeasureOpts, side: &Side, json: &str) -> Fallible<()> {
    use crate::topdown::measurement::rundir::{
        write_geography, write_invariants, write_units, GEOGRAPHY_FILE, INVARIANTS_FILE, UNITS_FILE,
    };
    let files = [GEOGRAPHY_FILE, INVARIANTS_FILE, UNITS_FILE];
    let entity_rows: Vec<(String, String, u64)> = side
        .entity_totals
        .iter()
        .flat_map(|(k, t)| {
            let o = &spine.ose[*k];
            o.entities.iter().zip(t).map(move |(e, &v)| (format!("ose:{}", o.name), e.clone(), v))
        })
        .collect();
    let types = plan.schema.card[0] as usize;
    let written = crate::record::write_streamed(&opts.out_dir.join(GEOGRAPHY_FILE), |w| write_geography(spine, w))
        .and_then(|_| {
            crate::record::write_streamed(&opts.out_dir.join(INVARIANTS_FILE), |w| {
                write_invariants(spine, &side.invariants, &entity_rows, w)
            })
        })
        .and_then(|_| {
            if opts.gq_units {
                crate::record::write_streamed(&opts.out_dir.join(UNITS_FILE), |w| write_units(spine, &side.units, types, w))
            } else {
                Ok(())
            }
        })
        .and_then(|_| crate::record::write_atomic(&opts.out_dir.join("manifest.json"), json.as_bytes()));
    if written.is_err() {
        for f in files {
            let _ = std::fs::remove_file(opts.out_dir.join(f));
        }
    }
    written
}

fn stream<W: Write>(
    plan: &Plan,
    spine: &Spine,
    persons: &Persons,
    samplers: &[DiscreteGaussianSampler],
    first_id: &HashMap<(usize, usize), usize>,
    opts: &MeasureOpts,
    side: &mut Side,
    w: &mut W,
) -> std::io::Result<u64> {
    let hh: Vec<usize> = (0..plan.schema.cells()).map(|c| plan.schema.decode(c)[0] as usize).collect();
    let types = plan.schema.card[0] as usize;
    let by_entity: Vec<usize> = opts
        .invariant_levels
        .iter()
        .copied()
        .filter(|&l| spine.ose.iter().any(|o| norm_name(&o.name) == norm_name(&spine.levels[l])))
        .collect();
    if opts.gq_units {
        side.units = vec![0; spine.blocks.len() * types];
    }
    let mut one = Vec::new();
    let mut rng = seeded(opts.seed.unwrap_or_else(os_seed));
    let nc = plan.schema.cells();
    writeln!(w, "level,geounit,query,cell,value,noise_id")?;
    let mut rows = 0u64;
    let depth = spine.n_levels();
    let mut acc: Vec<Vec<u64>> = vec![vec![0u64; nc]; depth];
    let mut people = Vec::new();
    let mut ans = Vec::new();
    let mut line = String::with_capacity(128);
    let mut stack: Vec<(u32, u32)> = vec![(spine.root, 0)];
    acc[0].iter_mut().for_each(|x| *x = 0);
    while let Some(&mut (u, ref mut i)) = stack.last_mut() {
        let ch = spine.children(u);
        if (*i as usize) < ch.len() {
            let c = ch[*i as usize];
            *i += 1;
            let d = stack.len();
            acc[d].iter_mut().for_each(|x| *x = 0);
            stack.push((c, 0));
            continue;
        }
        let d = stack.len() - 1;
        let ui = u as usize;
        let b = spine.block_no[ui];
        if b != NONE {
            block_counts(plan, persons, opts, b as usize, &mut acc[d], &mut people);
            let total: u64 = acc[d].iter().sum();
            for (k, t) in side.entity_totals.iter_mut() {
                let e = spine.ose[*k].of_block[b as usize];
                if e != NONE {
                    t[e as usize] += total;
                }
            }
            if opts.gq_units {
                crate::topdown::measurement::schema::synthetic_units(&acc[d], &hh, types, &mut one);
                side.units[b as usize * types..(b as usize + 1) * types].copy_from_slice(&one);
            }
        }
        let lu = spine.level[ui] as usize;
        if opts.invariant_levels.contains(&lu) && !by_entity.contains(&lu) {
            side.invariants.push((u, acc[d].iter().sum()));
        }
        let span = spine.span[ui] as usize;
        if span > 0 {
            let l = spine.level[ui] as usize;
            let f = first_id[&(l, span)];
            let unit = Unit { level: &spine.levels[l], id: &spine.ids[ui], queries: &plan.queries[l], samplers: &samplers[f..] };
            rows += unit.write(&acc[d], f, opts.no_noise, &mut rng, &mut ans, &mut line, w)?;
        }
        if d > 0 {
            let (lo, hi) = acc.split_at_mut(d);
            for (x, y) in lo[d - 1].iter_mut().zip(hi[0].iter()) {
                *x += *y;
            }
        }
        stack.pop();
    }
    Ok(rows)
}

/// The block `b`'s histogram into `acc`: the person table's row, or the synthetic persons drawn for it
/// (those in structural-zero cells left out).
fn block_counts(plan: &Plan, persons: &Persons, opts: &MeasureOpts, b: usize, acc: &mut [u64], people: &mut Vec<[u32; 4]>) {
    let nc = plan.schema.cells();
    match persons {
        Persons::Table(h) => {
            for (x, &y) in acc.iter_mut().zip(&h[b * nc..(b + 1) * nc]) {
                *x = y as u64;
            }
        }
        Persons::Synthetic { seed, mean } => {
            synth_block(*seed, b as u64, *mean, &plan.schema, people);
            for p in people.iter() {
                let c = plan.schema.cell(*p);
                // a synthetic person in a structural-zero cell is left out
                if !opts.structural_zero.get(c).copied().unwrap_or(false) {
                    acc[c] += 1;
                }
            }
        }
    }
}

/// A measured geounit: its geolevel's name, its id, the geolevel's queries and their samplers (from the
/// unit's first noise id on).
struct Unit<'a> {
    level: &'a str,
    id: &'a str,
    queries: &'a [MarginalQuery],
    samplers: &'a [DiscreteGaussianSampler],
}

impl Unit<'_> {
    /// Every query's noisy answers on the histogram `acc`, one CSV line per cell (noise ids from `first`);
    /// the number of lines.
    fn write<W: Write>(
        &self,
        acc: &[u64],
        first: usize,
        no_noise: bool,
        rng: &mut crate::topdown::measurement::sampler::NoiseRng,
        ans: &mut Vec<u64>,
        line: &mut String,
        w: &mut W,
    ) -> std::io::Result<u64> {
        let mut rows = 0;
        for (qi, q) in self.queries.iter().enumerate() {
            q.answer(acc, ans);
            let s = &self.samplers[qi];
            for (cell, &a) in ans.iter().enumerate() {
                let y = if no_noise { a as i64 } else { a as i64 + s.sample(rng) };
                line.clear();
                use std::fmt::Write as _;
                let _ = writeln!(line, "{},{},{},{cell},{y},{}", self.level, self.id, q.name, first + qi);
                w.write_all(line.as_bytes())?;
                rows += 1;
            }
        }
        Ok(rows)
    }
}

pub fn read_manifest(path: &Path) -> Fallible<TopdownManifest> {
    let text = std::fs::read_to_string(path).map_err(|e| err!(Io, "cannot read manifest '{}': {e}", path.display()))?;
    let m: TopdownManifest = serde_json::from_str(&text)
        .map_err(|e| err!(Input, "{}", crate::record::one_line(&format!("manifest '{}': {e}", path.display()))))?;
    if m.format != MANIFEST_FORMAT {
        return fallible!(Input, "manifest '{}': unknown format '{}'", path.display(), m.format);
    }
    Ok(m)
}
