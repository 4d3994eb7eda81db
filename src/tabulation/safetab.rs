//! SafeTab for the Detailed DHC race & ethnicity tabulations ([HSM21],
//! "RE"), run end to end on person records: `tightdp safetab`.
//!
//! Algorithms as written in RE (Notation & Algorithms):
//! * Alg. 1: for each population-group level i (geography × iteration level) with budget ρ_i, every
//!   group P of the level is tabulated with ρ_i/s, s = Δ(g_i) (the stability, F.1: 9).
//! * Alg. 2: P ∈ TotalOnly: output NoisyCount(df, Γ, ρ). Otherwise Step 1: total ← NoisyCount(df, Γ, γρ)
//!   (not output); Step 2 with (1−γ)ρ: total < Θ₁ → output the noisy total; < Θ₂ → Sex × Age4;
//!   < Θ₃ → Sex × Age9; else Sex × Age23 (one NoisyCount per cell, empty cells included).
//! * Alg. 3: Γ = Geometric → Alg. 4, BaseGeometric(c, ρ) = c + L_Z(1/ρ), the two-sided geometric with
//!   P[y] ∝ e^{−ρ|y|} (eq. 10 with b = 1/ρ; ρ is a pure-DP ε); Γ = Discrete Gaussian → Alg. 5,
//!   c + N_Z(1/(2ρ)) (ρ is zCDP). Both samplers are exact (noise::sampler).
//!
//! Choices the paper leaves open, and what this code does (each is a configuration or a documented
//! convention, not the paper's):
//! * TotalOnly is "a set of population groups" (§2): here the groups whose iteration is flagged
//!   TOTAL_ONLY in the iterations file, at every geography (RE has no sub-state exclusion, unlike
//!   SafeTab-P, and no suppression step: it releases negative and inconsistent counts, §1).
//! * Θ₁ < Θ₂ < Θ₃ are not given in RE; the shipped configuration uses SafeTab-P's values per level kind.
//! * The Age4 / Age9 / Age23 bins are not defined in RE; SafeTab-P's (T02001–T02003) are used.
//! * Alg. 2 outputs nothing else: no sex marginals or derived totals are added (post-processing that RE
//!   does not describe).
//!
//! The whole input is validated and tabulated exactly (safetab_p::tabulate_levels, one streaming pass)
//! before any randomness is touched; the config is validated, including the MOE targets (Table 4), at
//! load. Outputs: `t1.txt` (totals: TotalOnly groups and Step-2 totals), `t2.txt` (Sex × Age cells),
//! `moe.csv` (per level and query: scale, the paper's MOE formula, the exact 95 % MOE) and
//! `manifest.json` (every noise law; `tightdp certify` gives the exact ε).

use crate::error::Fallible;
use crate::noise::dlaplace::DiscreteLaplace;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use crate::num::parse_rational;
use crate::record::{render_rows, Format, Record};
use crate::tabulation::calib;
use crate::tabulation::manifest::{level_manifest_noise, Manifest, NoiseLaw};
use crate::tabulation::safetab_p::{merge_bins, tabulate_levels, LevelCounts, TabLevel, AGE23, AGE4, AGE9, CELLS, MAX_AGE};
use crate::tabulation::safetab_spec::{GeoLevel, Geography, Iterations};
use crate::{err, fallible};
use rand_chacha::rand_core::RngCore;
use rayon::prelude::*;
use rug::Rational;
use serde::Deserialize;
use std::path::Path;

/// Γ of RE Alg. 1–3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseKind {
    /// Alg. 4; budgets are pure-DP ε (Theorem 1: the release is Σ ε_i-DP)
    Geometric,
    /// Alg. 5; budgets are zCDP ρ (Theorem 3: the release is Σ ρ_i-zCDP)
    DiscreteGaussian,
}

