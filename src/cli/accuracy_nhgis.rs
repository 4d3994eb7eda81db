//! `tightdp accuracy --nhgis FILE…`: Figures 6 and 8 of [SSW24] from NHGIS 2010
//! SF1 extracts — per level the MSE/MAE of the released race-table counts with and without max(0, ·),
//! Bureau vs Table 1 noise, exact next to simulated (± standard error); at the block level per race.

use crate::accuracy::counts::{reduction_pct, study, CountsOptions, LevelStudy, METRICS};
use crate::accuracy::{parse_map, Allocation};
use crate::cli::accuracy::AccuracyArgs;
use crate::cli::common::parse_delta;
use crate::data::nhgis::{self, RaceTable};
use crate::error::Fallible;
use crate::noise::sampler::NoiseSource;
use crate::num::format::fmt_nearest;
use crate::record::{render_csv, render_rows, write_atomic};
use crate::record::{Format, Record};
use rug::Float;
use std::path::PathBuf;

/// The default allocation of `accuracy --nhgis` and `downstream`: the built-in DHC allocation (the same text as
/// data/allocations/dhc-2022-08-25.toml, embedded, so the default works from any directory).
pub const DEFAULT_ALLOCATION: &str = "dhc-2022-08-25";

/// An exact expectation with 12 significant digits.
fn sig12(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let d = (11 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.d$}")
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.6}")).unwrap_or_default()
}

/// Result rows: Figure 6 (per level, all cells) then Figure 8 (block level, per race).
pub fn records(studies: &[LevelStudy], for_release: bool) -> Vec<Record> {
    let mut rows = Vec::new();
    let mut push = |st: &LevelStudy, fig: &str, group: Option<usize>| {
        for (ni, n) in st.noises.iter().enumerate() {
            let g = match group {
                None => &n.pooled,
                Some(j) => &n.groups[j],
            };
            let b = match group {
                None => &st.noises[0].pooled,
                Some(j) => &st.noises[0].groups[j],
            };
            let mut r = Record::new();
            r.push("figure", fig);
            r.push("level", st.geo.name());
            r.push("group", g.label.clone());
            r.push("allocation_level", st.table1_level.clone());
            r.push("noise", n.noise);
            r.push("sigma2", fmt_nearest(&Float::with_val(128, &n.sigma2), 12));
            r.push("units", st.units.to_string());
            r.push("counts", (if group.is_none() { st.units * st.table.cells() } else { st.units }).to_string());
            r.push("trials", st.trials.to_string());
            for (k, m) in METRICS.iter().enumerate() {
                r.push(&format!("{m}_exact"), sig12(g.exact[k]));
                r.push(&format!("{m}_sim"), opt(g.sim.map(|s| s[k])));
                r.push(&format!("{m}_sim_se"), opt(g.se.map(|s| s[k])));
            }
            for (k, m) in METRICS.iter().enumerate() {
                if ni == 0 {
                    r.push(&format!("{m}_reduction_pct_exact"), "");
                    r.push(&format!("{m}_reduction_pct_sim"), "");
                    r.push(&format!("{m}_reduction_pct_sim_se"), "");
                } else {
                    r.push(&format!("{m}_reduction_pct_exact"), format!("{:.4}", reduction_pct(b.exact[k], g.exact[k], None).0));
                    let sim = match (b.sim, g.sim) {
                        (Some(x), Some(y)) => Some(reduction_pct(x[k], y[k], b.se.zip(g.se).map(|(p, q)| (p[k], q[k])))),
                        _ => None,
                    };
                    r.push(&format!("{m}_reduction_pct_sim"), sim.map(|s| format!("{:.4}", s.0)).unwrap_or_default());
                    r.push(&format!("{m}_reduction_pct_sim_se"), sim.and_then(|s| s.1).map(|s| format!("{s:.4}")).unwrap_or_default());
                }
            }
            r.push(
                "sampler",
                if st.trials == 0 {
                    "none".to_string()
                } else if n.sampler_tv == 0.0 {
                    "exact CKS".to_string()
                } else {
                    format!("integer alias table, TV to N_Z(0, sigma2) <= {:.1e}", n.sampler_tv)
                },
            );
            r.push("for_release", if for_release { "true" } else { "false (seeded)" });
            rows.push(r);
        }
    };
    for st in studies {
        push(st, "6", None);
    }
    if let Some(st) = crate::plots::realdata::block_level(studies) {
        for j in 0..st.table.cells() {
            push(st, "8", Some(j));
        }
    }
    rows
}

/// The columns shown by `--format table` (CSV and JSON have all).
const TABLE_KEYS: [&str; 12] = [
    "figure",
    "level",
    "group",
    "noise",
    "sigma2",
    "mse_exact",
    "mse_sim",
    "mae_exact",
    "mse_nonneg_exact",
    "mse_nonneg_sim",
    "mae_nonneg_exact",
    "mse_nonneg_reduction_pct_exact",
];

pub fn run(a: &AccuracyArgs) -> Fallible<String> {
    let n = &a.nhgis;
    let delta = parse_delta(&a.delta)?;
    let table = RaceTable::parse(&n.table)?;
    let map = parse_map(&n.map)?;
    let alloc_path = a.allocation.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_ALLOCATION));
    let alloc = Allocation::from_path(&alloc_path)?;
    let levels = nhgis::read(&n.nhgis, table, n.state.as_deref())?;
    let src = match a.seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let opts = CountsOptions { trials: a.trials, exact_sampler: n.exact_sampler, source: &src, delta, map };
    let studies = study(&levels, &alloc, &opts)?;
    let rows = records(&studies, !src.seeded);
    if let Some(dir) = &n.out {
        let label = n.label.clone().unwrap_or_else(|| "NHGIS extract".into());
        write_atomic(&dir.join("accuracy-nhgis.csv"), render_csv(&rows).as_bytes())?;
        crate::plots::realdata::fig06(&studies, &label, &dir.join("fig06-nhgis-accuracy"))?;
        if let Some(b) = crate::plots::realdata::block_level(&studies) {
            crate::plots::realdata::fig08(b, &label, &dir.join("fig08-nhgis-block-race-mse"))?;
        }
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
