//! `tightdp downstream --acs FILE…`: Figure 9 of [SSW24, §3.4.2] — the slope of
//! median earnings on the percentage with a bachelor's degree or higher, fitted on true and on noisy ACS
//! education counts (Bureau vs Table 1 noise, max(0, ·)), its MAE over K trials (eq. 3.1) per level and
//! the relative improvement (the paper prints 60.57% at the state level, K = 3).

use crate::accuracy::regression::{study, LevelFit, RegressionOptions};
use crate::accuracy::{parse_map, Allocation};
use crate::cli::accuracy_nhgis::DEFAULT_ALLOCATION;
use crate::cli::common::parse_delta;
use crate::data::acs;
use crate::error::Fallible;
use crate::fallible;
use crate::noise::sampler::NoiseSource;
use crate::num::format::fmt_nearest;
use crate::record::{render_csv, render_rows, write_atomic};
use crate::record::{Format, Record};
use clap::Args;
use rug::Float;
use std::path::PathBuf;

/// The improvement [SSW24, §3.4.2] prints for the state level (K = 3), shown in
/// Figure 9 next to what a 3-trial study gives.
pub const PAPER_STATE_IMPROVEMENT: f64 = 60.57;

#[derive(Args, Debug)]
pub struct DownstreamArgs {
    /// ACS 5-year extracts: S1501 (or B15003 + B20004_001E), Census API JSON or data.census.gov CSV; one
    /// file per level or several levels in one
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    pub acs: Vec<PathBuf>,
    /// Allocation file (TOML) giving the Bureau's σ² per level, or the name of a built-in allocation
    #[arg(long, value_name = "FILE", default_value = DEFAULT_ALLOCATION)]
    pub allocation: PathBuf,
    /// Noise of another allocation level for an ACS level, e.g. --map "zcta=Optimized Block Group"
    #[arg(long, value_name = "LEVEL=ALLOCATION_LEVEL")]
    pub map: Vec<String>,
    /// δ at which the reduced noise keeps the Bureau's ε (Table 1 uses 1e-11)
    #[arg(long, allow_hyphen_values = true, value_name = "D", default_value = "1e-11")]
    pub delta: String,
    /// Noisy releases K per noise level (the paper: 3)
    #[arg(long, value_name = "K", default_value_t = 2000)]
    pub trials: usize,
    /// Size of the batches of trials whose improvement is summarised (the paper's K = 3)
    #[arg(long, value_name = "K", default_value_t = 3)]
    pub batch: usize,
    /// Seed for a reproducible simulation (otherwise the OS CSPRNG)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Draw with the exact CKS sampler instead of the integer alias table
    #[arg(long)]
    pub exact_sampler: bool,
    /// Also write downstream-acs.csv and the figure (CSV + PNG + SVG) into this directory
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Label of the data in the figure title
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

fn o(v: Option<f64>, d: usize) -> String {
    v.map(|x| format!("{x:.d$}")).unwrap_or_default()
}

pub fn records(fits: &[LevelFit], for_release: bool) -> Vec<Record> {
    fits.iter()
        .map(|f| {
            let (b, r) = (&f.runs[0], &f.runs[1]);
            let (red, red_se) = crate::accuracy::counts::reduction_pct(b.mae, r.mae, b.mae_se.zip(r.mae_se));
            let mut x = Record::new();
            x.push("level", f.geo.name());
            x.push("allocation_level", f.table1_level.clone());
            x.push("table", f.layout);
            x.push("areas", f.areas.to_string());
            x.push("areas_missing", f.missing.to_string());
            x.push("areas_no_population", f.zero_population.to_string());
            x.push("medians_top_or_bottom_coded", f.coded.to_string());
            x.push("slope_true", format!("{:.4}", f.beta));
            x.push("trials", f.trials.to_string());
            for (n, name) in [(b, "bureau"), (r, "reduced")] {
                x.push(&format!("sigma2_{name}"), fmt_nearest(&Float::with_val(128, &n.sigma2), 12));
                x.push(&format!("mae_{name}"), format!("{:.6e}", n.mae));
                x.push(&format!("mae_{name}_se"), n.mae_se.map(|s| format!("{s:.3e}")).unwrap_or_default());
                x.push(&format!("mae_{name}_first_order"), format!("{:.6e}", n.linear));
                x.push(&format!("areas_left_out_{name}"), format!("{:.3}", n.dropped_mean));
                x.push(&format!("failed_trials_{name}"), n.deltas.iter().filter(|d| d.is_none()).count().to_string());
            }
            x.push("improvement_pct", format!("{red:.3}"));
            x.push("improvement_pct_se", o(red_se, 3));
            x.push("improvement_pct_first_order", format!("{:.3}", 100.0 * (1.0 - r.linear / b.linear)));
            x.push("batch", f.batch.to_string());
            for (i, q) in ["p05", "p50", "p95"].iter().enumerate() {
                x.push(&format!("batch_improvement_pct_{q}"), o(f.batch_quantiles.map(|v| v[i]), 2));
            }
            x.push(
                "sampler",
                if b.sampler_tv == 0.0 {
                    "exact CKS".into()
                } else {
                    format!("integer alias table, TV to N_Z(0, sigma2) <= {:.1e}", b.sampler_tv.max(r.sampler_tv))
                },
            );
            x.push("for_release", if for_release { "true" } else { "false (seeded)" });
            x
        })
        .collect()
}

const TABLE_KEYS: [&str; 10] = [
    "level",
    "areas",
    "slope_true",
    "mae_bureau",
    "mae_reduced",
    "improvement_pct",
    "improvement_pct_se",
    "improvement_pct_first_order",
    "batch_improvement_pct_p05",
    "batch_improvement_pct_p95",
];

pub fn run(a: DownstreamArgs) -> Fallible<String> {
    let delta = parse_delta(&a.delta)?;
    if a.trials == 0 {
        return fallible!(Input, "--trials must be at least 1");
    }
    if a.batch == 0 {
        return fallible!(Input, "--batch must be at least 1");
    }
    let map = parse_map(&a.map)?;
    for (k, _) in &map {
        acs::AcsGeo::parse(k)?;
    }
    let alloc = Allocation::from_path(&a.allocation)?;
    let levels = acs::read(&a.acs)?;
    let src = match a.seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let opts = RegressionOptions { trials: a.trials, batch: a.batch, exact_sampler: a.exact_sampler, source: &src, delta, map };
    let fits = study(&levels, &alloc, &opts)?;
    let rows = records(&fits, !src.seeded);
    if let Some(dir) = &a.out {
        let label = a.label.clone().unwrap_or_else(|| "ACS extract".into());
        write_atomic(&dir.join("downstream-acs.csv"), render_csv(&rows).as_bytes())?;
        crate::plots::realdata::fig09(&fits, &label, Some(PAPER_STATE_IMPROVEMENT), &dir.join("fig09-acs-slope-mae"))?;
    }
    if a.format == Format::Table {
        let shown: Vec<Record> = rows
            .iter()
            .map(|r| {
                let mut x = Record::new();
                for k in TABLE_KEYS {
                    x.push(k, r.get(k).unwrap_or("").to_string());
                }
                x
            })
            .collect();
        return Ok(render_rows(&shown, a.format));
    }
    Ok(render_rows(&rows, a.format))
}