impl NoiseKind {
    pub fn name(&self) -> &'static str {
        match self {
            NoiseKind::Geometric => "geometric",
            NoiseKind::DiscreteGaussian => "discrete-gaussian",
        }
    }
    /// Prefix of the manifest's budget text (checked by `certify` against the listed noise).
    fn budget_key(&self) -> &'static str {
        match self {
            NoiseKind::Geometric => "eps",
            NoiseKind::DiscreteGaussian => "rho",
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel {
    geo: String,
    iterations: String,
    budget: String,
    #[serde(default)]
    moe: Option<u32>,
    thresholds: Vec<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    noise: String,
    gamma: String,
    stability: u32,
    level: Vec<RawLevel>,
}

/// One population-group level of the configuration.
#[derive(Clone, Debug)]
pub struct ReLevel {
    pub geo: GeoLevel,
    pub detailed: bool,
    /// ρ_i of Alg. 1 (pure ε for the geometric variant, zCDP ρ for the discrete Gaussian one)
    pub budget: Rational,
    pub budget_text: String,
    /// Table 4 MOE target of one Step-2 count, if given: checked at load with the paper's formula
    pub moe: Option<u32>,
    pub thresholds: [i64; 3],
}

impl ReLevel {
    pub fn name(&self) -> String {
        format!("{}-{}", self.geo.name(), if self.detailed { "detailed" } else { "regional" })
    }
}

/// A SafeTab (race & ethnicity) run configuration.
#[derive(Clone, Debug)]
pub struct ReConfig {
    pub noise: NoiseKind,
    pub gamma: Rational,
    pub stability: u32,
    pub levels: Vec<ReLevel>,
}

/// Largest stability accepted (RE F.1 uses 9; a person has ≤ 8 race codes and 1 ethnicity code).
pub const MAX_STABILITY: u32 = 1000;

/// Per-count noise scales (geometric b, discrete Gaussian σ²) outside this range are refused: below,
/// the rationals are pointless; above, the noise swamps any count and the certified tails get slow.
fn scale_in_range(x: &Rational) -> bool {
    *x >= (1, 1_000_000_000) && *x <= 100_000_000
}

impl ReConfig {
    pub fn from_path(p: &Path) -> Fallible<ReConfig> {
        let text = std::fs::read_to_string(p).map_err(|e| err!(Io, "cannot read '{}': {e}", p.display()))?;
        Self::parse(&text, &p.display().to_string())
    }

    pub fn parse(text: &str, name: &str) -> Fallible<ReConfig> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| err!(Input, "{name}: {}", crate::record::one_line(&e.to_string())))?;
        let noise = match raw.noise.trim().to_ascii_lowercase().as_str() {
            "geometric" => NoiseKind::Geometric,
            "discrete-gaussian" => NoiseKind::DiscreteGaussian,
            o => return fallible!(Input, "{name}: noise must be geometric or discrete-gaussian, got '{o}'"),
        };
        let gamma = parse_rational(&raw.gamma).map_err(|e| e.context(format!("{name}: gamma")))?;
        if gamma <= 0 || gamma >= 1 {
            return fallible!(Input, "{name}: gamma must lie in (0, 1)");
        }
        if raw.stability == 0 || raw.stability > MAX_STABILITY {
            return fallible!(Input, "{name}: stability must lie in 1–{MAX_STABILITY}");
        }
        let mut levels: Vec<ReLevel> = Vec::new();
        for (i, l) in raw.level.iter().enumerate() {
            let at = format!("{name}: level {}", i + 1);
            let geo = GeoLevel::parse(&l.geo).map_err(|e| e.context(&at))?;
            if !matches!(geo, GeoLevel::Usa | GeoLevel::State | GeoLevel::County | GeoLevel::Aiannh) {
                return fallible!(Input, "{at}: {} is not a SafeTab geography (RE §1: nation, state, county, AIANNH)", geo.name());
            }
            let detailed = match l.iterations.trim().to_ascii_lowercase().as_str() {
                "detailed" => true,
                "regional" => false,
                o => return fallible!(Input, "{at}: iterations must be detailed or regional, got '{o}'"),
            };
            let budget = parse_rational(&l.budget).map_err(|e| e.context(format!("{at}: budget")))?;
            if budget <= 0 {
                return fallible!(Input, "{at}: budget must be positive, got '{}'", l.budget);
            }
            if l.thresholds.len() != 3 || !(l.thresholds[0] < l.thresholds[1] && l.thresholds[1] < l.thresholds[2]) {
                return fallible!(Input, "{at}: thresholds must be three increasing integers");
            }
            if l.moe == Some(0) {
                return fallible!(Input, "{at}: moe must be ≥ 1");
            }
            let lv = ReLevel {
                geo,
                detailed,
                budget,
                budget_text: l.budget.trim().to_string(),
                moe: l.moe,
                thresholds: [l.thresholds[0], l.thresholds[1], l.thresholds[2]],
            };
            if levels.iter().any(|x| x.name() == lv.name()) {
                return fallible!(Input, "{at}: level {} listed twice", lv.name());
            }
            levels.push(lv);
        }
        if levels.is_empty() {
            return fallible!(Input, "{name}: no [[level]]");
        }
        let cfg = ReConfig { noise, gamma, stability: raw.stability, levels };
        for l in &cfg.levels {
            for law in cfg.laws(l) {
                let x = match &law {
                    NoiseLaw::DiscreteLaplace { scale } => scale,
                    NoiseLaw::DiscreteGaussian { sigma2 } => sigma2,
                };
                if !scale_in_range(x) {
                    return fallible!(
                        Input,
                        "{name}: level {}: a per-count noise scale of {} is outside [1e-9, 1e8]; check budget, gamma and stability",
                        l.name(),
                        x.to_f64()
                    );
                }
            }
            if let Some(target) = l.moe {
                let m = cfg.moe_paper(&cfg.laws(l)[1])?;
                if m > i64::from(target) {
                    return fallible!(Input,
                        "{name}: level {}: budget {} gives a Step-2 95% MOE of {m} by the paper's formula (RE {}), above its target {target}",
                        l.name(),
                        l.budget_text,
                        if noise == NoiseKind::Geometric { "D.3" } else { "E.2" }
                    );
                }
            }
        }
        Ok(cfg)
    }

    /// The per-count budgets of a level's three kinds of NoisyCount call (Alg. 1–2): Stage 1 γρ_i/s,
    /// Stage 2 (1−γ)ρ_i/s, TotalOnly ρ_i/s.
    pub fn count_budgets(&self, l: &ReLevel) -> [Rational; 3] {
        let per_group = l.budget.clone() / Rational::from(self.stability);
        [self.gamma.clone() * per_group.clone(), (Rational::from(1) - self.gamma.clone()) * per_group.clone(), per_group]
    }

    /// The noise laws of those calls: geometric b = 1/ρ (Alg. 4), discrete Gaussian σ² = 1/(2ρ) (Alg. 5).
    pub fn laws(&self, l: &ReLevel) -> [NoiseLaw; 3] {
        self.count_budgets(l).map(|r| match self.noise {
            NoiseKind::Geometric => NoiseLaw::DiscreteLaplace { scale: Rational::from(1) / r },
            NoiseKind::DiscreteGaussian => NoiseLaw::DiscreteGaussian { sigma2: Rational::from(1) / (Rational::from(2) * r) },
        })
    }

    /// The paper's 95 % MOE of one count of this law (D.3 floor formula / E.2 ⌊1.96σ⌋).
    pub fn moe_paper(&self, law: &NoiseLaw) -> Fallible<i64> {
        match law {
            NoiseLaw::DiscreteLaplace { scale } => calib::geometric_moe_paper(scale),
            NoiseLaw::DiscreteGaussian { sigma2 } => calib::dg_moe_paper(sigma2),
        }
    }
}

