//! SafeTab-P ([HBC25, Algorithms 1–3], §4–6): person records → population groups
//! per level → adaptive two-stage discrete Gaussian tabulation → post-processing and suppression.
//!
//! * Alg. 1: for each population-group level i (geography level × iteration level) with budget ρ_i,
//!   each group gets ρ_i/s, s = Δ(g_i) = stability (9: 8 race codes + 1 ethnicity).
//! * Alg. 2: TotalOnly groups (nation/state only): one noisy total with ρ_i/s. Others: Stage 1 noisy
//!   total with γρ_i/s; then, by the Stage-1 value against Θ₁ < Θ₂ < Θ₃: total, Sex × Age4 (T02001),
//!   Sex × Age9 (T02002) or Sex × Age23 (T02003), each with (1−γ)ρ_i/s.
//! * Alg. 3: NoisyCount adds N_Z(0, 1/(2ρ)) to each cell (exact sampler, `sampler.rs`).
//! * §5.3 post-processing: sex marginals and the T01001 total summed from the noisy cells; sub-state
//!   groups receiving only a total are suppressed when the noisy total is ≤ T (eq. 12, Table 6);
//!   then Algorithm 4 (§5.3.3, `coterminous.rs`): each set of coterminous population groups takes
//!   the counts of its hierarchically highest unsuppressed member.
//!
//! The whole input is validated (and tabulated exactly) in one streaming pass before any noise is
//! drawn; any error aborts with the file line number, and nothing is written.

use crate::err;
use crate::error::Fallible;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use crate::tabulation::calib::suppression_threshold;
use crate::tabulation::coterminous;
use crate::tabulation::manifest::{level_manifest_sigma2, Manifest};
use crate::tabulation::safetab_spec::{Config, Geography, Iterations, LevelSpec};
pub use crate::tabulation::safetab_tab::{
    tabulate_levels, tabulate_passes, LevelCounts, PassTab, TabLevel, AGE23, AGE4, AGE9, CELLS, MAX_AGE, PERSON_COLUMNS,
};
use rayon::prelude::*;
use rug::Rational;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Inputs of a run.
pub struct Inputs {
    pub config: Config,
    pub iterations: Iterations,
    pub geography: Geography,
}

impl Inputs {
    /// The inputs from a configuration and iteration files that may be built-in defaults.
    pub fn from_files(
        config: &crate::tabulation::safetab_spec::Spec,
        files: &crate::tabulation::safetab_prod::IterationFiles,
        geography: &Path,
    ) -> Fallible<Inputs> {
        Ok(Inputs { config: Config::from_spec(config)?, iterations: files.load()?, geography: Geography::load(geography)? })
    }
}

/// Summary of a run.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub persons: u64,
    /// records of states no pass of this run tabulates (production `state_filter_us`, or Puerto Rico
    /// without its pass): validated, not counted
    pub skipped: u64,
    /// the passes run ("US", "PR")
    pub passes: Vec<String>,
    pub groups: u64,
    pub t1_rows: u64,
    pub t2_rows: u64,
    pub suppressed: u64,
    pub noise_draws: u64,
    /// Algorithm 4: sets of coterminous population groups, and groups whose counts were replaced
    pub coterminous_sets: u64,
    pub coterminous_replaced: u64,
    pub manifest: Manifest,
}

/// Merge the 23 age bins of one sex into the bins starting at `starts`.
pub fn merge_bins(cells23: &[u32], starts: &[u32]) -> Vec<i64> {
    let mut out = vec![0i64; starts.len()];
    for (k, &a) in AGE23.iter().enumerate() {
        let j = starts.iter().rposition(|&s| s <= a).expect("invariant: the first bin starts at 0");
        out[j] += cells23[k] as i64;
    }
    out
}

