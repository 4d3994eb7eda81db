//! `tightdp accuracy`: error of released counts under the Bureau's and the reduced noise
//! ([SSW24, Figures 6] and 8), exactly from the pmf and by simulation with the
//! exact sampler, for a CSV of true counts (for example block population counts downloaded from NHGIS).

use crate::app::figure_data::count_errors;
use crate::budget::zcdp;
use crate::calibrate::calibrate_factor;
use crate::census::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource};
use crate::num::format::fmt_nearest;
use crate::num::parse_rational;
use crate::record::render_rows;
use crate::record::{Format, Record};
use crate::{err, fallible};
use clap::Args;
use rug::{Float, Rational};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// Allocation file (TOML), or the name of a built-in allocation; with --nhgis the default is the built-in dhc-2022-08-25
    #[arg(long, value_name = "FILE")]
    pub allocation: Option<PathBuf>,
    /// Level whose noise is applied to the counts (with --counts)
    #[arg(long, value_name = "NAME")]
    pub level: Option<String>,
    /// CSV of true counts (one row per unit)
    #[arg(long, value_name = "FILE")]
    pub counts: Option<PathBuf>,
    /// Column holding the counts
    #[arg(long, value_name = "NAME", default_value = "count")]
    pub column: String,
    /// δ at which the reduced noise keeps the Bureau's ε (Table 1 uses 1e-11)
    #[arg(long, allow_hyphen_values = true, value_name = "D", default_value = "1e-11")]
    pub delta: String,
    /// Simulation trials per count (0: exact expectations only)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub trials: u32,
    /// Seed for a reproducible simulation (otherwise the OS CSPRNG)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Figures 6 and 8 from NHGIS extracts (src/cli/accuracy_nhgis.rs)
    #[command(flatten)]
    pub nhgis: NhgisArgs,
}

/// The NHGIS flags of `tightdp accuracy` (run by `accuracy_nhgis.rs` when `--nhgis` is given).
#[derive(Args, Debug, Default)]
pub struct NhgisArgs {
    /// NHGIS CSV extracts of the 2010 SF1 (ds172) or the privacy-protected demonstration data, one or
    /// more levels (state, county, tract, block group, block); read instead of --counts
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["counts", "level"])]
    pub nhgis: Vec<PathBuf>,
    /// Race table: p8 (nine cells H72001–H72009, the paper's), p3 (H7X001–H7X008), p1 (H7V001), auto
    #[arg(long, value_name = "TABLE", default_value = "auto")]
    pub table: String,
    /// Keep only this state (two-digit FIPS, e.g. 42 for Pennsylvania)
    #[arg(long, value_name = "FIPS")]
    pub state: Option<String>,
    /// Noise of another allocation level for an NHGIS level, e.g. --map "tract=Tract Subset Group"
    #[arg(long, value_name = "LEVEL=ALLOCATION_LEVEL")]
    pub map: Vec<String>,
    /// Draw with the exact CKS sampler instead of the integer alias table (same law to ~1e-17, slower)
    #[arg(long)]
    pub exact_sampler: bool,
    /// Also write accuracy-nhgis.csv and the figures (CSV + PNG + SVG) into this directory
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Label of the data in figure titles
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
}

/// Read the counts column; any non-integer or negative entry is an error naming its line.
pub fn read_counts(path: &PathBuf, column: &str) -> Fallible<Vec<i64>> {
    let mut rd = csv::Reader::from_path(path).map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))?;
    let hdr = rd.headers().map_err(|e| crate::error::Error::from(e).context(format!("'{}'", path.display())))?.clone();
    let idx = hdr.iter().position(|h| h == column).ok_or_else(|| err!(Input, "'{}': no column '{column}'", path.display()))?;
    let mut out = Vec::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| crate::error::Error::from(e).context(format!("'{}'", path.display())))?;
        let line = rec.position().map(|p| p.line()).unwrap_or(0);
        let v = rec.get(idx).unwrap_or("").trim();
        let c = crate::num::parse::parse_count_field(v, "count").map_err(|e| e.context(format!("'{}' line {line}", path.display())))?;
        out.push(c);
    }
    if out.is_empty() {
        return fallible!(Input, "'{}': no counts", path.display());
    }
    Ok(out)
}