/// The exact sampler of one law.
enum Sampler {
    Geo(DiscreteLaplace),
    Dg(DiscreteGaussianSampler),
}

impl Sampler {
    fn new(law: &NoiseLaw) -> Fallible<Sampler> {
        Ok(match law {
            NoiseLaw::DiscreteLaplace { scale } => Sampler::Geo(DiscreteLaplace::new(scale.clone())?),
            NoiseLaw::DiscreteGaussian { sigma2 } => Sampler::Dg(DiscreteGaussianSampler::new(sigma2.clone())?),
        })
    }
    fn sample<R: RngCore>(&self, rng: &mut R) -> i64 {
        match self {
            Sampler::Geo(s) => s.sample(rng),
            Sampler::Dg(s) => s.sample(rng),
        }
    }
    /// NoisyCount (Alg. 3): the exact count plus one draw.
    fn noisy<R: RngCore>(&self, c: i64, rng: &mut R) -> Fallible<i64> {
        c.checked_add(self.sample(rng)).ok_or_else(|| err!(Input, "noisy count out of range"))
    }
}

/// The MOE table of a configuration: per level and kind of count, the scale, the paper's 95 % MOE
/// (RE D.3 eq. 36 / E.2, as printed), the exact 95 % MOE and the exact coverage of the paper's MOE.
pub fn moe_rows(cfg: &ReConfig) -> Fallible<Vec<Record>> {
    let prec = 128;
    let mut rows = Vec::new();
    for l in &cfg.levels {
        let budgets = cfg.count_budgets(l);
        for (k, law) in cfg.laws(l).iter().enumerate() {
            let (scale_name, scale, exact, cov) = match law {
                NoiseLaw::DiscreteLaplace { scale } => {
                    let m = cfg.moe_paper(law)?;
                    ("b", scale, calib::geometric_moe_exact(scale)?, calib::geometric_coverage(scale, m, prec))
                }
                NoiseLaw::DiscreteGaussian { sigma2 } => {
                    let m = cfg.moe_paper(law)?;
                    ("sigma2", sigma2, calib::dg_moe_exact(sigma2)?, calib::dg_coverage(sigma2, m, prec)?)
                }
            };
            let mut r = Record::new();
            r.push("level", l.name())
                .push("noise", cfg.noise.name())
                .push("budget", l.budget_text.clone())
                .push("query", ["stage1-total", "stage2-cell", "total-only"][k])
                .push("count_budget", crate::tabulation::manifest::rat_str(&budgets[k]))
                .push("scale", format!("{scale_name}={}", crate::tabulation::manifest::rat_str(scale)))
                .push("moe_target", if k == 1 { l.moe.map(|m| m.to_string()).unwrap_or_else(|| "-".into()) } else { "-".into() })
                .push("moe_paper", cfg.moe_paper(law)?.to_string())
                .push("moe_exact_95", exact.to_string())
                .push("coverage_at_moe_paper_lo", crate::num::fmt_down(cov.lo(), 10))
                .push("coverage_at_moe_paper_hi", crate::num::fmt_up(cov.hi(), 10));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Counts of what a run released.
#[derive(Debug, Clone, Default)]
pub struct ReSummary {
    pub persons: u64,
    pub groups: u64,
    pub total_only: u64,
    /// two-stage groups by Step-2 table: total, Sex × Age4, Sex × Age9, Sex × Age23
    pub branch: [u64; 4],
    pub t1_rows: u64,
    pub t2_rows: u64,
    pub noise_draws: u64,
}

struct LevelOut {
    t1: String,
    t2: String,
    s: ReSummary,
}

/// Alg. 2 for every group of one level (Alg. 1's inner loop), Step-2 tables written as text rows.
fn noise_level(lc: &LevelCounts, l: &ReLevel, cfg: &ReConfig, its: &Iterations, geo: &Geography, src: NoiseSource) -> Fallible<LevelOut> {
    let laws = cfg.laws(l);
    let stage1 = Sampler::new(&laws[0])?;
    let stage2 = Sampler::new(&laws[1])?;
    let total_only = Sampler::new(&laws[2])?;
    let mut rng = src.rng;
    let ids = &geo.ids[&l.geo];
    let rt = l.geo.name();
    let [th1, th2, th3] = l.thresholds;
    let mut o = LevelOut { t1: String::new(), t2: String::new(), s: ReSummary::default() };
    use std::fmt::Write as _;
    let ni = lc.iters.len();
    for gi in 0..lc.n_geo {
        for (li, &it) in lc.iters.iter().enumerate() {
            o.s.groups += 1;
            let iter = &its.list[it as usize];
            let base = (gi * ni + li) * CELLS;
            let cells = &lc.counts[base..base + CELLS];
            let total: i64 = cells.iter().map(|&c| i64::from(c)).sum();
            let rid = &ids[gi];
            if iter.total_only {
                // Alg. 2 line 4
                let noisy = total_only.noisy(total, &mut rng)?;
                o.s.total_only += 1;
                o.s.noise_draws += 1;
                let _ = writeln!(o.t1, "{rid}|{rt}|{}|{noisy}", iter.code);
                o.s.t1_rows += 1;
                continue;
            }
            // Step 1 (line 10): the noisy total chooses the Step-2 table and is not released
            let t = stage1.noisy(total, &mut rng)?;
            o.s.noise_draws += 1;
            if t < th1 {
                // line 14
                let noisy = stage2.noisy(total, &mut rng)?;
                o.s.noise_draws += 1;
                o.s.branch[0] += 1;
                let _ = writeln!(o.t1, "{rid}|{rt}|{}|{noisy}", iter.code);
                o.s.t1_rows += 1;
                continue;
            }
            // lines 15–26
            let (starts, b): (&[u32], usize) = if t < th2 {
                (&AGE4, 1)
            } else if t < th3 {
                (&AGE9, 2)
            } else {
                (&AGE23, 3)
            };
            o.s.branch[b] += 1;
            for sex in 0..2 {
                let bins = merge_bins(&cells[sex * 23..sex * 23 + 23], starts);
                for (j, c) in bins.iter().enumerate() {
                    let noisy = stage2.noisy(*c, &mut rng)?;
                    o.s.noise_draws += 1;
                    let end = if j + 1 < starts.len() { starts[j + 1] - 1 } else { MAX_AGE };
                    let _ = writeln!(o.t2, "{rid}|{rt}|{}|{}|{end}|{}|{noisy}", iter.code, starts[j], sex + 1);
                    o.s.t2_rows += 1;
                }
            }
        }
    }
    Ok(o)
}

/// The manifest of a run with this configuration (group counts from the run).
pub fn manifest(cfg: &ReConfig, per_level: &[(u64, u64)], seed: Option<u64>) -> Manifest {
    let levels = cfg
        .levels
        .iter()
        .zip(per_level)
        .map(|(l, &(two, tot))| {
            level_manifest_noise(&l.name(), &format!("{}={}", cfg.noise.budget_key(), l.budget_text), cfg.stability, &cfg.laws(l), two, tot)
        })
        .collect();
    Manifest {
        mechanism: format!("safetab (detailed DHC race & ethnicity), {}", cfg.noise.name()),
        for_release: seed.is_none(),
        seed,
        // RE Definition 1: neighbours differ by one record (add/remove)
        neighbors: "add-remove".into(),
        composition: "sequential".into(),
        levels,
        notes: if seed.is_some() { Some("seeded run: reproducible noise, NOT FOR RELEASE".into()) } else { None },
    }
}

/// Run SafeTab: validate + tabulate, then noise, then write `t1.txt`, `t2.txt`, `moe.csv` and
/// `manifest.json` into `out` (the caller's staging directory: all or nothing).
pub fn run(
    cfg: &ReConfig,
    its: &Iterations,
    geo: &Geography,
    persons: &Path,
    out: &Path,
    seed: Option<u64>,
    progress: bool,
) -> Fallible<(ReSummary, Manifest)> {
    let moe = moe_rows(cfg)?;
    let specs: Vec<TabLevel> =
        cfg.levels.iter().map(|l| TabLevel { geo: l.geo, detailed: l.detailed, include_total_only: true, pr: false }).collect();
    let (levels, persons_n) = tabulate_levels(&specs, cfg.stability, its, geo, persons, progress)?;
    // Only now is randomness touched.
    let root = match seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let outs: Vec<LevelOut> = levels
        .par_iter()
        .enumerate()
        .map(|(i, lc)| noise_level(lc, &cfg.levels[i], cfg, its, geo, root.substream(i as u64)))
        .collect::<Result<_, _>>()?;
    drop(levels);
    let mut s = ReSummary { persons: persons_n, ..ReSummary::default() };
    let mut per_level = Vec::new();
    for o in &outs {
        s.groups += o.s.groups;
        s.total_only += o.s.total_only;
        for k in 0..4 {
            s.branch[k] += o.s.branch[k];
        }
        s.t1_rows += o.s.t1_rows;
        s.t2_rows += o.s.t2_rows;
        s.noise_draws += o.s.noise_draws;
        per_level.push((o.s.groups - o.s.total_only, o.s.total_only));
    }
    let m = manifest(cfg, &per_level, seed);
    use crate::tabulation::safetab_p::{write_table, T1_HEADER, T2_HEADER};
    write_table(&out.join("t1.txt"), T1_HEADER, &mut outs.iter().map(|o| &o.t1))?;
    write_table(&out.join("t2.txt"), T2_HEADER, &mut outs.iter().map(|o| &o.t2))?;
    let p = out.join("moe.csv");
    std::fs::write(&p, render_rows(&moe, Format::Csv)).map_err(|e| err!(Io, "cannot write '{}': {e}", p.display()))?;
    let p = out.join("manifest.json");
    std::fs::write(&p, m.to_json()).map_err(|e| err!(Io, "cannot write '{}': {e}", p.display()))?;
    Ok((s, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::tabulation::safetab_re;
    use std::path::PathBuf;

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    fn repo(p: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
    }

    fn shipped(kind: &str) -> ReConfig {
        ReConfig::from_path(&repo(&format!("data/safetab/safetab-{kind}.toml"))).unwrap()
    }

    /// The shipped configurations are RE Table 4: 7 levels (F.1), budgets = the printed Total column
    /// and the MOE targets, in the order of the table; each level's Step-2 share 9 × (1−γ)ρ_i/s printed
    /// as Table 4 prints it equals `safetab-tables`' Step 2 (safetab_re::table4, the calibration).
    #[test]
    fn shipped_configs_are_table4() {
        let t4 = safetab_re::table4().unwrap();
        let row = |moe: u32| t4.iter().find(|r| r.get("moe") == Some(moe.to_string().as_str())).unwrap().clone();
        let names =
            ["USA-detailed", "STATE-detailed", "COUNTY-detailed", "AIANNH-detailed", "USA-regional", "STATE-regional", "COUNTY-regional"];
        for kind in ["geometric", "dgauss"] {
            let c = shipped(kind);
            assert_eq!(c.gamma, q("0.1"));
            assert_eq!(c.stability, 9);
            assert_eq!(c.levels.iter().map(|l| l.name()).collect::<Vec<_>>(), names);
            for (l, &moe) in c.levels.iter().zip(safetab_re::LEVEL_MOES.iter()) {
                assert_eq!(l.moe, Some(moe));
                let r = row(moe);
                let (tot, st2) = if kind == "geometric" { ("geo_total", "geo_step2") } else { ("dg_total", "dg_step2") };
                assert_eq!(q(r.get(tot).unwrap()), l.budget, "{kind} {}", l.name());
                // Step 2 of the whole level: s × (1−γ)ρ_i/s, printed to the places Table 4 uses
                let step2 = Rational::from(9) * c.count_budgets(l)[1].clone();
                let places = r.get(st2).unwrap().split('.').nth(1).unwrap().len() as u32;
                assert_eq!(calib::dec(&step2, places), r.get(st2).unwrap(), "{kind} {}", l.name());
            }
        }
        assert_eq!(shipped("geometric").noise, NoiseKind::Geometric);
        assert_eq!(shipped("dgauss").noise, NoiseKind::DiscreteGaussian);
    }

    /// moe.csv against docs/research/safetab_run_numbers.py (mpmath, pmf summed directly from RE eq. 10
    /// and Def. 6; saved output safetab_run_numbers.out.txt): (paper MOE, exact 95 % MOE, coverage of
    /// the paper's MOE) for Stage 1, Stage 2 and TotalOnly counts of the Table 4 budgets.
    #[test]
    fn moe_rows_match_independent_values() {
        #[rustfmt::skip]
        let geo: [(&str, &str, i64, i64, f64); 9] = [
            ("USA-detailed", "stage1-total", 62, 63, 0.948468351356985),
            ("USA-detailed", "stage2-cell", 6, 7, 0.939075510325719),
            ("USA-detailed", "total-only", 5, 6, 0.928447342303982),
            ("COUNTY-detailed", "stage1-total", 107, 108, 0.948914896666794),
            ("COUNTY-detailed", "stage2-cell", 11, 12, 0.943370780754338),
            ("COUNTY-detailed", "total-only", 10, 11, 0.94577090435109),
            ("COUNTY-regional", "stage1-total", 456, 457, 0.949843967517019),
            ("COUNTY-regional", "stage2-cell", 50, 51, 0.949203867638051),
            ("COUNTY-regional", "total-only", 45, 46, 0.949375259169792),
        ];
        #[rustfmt::skip]
        let dg: [(&str, &str, i64, i64, f64); 9] = [
            ("STATE-detailed", "stage1-total", 17, 18, 0.943517248679209),
            ("STATE-detailed", "stage2-cell", 5, 6, 0.928998070433708),
            ("STATE-detailed", "total-only", 5, 6, 0.94309938538207),
            ("AIANNH-detailed", "stage1-total", 32, 33, 0.946658331837315),
            ("AIANNH-detailed", "stage2-cell", 10, 11, 0.939194037332369),
            ("AIANNH-detailed", "total-only", 10, 10, 0.951914662718175),
            ("USA-regional", "stage1-total", 147, 147, 0.950780028399405),
            ("USA-regional", "stage2-cell", 49, 49, 0.952311303029109),
            ("USA-regional", "total-only", 46, 46, 0.950092669678992),
        ];
        for (kind, want) in [("geometric", geo), ("dgauss", dg)] {
            let rows = moe_rows(&shipped(kind)).unwrap();
            assert_eq!(rows.len(), 21);
            for (level, query, paper, exact, cov) in want {
                let r = rows.iter().find(|r| r.get("level") == Some(level) && r.get("query") == Some(query)).unwrap();
                assert_eq!(r.get("moe_paper").unwrap(), paper.to_string(), "{kind} {level} {query}");
                assert_eq!(r.get("moe_exact_95").unwrap(), exact.to_string(), "{kind} {level} {query}");
                let lo: f64 = r.get("coverage_at_moe_paper_lo").unwrap().parse().unwrap();
                let hi: f64 = r.get("coverage_at_moe_paper_hi").unwrap().parse().unwrap();
                assert!(lo <= cov + 1e-12 && cov - 1e-12 <= hi && hi - lo < 1e-9, "{kind} {level} {query}: [{lo}, {hi}] vs {cov}");
            }
            // the Table 4 target is what the paper's formula gives (or better) at every level
            for r in rows.iter().filter(|r| r.get("query") == Some("stage2-cell")) {
                let t: i64 = r.get("moe_target").unwrap().parse().unwrap();
                assert!(r.get("moe_paper").unwrap().parse::<i64>().unwrap() <= t);
            }
        }
    }

    /// The paper's MOE formulas on hand-checkable scales. Geometric, b = 0.91 (1/b = 1.098901,
    /// r = e^{−1/b} = 0.333270): P[|Y| > m] = 2r^{m+1}/(1+r) (RE eq. 34) is 0.05551 at m = 2 and 0.01850
    /// at m = 3, so the exact 95 % MOE is 3; eq. 36 as printed, ⌊0.91·ln(40/(1+e^{1.098901}))⌋ =
    /// ⌊2.0952⌋ = 2 (values by hand, confirmed with mpmath). Discrete Gaussian (E.2): σ² = 25 →
    /// ⌊1.96·5⌋ = 9. Scale 1/10: P[Y ≠ 0] = 2e^{−10}/(1+e^{−10}) < 0.05, MOE 0.
    #[test]
    fn moe_formulas_hand_cases() {
        assert_eq!(calib::geometric_moe_paper(&q("0.91")).unwrap(), 2);
        assert_eq!(calib::geometric_moe_exact(&q("0.91")).unwrap(), 3);
        let c2 = calib::geometric_coverage(&q("0.91"), 2, 128).to_f64();
        let c3 = calib::geometric_coverage(&q("0.91"), 3, 128).to_f64();
        assert!(c2 < 0.95 && c3 >= 0.95, "{c2} {c3}");
        assert_eq!(calib::dg_moe_paper(&q("25")).unwrap(), 9);
        assert_eq!(calib::geometric_moe_exact(&q("1/10")).unwrap(), 0);
    }

    /// χ² of the run's own sampler wiring (Alg. 4 with b = s/(share·ε_i)) at the shipped (Nation,
    /// Detailed) Stage-2 scale 1000/427 and Stage-1 scale 9000/427 against the pmf of RE eq. 10. Fixed
    /// seeds and 40 000 draws; bins −K+1 … K−1 plus the two tails |y| ≥ K (K = 15 and 60: every expected
    /// count ≥ 21), so dof = 2K; the threshold is the upper 0.1 % point of χ²_{2K}, 59.703 (dof 30) and
    /// 173.617 (dof 120) (docs/research/safetab_run_numbers.py, mpmath). The samplers' own χ² tests at
    /// b = 1/3, 2.34, 17.02 are noise::sampler::tests::dlaplace_chi2_and_moments.
    #[test]
    fn geometric_sampler_chi2_at_run_scales() {
        let c = shipped("geometric");
        let l = &c.levels[0];
        for (k, kk, crit, seed) in [(1usize, 15i64, 59.703, 21u64), (0, 60, 173.617, 22)] {
            let law = &c.laws(l)[k];
            let NoiseLaw::DiscreteLaplace { scale } = law else { panic!() };
            assert_eq!(*scale, if k == 1 { q("1000/427") } else { q("9000/427") });
            let s = Sampler::new(law).unwrap();
            let mut src = NoiseSource::seeded(seed);
            let n = 40_000usize;
            let mut obs = vec![0f64; (2 * kk + 1) as usize];
            for _ in 0..n {
                obs[(s.sample(&mut src.rng).clamp(-kk, kk) + kk) as usize] += 1.0;
            }
            let b = scale.to_f64();
            let r = (-1.0 / b).exp();
            let pmf = |y: i64| (1.0 - r) / (1.0 + r) * r.powi(y.unsigned_abs() as i32);
            let tail = r.powi(kk as i32) / (1.0 + r); // P[Y ≥ K]
            let mut stat = 0.0;
            for (i, o) in obs.iter().enumerate() {
                let y = i as i64 - kk;
                let e = n as f64 * if y.abs() == kk { tail } else { pmf(y) };
                assert!(e >= 5.0);
                stat += (o - e) * (o - e) / e;
            }
            assert!(stat < crit, "b = {b}: χ² = {stat} ≥ {crit}");
        }
    }

    /// A small constructed input, tabulated by Alg. 1–2 with noise so small that every draw is 0
    /// (budget 10⁶, γ = 1/2, s = 9: b ≤ 1.8e-5, P[draw ≠ 0] = 2r/(1+r) < 2e^{−55555} per draw), so the
    /// release is the exact Alg. 2 output, derived by hand:
    /// persons: 10 × (age 3, sex 1, race 1000 → D01A, eth 2000 → E01), 10 × (age 70, sex 2, 1000, 2000),
    /// 5 × (age 30, sex 1, race 1001 → D02A TotalOnly, 2000). Group totals: D01A 20, E01 25, D02A 5.
    /// USA Θ = (21, 30, 40): D01A 20 < 21 → total; E01 25 ∈ [21, 30) → Sex × Age4.
    /// STATE Θ = (10, 20, 30): D01A 20 is not < 20 → Age9 (strict <, line 15); E01 25 → Age9.
    /// COUNTY Θ = (1, 2, 20): both ≥ 20 → Age23. D02A: a total at every geography (line 4).
    #[test]
    fn alg2_branches_on_a_constructed_input() {
        let d = tempfile::tempdir().unwrap();
        let w = |n: &str, t: &str| std::fs::write(d.path().join(n), t).unwrap();
        w("iter.txt", "ITERATION_CODE|ITERATION_NAME|LEVEL|ALONE|KIND|TOTAL_ONLY\nD01A|one|detailed|True|race|False\nD02A|two|detailed|True|race|True\nE01|eth|detailed|True|ethnicity|False\n");
        w("codes.txt", "ITERATION_CODE|CODE\nD01A|1000\nD02A|1001\nE01|2000\n");
        w("geo.txt", "TABBLKST|TABBLKCOU|TABTRACTCE|TABBLK|PLACEFP|AIANNHCE\n01|001|000001|0001|99999|9999\n");
        let mut p =
            String::from("QAGE,QSEX,TABBLKST,TABBLKCOU,TABTRACTCE,TABBLK,QRACE1,QRACE2,QRACE3,QRACE4,QRACE5,QRACE6,QRACE7,QRACE8,QSPAN\n");
        for _ in 0..10 {
            p += "3,1,01,001,000001,0001,1000,,,,,,,,2000\n70,2,01,001,000001,0001,1000,,,,,,,,2000\n";
        }
        for _ in 0..5 {
            p += "30,1,01,001,000001,0001,1001,,,,,,,,2000\n";
        }
        w("persons.csv", &p);
        let cfg = ReConfig::parse(
            "noise = \"geometric\"\ngamma = \"1/2\"\nstability = 9\n\
             [[level]]\ngeo = \"USA\"\niterations = \"detailed\"\nbudget = \"1000000\"\nthresholds = [21, 30, 40]\n\
             [[level]]\ngeo = \"STATE\"\niterations = \"detailed\"\nbudget = \"1000000\"\nthresholds = [10, 20, 30]\n\
             [[level]]\ngeo = \"COUNTY\"\niterations = \"detailed\"\nbudget = \"1000000\"\nthresholds = [1, 2, 20]\n",
            "test",
        )
        .unwrap();
        let its = Iterations::load(&d.path().join("iter.txt"), &d.path().join("codes.txt")).unwrap();
        let geo = Geography::load(&d.path().join("geo.txt")).unwrap();
        let out = d.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let (s, m) = run(&cfg, &its, &geo, &d.path().join("persons.csv"), &out, Some(1), false).unwrap();
        assert_eq!((s.persons, s.groups, s.total_only), (25, 9, 3));
        assert_eq!(s.branch, [1, 1, 2, 2]);
        let t1 = std::fs::read_to_string(out.join("t1.txt")).unwrap();
        assert_eq!(t1, "REGION_ID|REGION_TYPE|ITERATION_CODE|COUNT\n1|USA|D01A|20\n1|USA|D02A|5\n01|STATE|D02A|5\n01001|COUNTY|D02A|5\n");
        let t2 = std::fs::read_to_string(out.join("t2.txt")).unwrap();
        let rows = |rt: &str, it: &str| -> Vec<String> {
            t2.lines().filter(|l| l.contains(&format!("|{rt}|{it}|"))).map(|l| l.split('|').skip(3).collect::<Vec<_>>().join("|")).collect()
        };
        // Sex × Age4 of E01 (bins 0–17, 18–44, 45–64, 65–115): sex 1: 10, 5, 0, 0; sex 2: 0, 0, 0, 10
        assert_eq!(
            rows("USA", "E01"),
            ["0|17|1|10", "18|44|1|5", "45|64|1|0", "65|115|1|0", "0|17|2|0", "18|44|2|0", "45|64|2|0", "65|115|2|10"]
        );
        assert!(rows("USA", "D01A").is_empty());
        // Age9 bins start 0, 5, 18, 25, 35, 45, 55, 65, 75: age 3 → 0–4, age 70 → 65–74, age 30 → 25–34
        let st = rows("STATE", "D01A");
        assert_eq!(st.len(), 18);
        assert!(st.contains(&"0|4|1|10".to_string()) && st.contains(&"65|74|2|10".to_string()));
        assert_eq!(st.iter().filter(|r| !r.ends_with("|0")).count(), 2);
        let st = rows("STATE", "E01");
        assert!(st.contains(&"25|34|1|5".to_string()));
        // Age23 at COUNTY: 46 cells; age 70 is in the 70–74 bin
        let co = rows("COUNTY", "D01A");
        assert_eq!(co.len(), 46);
        assert!(co.contains(&"0|4|1|10".to_string()) && co.contains(&"70|74|2|10".to_string()));
        assert_eq!(s.t2_rows, 8 + 18 + 18 + 46 + 46);
        assert_eq!(s.t1_rows, 4);
        // draws: 9 groups, 6 Step-1 totals, and one per released count
        assert_eq!(s.noise_draws, 6 + s.t1_rows + s.t2_rows);
        // the manifest: Σ ε_i pure DP, each level's listed noise spends its budget (certify's check)
        m.validate().unwrap();
        assert_eq!(m.levels[0].structures.len(), 2);
        assert_eq!(m.levels[0].budget, "eps=1000000");
        assert!(std::fs::read_to_string(out.join("moe.csv")).unwrap().starts_with("level,noise,budget,query"));
    }

    #[test]
    fn config_errors_are_one_line_and_named() {
        let base = std::fs::read_to_string(repo("data/safetab/safetab-geometric.toml")).unwrap();
        for (edit, want) in [
            (base.replacen("budget = \"4.27\"", "budget = \"0\"", 1), "budget must be positive"),
            (base.replacen("geo = \"AIANNH\"", "geo = \"TRACT\"", 1), "not a SafeTab geography"),
            (base.replacen("moe = 6 ", "moe = 5 ", 1), "above its target 5"),
            (base.replacen("thresholds = [471, 971, 6971]", "thresholds = [471, 471, 6971]", 1), "three increasing"),
            (base.replacen("noise = \"geometric\"", "noise = \"laplace\"", 1), "noise must be"),
            (base.replacen("gamma = \"0.1\"", "gamma = \"1\"", 1), "gamma must lie"),
            (base.replacen("stability = 9", "stability = 0", 1), "stability must lie"),
            (base.replacen("geo = \"STATE\"\niterations = \"detailed\"", "geo = \"USA\"\niterations = \"detailed\"", 1), "listed twice"),
            (base.replacen("budget = \"0.59\"", "budget = \"1e-12\"", 1), "outside [1e-9, 1e8]"),
            (base.replacen("moe = 6 ", "mo = 6 ", 1), "unknown field"),
            (base.replacen("budget = \"4.27\"", "budget = \"4.2.7\"", 1), "budget"),
        ] {
            let e = ReConfig::parse(&edit, "cfg").err().unwrap_or_else(|| panic!("accepted: {want}"));
            assert!(e.to_string().contains(want), "{want}: {e}");
            assert_eq!(e.to_string().lines().count(), 1, "{e}");
        }
    }
}
