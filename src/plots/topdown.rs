//! The TopDown post-processing accuracy figure (results/topdown-postprocess-mae): mean absolute error per
//! detailed cell of the noisy measurements and of TopDown's final counts, per geolevel.
use crate::error::Fallible;
use crate::plots::plot::{bar_figure_opts, BarOpts, BUREAU, EXACT, OTHER, REDUCED};
use crate::topdown::pp_accuracy::PpAccuracyRow;
use std::path::{Path, PathBuf};

pub fn mae_figure(rows: &[PpAccuracyRow], seeds: u64, stem: &Path) -> Fallible<Vec<PathBuf>> {
    let cell: Vec<&PpAccuracyRow> = rows.iter().filter(|r| r.query == "cell").collect();
    let cats: Vec<String> = cell.iter().filter(|r| r.noise == "bureau").map(|r| short(&r.level)).collect();
    let pick = |noise: &str, f: fn(&PpAccuracyRow) -> f64| -> Vec<f64> { cell.iter().filter(|r| r.noise == noise).map(|r| f(r)).collect() };
    let groups = vec![
        ("noisy measurement, Bureau noise".to_string(), OTHER[2], pick("bureau", |r| r.noisy.0)),
        ("TopDown, Bureau noise".to_string(), BUREAU, pick("bureau", |r| r.topdown.0)),
        ("TopDown, Table 1 reduced noise".to_string(), REDUCED, pick("reduced", |r| r.topdown.0)),
        ("TopDown, uniform −12.28% variance".to_string(), EXACT, pick("uniform", |r| r.topdown.0)),
    ];
    bar_figure_opts(
        &format!("TopDown final counts: mean absolute error per detailed cell ({seeds} noise draws, 205 blocks, 10 cells)"),
        "mean absolute error per cell (persons)",
        &cats,
        &groups,
        stem,
        &BarOpts { x_label: "geographic level".into(), percent_log: false },
    )
}

fn short(level: &str) -> String {
    match level {
        "Tract Subset Group" => "Tract Subset Gr.".into(),
        "Optimized Block Group" => "Opt. Block Group".into(),
        o => o.into(),
    }
}
