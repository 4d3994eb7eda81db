//! `tightdp plot`: the figures of a user's own allocation, in the style of the paper figures
//! (src/plots/plot.rs): per level the exact ε(δ) next to the two zCDP conversions, the exact trade-off
//! function next to the zCDP one, and the best membership attack's true-positive rate against its
//! false-positive rate; with the per-level calibration table. PNG + SVG + CSV each.

use crate::account::Profile;
use crate::app::calibration::{level_rows, Conversion, COLUMNS};
use crate::app::figure_data::gauss_profile;
use crate::budget::zcdp;
use crate::census::Allocation;
use crate::error::Fallible;
use crate::plots::figures::{bureau_tradeoff, tradeoff_points};
use crate::plots::plot::{Figure, Panel, Series, BUREAU, EXACT, OTHER};
use crate::record::{render_csv, write_atomic};
use rug::Rational;
use std::path::{Path, PathBuf};

/// δ of the calibration table (the paper's Table 1 uses 1e-11 for the DHC; 1e-10 is the Bureau's δ).
pub const CALIBRATION_DELTA: &str = "1e-10";

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).expect("invariant: a finite value")
}

/// α clamped to [0, 1] as a rational (None for NaN).
fn rat_of(alpha: f64) -> Option<Rational> {
    Rational::from_f64(alpha.clamp(0.0, 1.0))
}

/// ε(δ) on a log grid of δ from 1e-15 to 1e-2: exact (midpoint of the certified bracket), Bun–Steinke and
/// Canonne–Kamath–Steinke conversions of the level's ρ.
fn eps_delta_panel(name: &str, rho: &Rational, prof: &Profile, prec: u32) -> Fallible<Panel> {
    let deltas: Vec<f64> = (0..=65).map(|i| 10f64.powf(-15.0 + 13.0 * i as f64 / 65.0)).collect();
    let mut exact = Vec::new();
    let mut bs = Vec::new();
    let mut cks = Vec::new();
    for &d in &deltas {
        let dr = rat(d);
        exact.push((d, prof.epsilon(&dr)?.mid().to_f64()));
        bs.push((d, zcdp::eps_bs(rho, &dr, prec).mid().to_f64()));
        cks.push((d, zcdp::eps_cks(rho, &dr, prec).0.mid().to_f64()));
    }
    let mut p = Panel::new(name, "δ (probability of a larger privacy loss)", "ε (privacy loss bound)");
    p.x_log = true;
    p.series.push(Series::line("zCDP, Bun–Steinke conversion (the Census Bureau's rule)", BUREAU, bs));
    p.series.push(Series::line("zCDP, Canonne–Kamath–Steinke conversion", OTHER[0], cks).dashed());
    p.series.push(Series::line("exact (certified)", EXACT, exact));
    Ok(p)
}

fn tradeoff_panel(name: &str, rho: &Rational, prof: &Profile) -> Fallible<Panel> {
    let mut p = Panel::new(name, "type I error α (false-positive rate)", "type II error β (false-negative rate)");
    p.x_range = Some((0.0, 1.0));
    p.y_range = Some((0.0, 1.0));
    p.series.push(Series::line("zCDP bound of the level's ρ", BUREAU, bureau_tradeoff(rho.to_f64(), 400)));
    p.series.push(Series::line("exact", EXACT, tradeoff_points(prof, 2e-3)?));
    Ok(p)
}

/// The best membership test's TPR = 1 − β(α) against its FPR α, both on log axes from FPR 1e-6.
fn attack_panel(name: &str, prof: &Profile) -> Panel {
    let pts: Vec<(f64, f64)> = (0..=120)
        .map(|i| {
            let a = 10f64.powf(-6.0 + 6.0 * i as f64 / 120.0);
            // the midpoint of the certified f(α) (NaN, not drawn, where the lattice resolves none)
            let f = rat_of(a).and_then(|a| prof.tradeoff(&a).ok()).map_or(f64::NAN, |c| c.mid().to_f64());
            (a, (1.0 - f).max(a))
        })
        .collect();
    let mut p = Panel::new(name, "false-positive rate of the attack", "true-positive rate of the best attack");
    p.x_log = true;
    p.y_log = true;
    p.series.push(Series::line("no better than guessing (TPR = FPR)", BUREAU, pts.iter().map(|&(a, _)| (a, a)).collect()).dashed());
    p.series.push(Series::line("best membership test (exact)", EXACT, pts));
    p
}

/// Write every figure and the calibration table of `alloc` into `out` (a staging directory: the caller
/// publishes it all or nothing). Returns the files written.
pub fn write_all(alloc: &Allocation, out: &Path, prec: u32) -> Fallible<Vec<PathBuf>> {
    let mut profs = Vec::new();
    for l in &alloc.levels {
        profs.push(gauss_profile(&alloc.level_mechanisms(l), prec).map_err(|e| e.context(format!("level {}", l.name)))?);
    }
    let cols = alloc.levels.len().clamp(1, 4);
    let grid = |title: &str, panels: Vec<Panel>| {
        let mut f = Figure::grid(title, panels, cols);
        f.legend_below = true;
        f
    };
    let name = &alloc.name;
    let mut files = Vec::new();
    let panels = alloc.levels.iter().zip(&profs).map(|(l, p)| eps_delta_panel(&l.name, &l.rho, p, prec)).collect::<Result<_, _>>()?;
    files.extend(grid(&format!("Privacy loss ε at each δ per level: {name}"), panels).write(&out.join("epsilon-delta"))?);
    let panels = alloc.levels.iter().zip(&profs).map(|(l, p)| tradeoff_panel(&l.name, &l.rho, p)).collect::<Result<_, _>>()?;
    files.extend(grid(&format!("Trade-off functions per level: {name}"), panels).write(&out.join("tradeoff"))?);
    let panels = alloc.levels.iter().zip(&profs).map(|(l, p)| attack_panel(&l.name, p)).collect();
    files.extend(grid(&format!("Membership attack risk per level: {name}"), panels).write(&out.join("attack-risk"))?);
    let delta = crate::num::parse_rational(CALIBRATION_DELTA).expect("invariant: a decimal constant");
    let rows = level_rows(alloc, &delta, Conversion::ZcdpBs, &None, prec)?;
    let rows = rows.iter().map(|r| r.with_columns(COLUMNS)).collect::<Result<Vec<_>, _>>()?;
    let path = out.join("calibration.csv");
    write_atomic(&path, render_csv(&rows).as_bytes())?;
    files.push(path);
    Ok(files)
}