/// What a population group releases (its "counts" in Algorithm 4's sense).
#[derive(Clone, Debug, PartialEq)]
enum Counts {
    /// T01001 total only
    Total(i64),
    /// Sex × Age: the bin starts (Age4, Age9 or Age23) and the noisy cells per sex
    SexAge(&'static [u32], [Vec<i64>; 2]),
}

struct LevelOut {
    /// per group (index geo·n_iter + local iteration): None = suppressed
    groups_out: Vec<Option<Counts>>,
    draws: u64,
    groups: u64,
    two_stage: u64,
    total_only: u64,
    /// σ² of the samplers that ran: stage 1, stage 2, total-only
    sigma2: [Rational; 3],
}

/// Algorithms 1–3 for one level plus the suppression of §5.3.2 (noisy total ≤ T).
fn noise_level(lc: &LevelCounts, spec: &LevelSpec, inp: &Inputs, src: NoiseSource, threshold: i64) -> Fallible<LevelOut> {
    let cfg = &inp.config;
    let s = Rational::from(cfg.stability);
    let per_group = spec.rho.clone() / s;
    let g = cfg.gamma.clone();
    let dg_total_only = DiscreteGaussianSampler::for_rho(&per_group)?;
    let dg1 = DiscreteGaussianSampler::for_rho(&(g.clone() * per_group.clone()))?;
    let dg2 = DiscreteGaussianSampler::for_rho(&((Rational::from(1) - g) * per_group.clone()))?;
    let mut rng = src.rng;
    let [th1, th2, th3] = spec.thresholds;
    let ni = lc.iters.len();
    let mut o = LevelOut {
        groups_out: Vec::with_capacity(lc.n_geo * ni),
        draws: 0,
        groups: 0,
        two_stage: 0,
        total_only: 0,
        sigma2: [dg1.sigma2.clone(), dg2.sigma2.clone(), dg_total_only.sigma2.clone()],
    };
    for gi in 0..lc.n_geo {
        for (li, &it) in lc.iters.iter().enumerate() {
            o.groups += 1;
            let iter = &inp.iterations.list[it as usize];
            let base = (gi * ni + li) * CELLS;
            let cells = &lc.counts[base..base + CELLS];
            let total: i64 = cells.iter().map(|&c| c as i64).sum();
            if iter.total_only && !spec.geo.substate() {
                o.total_only += 1;
                let noisy = total + dg_total_only.sample(&mut rng);
                o.draws += 1;
                o.groups_out.push(Some(Counts::Total(noisy)));
                continue;
            }
            o.two_stage += 1;
            let stage1 = total + dg1.sample(&mut rng);
            o.draws += 1;
            if stage1 < th1 {
                let noisy = total + dg2.sample(&mut rng);
                o.draws += 1;
                let suppressed = spec.geo.substate() && noisy <= threshold;
                o.groups_out.push(if suppressed { None } else { Some(Counts::Total(noisy)) });
                continue;
            }
            let starts: &'static [u32] = if stage1 < th2 {
                &AGE4
            } else if stage1 < th3 {
                &AGE9
            } else {
                &AGE23
            };
            let mut noisy_cells: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
            for (sex, out) in noisy_cells.iter_mut().enumerate() {
                let bins = merge_bins(&cells[sex * 23..sex * 23 + 23], starts);
                for b in bins {
                    out.push(b + dg2.sample(&mut rng));
                    o.draws += 1;
                }
            }
            o.groups_out.push(Some(Counts::SexAge(starts, noisy_cells)));
        }
    }
    Ok(o)
}

struct Rendered {
    t1: String,
    t2: String,
    t1_rows: u64,
    t2_rows: u64,
    suppressed: u64,
}

/// t1/t2 rows of one level (§5.3.1: sex marginals and the total are sums of the noisy cells).
fn render_level(lc: &LevelCounts, inp: &Inputs, geo: &Geography, groups_out: &[Option<Counts>]) -> Rendered {
    use std::fmt::Write as _;
    let ids = &geo.ids[&lc.level.geo];
    let rt = lc.level.region_type();
    let ni = lc.iters.len();
    let mut r = Rendered { t1: String::new(), t2: String::new(), t1_rows: 0, t2_rows: 0, suppressed: 0 };
    for gi in 0..lc.n_geo {
        for (li, &it) in lc.iters.iter().enumerate() {
            let code = &inp.iterations.list[it as usize].code;
            let rid = &ids[gi];
            match &groups_out[gi * ni + li] {
                None => r.suppressed += 1,
                Some(Counts::Total(noisy)) => {
                    let _ = writeln!(r.t1, "{rid}|{rt}|{code}|{noisy}");
                    r.t1_rows += 1;
                }
                Some(Counts::SexAge(starts, cells)) => {
                    let mut grand = 0i64;
                    for (sex, row) in cells.iter().enumerate() {
                        let mut marg = 0i64;
                        for (j, noisy) in row.iter().enumerate() {
                            marg += noisy;
                            let end = if j + 1 < starts.len() { starts[j + 1] - 1 } else { MAX_AGE };
                            let _ = writeln!(r.t2, "{rid}|{rt}|{code}|{}|{end}|{}|{noisy}", starts[j], sex + 1);
                            r.t2_rows += 1;
                        }
                        let _ = writeln!(r.t2, "{rid}|{rt}|{code}|*|*|{}|{marg}", sex + 1);
                        r.t2_rows += 1;
                        grand += marg;
                    }
                    let _ = writeln!(r.t1, "{rid}|{rt}|{code}|{grand}");
                    r.t1_rows += 1;
                }
            }
        }
    }
    r
}