pub fn run(a: AccuracyArgs) -> Fallible<String> {
    let (Some(alloc_path), Some(level_name), Some(counts_path)) = (&a.allocation, &a.level, &a.counts) else {
        return fallible!(Input, "accuracy needs --allocation, --level and --counts (or --nhgis FILE…)");
    };
    let prec = check_prec(256)?;
    let delta = parse_delta(&a.delta)?;
    let alloc = Allocation::from_path(alloc_path)?;
    let level = alloc.level(level_name)?.clone();
    let groups = alloc.level_mechanisms(&level);
    if groups.len() != 1 {
        return fallible!(Input, "level '{}' has heterogeneous variances; accuracy needs one σ²", level.name);
    }
    let counts = read_counts(counts_path, &a.column)?;
    crate::accuracy::counts::check_draws(counts.len() as u128, a.trials)?;
    let s2 = groups[0].sigma2.clone();
    let target = zcdp::eps_bs(&level.rho, &delta, prec).mid();
    let br = calibrate_factor(&groups, &delta, &target, 128, prec, 1e-12)?;
    let s2r = Rational::from(&s2 * &br.lo);
    // Exact expectations per distinct count (cached), averaged over the units.
    let exact = |sigma2: &Rational| -> [f64; 4] {
        let mut cache: BTreeMap<i64, (f64, f64, f64, f64)> = BTreeMap::new();
        let mut acc = [0.0f64; 4];
        for &y in &counts {
            let e = *cache.entry(y.min(10_000)).or_insert_with(|| count_errors(sigma2, y.min(10_000)));
            acc[0] += e.0;
            acc[1] += e.1;
            acc[2] += e.2;
            acc[3] += e.3;
        }
        acc.map(|x| x / counts.len() as f64)
    };
    let mut src = match a.seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let mut rows = Vec::new();
    let mut base: Option<([f64; 4], [f64; 4])> = None;
    for (name, sigma2) in [("bureau", s2.clone()), ("reduced (Table 1 rule)", s2r.clone())] {
        let ex = exact(&sigma2);
        let sampler = DiscreteGaussianSampler::new(sigma2.clone())?;
        // simulation: squared and absolute errors with and without max(0, ·)
        let mut sim = [0.0f64; 4];
        let mut sq = [0.0f64; 4];
        let n = counts.len() as f64 * a.trials as f64;
        if a.trials > 0 {
            for &y in &counts {
                for _ in 0..a.trials {
                    let x = sampler.sample(&mut src.rng);
                    // i128/f64: a count up to 1e15 plus a draw up to ~1e19 cannot overflow
                    let pp = ((y as i128 + x as i128).max(0) - y as i128) as f64;
                    let e = [(x as f64) * (x as f64), (x as f64).abs(), pp * pp, pp.abs()];
                    for k in 0..4 {
                        sim[k] += e[k];
                        sq[k] += e[k] * e[k];
                    }
                }
            }
        }
        let mut r = Record::new();
        r.push("noise", name);
        r.push("sigma2", fmt_nearest(&Float::with_val(128, &sigma2), 12));
        r.push("units", counts.len().to_string());
        for (k, label) in ["mse", "mae", "mse_nonneg", "mae_nonneg"].iter().enumerate() {
            r.push(&format!("{label}_exact"), format!("{:.6}", ex[k]));
            if a.trials > 0 {
                let m = sim[k] / n;
                let se = ((sq[k] / n - m * m).max(0.0) / n).sqrt();
                r.push(&format!("{label}_sim"), format!("{m:.6}"));
                r.push(&format!("{label}_sim_se"), format!("{se:.6}"));
            }
        }
        let (bex, bsim) = base.unwrap_or((ex, sim));
        {
            for (k, label) in ["mse", "mae", "mse_nonneg", "mae_nonneg"].iter().enumerate() {
                r.push(&format!("{label}_change_pct_exact"), format!("{:.3}", 100.0 * (ex[k] / bex[k] - 1.0)));
                if a.trials > 0 {
                    r.push(&format!("{label}_change_pct_sim"), format!("{:.3}", 100.0 * (sim[k] / bsim[k] - 1.0)));
                }
            }
        }
        if base.is_none() {
            base = Some((ex, sim));
        }
        r.push("for_release", if src.seeded { "false (seeded)" } else { "true" });
        rows.push(r);
    }
    let _ = parse_rational;
    Ok(render_rows(&rows, a.format))
}