/// The sets of coterminous population groups (Algorithm 4's 𝒞) as flat indices into the
/// concatenation of the levels' group vectors, each ordered by R (`coterminous::ORDER`): for each set
/// of coterminous geographic entities and each iteration, the groups of that iteration tabulated at
/// those entities (a level must be configured and tabulate the iteration; TotalOnly iterations are
/// not tabulated below state).
fn coterminous_group_sets(levels: &[LevelCounts], inp: &Inputs, geo: &Geography) -> Vec<Vec<usize>> {
    let mut offset = Vec::with_capacity(levels.len());
    let mut acc = 0usize;
    for lc in levels {
        offset.push(acc);
        acc += lc.n_geo * lc.iters.len();
    }
    let mut sets = Vec::new();
    for geo_set in coterminous::coterminous_geographies(geo) {
        for it in 0..inp.iterations.list.len() {
            let detailed = inp.iterations.list[it].detailed;
            let mut members = Vec::new();
            for &(level, e) in &geo_set {
                let found = levels.iter().enumerate().find(|(_, lc)| lc.level.geo == level && lc.level.detailed == detailed);
                if let Some((l, lc)) = found {
                    if let Some(li) = lc.local[it] {
                        members.push(offset[l] + e as usize * lc.iters.len() + li as usize);
                    }
                }
            }
            if members.len() >= 2 {
                sets.push(members);
            }
        }
    }
    sets
}

/// Headers of the released tables (SafeTab-P and SafeTab share the layout).
pub const T1_HEADER: &str = "REGION_ID|REGION_TYPE|ITERATION_CODE|COUNT";
pub const T2_HEADER: &str = "REGION_ID|REGION_TYPE|ITERATION_CODE|AGESTART|AGEEND|SEX|COUNT";

/// Write a `|`-separated table: the header line, then the pre-rendered row blocks in order.
pub fn write_table(p: &Path, header: &str, parts: &mut dyn Iterator<Item = &String>) -> Fallible<()> {
    let f = std::fs::File::create(p).map_err(|e| err!(Io, "cannot write '{}': {e}", p.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let go = || -> std::io::Result<()> {
        writeln!(w, "{header}")?;
        for s in parts {
            w.write_all(s.as_bytes())?;
        }
        w.flush()
    };
    go().map_err(|e| err!(Io, "cannot write '{}': {e}", p.display()))
}

/// The run's summary before any level is noised: the persons read and skipped, the passes, the manifest's
/// header (seeded runs are marked not for release).
fn new_summary(persons: u64, skipped: u64, passes: &[crate::tabulation::safetab_spec::Pass], seed: Option<u64>) -> RunSummary {
    RunSummary {
        persons,
        skipped,
        passes: passes.iter().map(|p| p.name().to_string()).collect(),
        groups: 0,
        t1_rows: 0,
        t2_rows: 0,
        suppressed: 0,
        noise_draws: 0,
        coterminous_sets: 0,
        coterminous_replaced: 0,
        manifest: Manifest {
            mechanism: "safetab-p".into(),
            for_release: seed.is_none(),
            seed,
            neighbors: "add-remove".into(),
            composition: if passes.len() > 1 { "disjoint-passes".into() } else { "sequential".into() },
            levels: Vec::new(),
            notes: if seed.is_some() { Some("seeded run: reproducible noise, NOT FOR RELEASE".into()) } else { None },
        },
    }
}

/// The tables t1 and t2 and the manifest, each written to a temporary file in `out` and renamed into place.
fn write_outputs(out: &Path, rendered: &[Rendered], summary: &RunSummary) -> Fallible<()> {
    std::fs::create_dir_all(out).map_err(|e| err!(Io, "cannot create '{}': {e}", out.display()))?;
    let tmp = |n: &str| -> PathBuf { out.join(format!(".{n}.tmp{}", std::process::id())) };
    write_table(&tmp("t1.txt"), T1_HEADER, &mut rendered.iter().map(|o| &o.t1))?;
    write_table(&tmp("t2.txt"), T2_HEADER, &mut rendered.iter().map(|o| &o.t2))?;
    let mj = summary.manifest.to_json();
    std::fs::write(tmp("manifest.json"), mj).map_err(|e| err!(Io, "cannot write manifest: {e}"))?;
    for n in ["t1.txt", "t2.txt", "manifest.json"] {
        std::fs::rename(tmp(n), out.join(n)).map_err(|e| err!(Io, "cannot write '{}': {e}", out.join(n).display()))?;
    }
    Ok(())
}

/// [`run`], with Algorithm 4 (coterminous geographies, §5.3.3) applied after suppression when
/// `coterminous` is true (the production post-processing) or skipped (the output of Algorithms 1–3
/// and §5.3.1–5.3.2 only).
///
/// The passes of the configuration ([HBC25, §5.4.2]) run the same algorithm on disjoint persons: the US
/// pass on the states other than 72 (those of `state_filter_us` when given), the Puerto Rico pass on
/// state 72, each with its own levels, geography and Algorithm 4; the persons file is read once and
/// the tables hold the US rows, then Puerto Rico's. Level i draws from noise substream i (config order),
/// so a run's noise does not depend on which other passes run.
pub fn run_with(inp: &Inputs, persons: &Path, out: &Path, seed: Option<u64>, progress: bool, coterminous: bool) -> Fallible<RunSummary> {
    let cfg = &inp.config;
    // thresholds (public: from the level budgets)
    let thresholds: Vec<i64> = cfg
        .levels
        .iter()
        .map(|l| if l.geo.substate() { suppression_threshold(&l.rho, cfg.stability, &cfg.gamma, &cfg.suppression_p) } else { Ok(i64::MIN) })
        .collect::<Result<_, _>>()?;
    let passes = cfg.passes();
    // per pass: the indices of its levels in the configuration, its levels, its geography
    let level_idx: Vec<Vec<usize>> =
        passes.iter().map(|p| (0..cfg.levels.len()).filter(|&i| cfg.levels[i].pass() == *p).collect()).collect();
    let specs: Vec<Vec<TabLevel>> = level_idx
        .iter()
        .map(|ix| {
            ix.iter()
                .map(|&i| {
                    let l = &cfg.levels[i];
                    TabLevel { geo: l.geo, detailed: l.detailed, include_total_only: !l.geo.substate(), pr: l.pr }
                })
                .collect()
        })
        .collect();
    let full = &inp.geography;
    let geos: Vec<Option<Geography>> = passes.iter().map(|&p| full.subset(&|st: &str| cfg.pass_of_state(st) == Some(p))).collect();
    let tabs: Vec<PassTab> = specs.iter().zip(&geos).map(|(sp, g)| PassTab { levels: sp, geo: g.as_ref() }).collect();
    let (levels, persons_n, skipped) = tabulate_passes(&tabs, cfg.stability, &inp.iterations, full, persons, progress)?;
    drop(tabs);
    // Only now is randomness touched.
    let root = match seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let mut summary = new_summary(persons_n, skipped, &passes, seed);
    let mut rendered: Vec<Rendered> = Vec::new();
    for (pi, pass) in passes.iter().enumerate() {
        let geo = geos[pi].as_ref().unwrap_or(full);
        let lv = &levels[pi];
        let ix = &level_idx[pi];
        let mut outs: Vec<LevelOut> = lv
            .par_iter()
            .zip(ix.par_iter())
            .map(|(lc, &i)| noise_level(lc, &cfg.levels[i], inp, root.substream(i as u64), thresholds[i]))
            .collect::<Result<_, _>>()?;
        // Algorithm 4 (post-processing of the released output; public sets and order), per pass
        if coterminous {
            let sets = coterminous_group_sets(lv, inp, geo);
            summary.coterminous_sets += sets.len() as u64;
            let mut flat: Vec<Option<Counts>> = outs.iter_mut().flat_map(|o| std::mem::take(&mut o.groups_out)).collect();
            summary.coterminous_replaced += coterminous::algorithm4(&mut flat, &sets) as u64;
            let mut it = flat.into_iter();
            for (o, lc) in outs.iter_mut().zip(lv) {
                o.groups_out = it.by_ref().take(lc.n_geo * lc.iters.len()).collect();
            }
        }
        rendered.extend(lv.par_iter().zip(outs.par_iter()).map(|(lc, o)| render_level(lc, inp, geo, &o.groups_out)).collect::<Vec<_>>());
        for (&i, o) in ix.iter().zip(&outs) {
            let spec = &cfg.levels[i];
            summary.groups += o.groups;
            summary.noise_draws += o.draws;
            let mut lm =
                level_manifest_sigma2(&spec.name(), &format!("rho={}", spec.rho_text), cfg.stability, &o.sigma2, o.two_stage, o.total_only);
            if passes.len() > 1 {
                lm.pass = Some(pass.name().to_string());
            }
            summary.manifest.levels.push(lm);
        }
    }
    drop(levels);
    for r in &rendered {
        summary.t1_rows += r.t1_rows;
        summary.t2_rows += r.t2_rows;
        summary.suppressed += r.suppressed;
    }
    write_outputs(out, &rendered, &summary)?;
    Ok(summary)
}
