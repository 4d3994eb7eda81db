//! The attack-risk figure (results/attack-risk): per geolevel, the largest true positive rate of a
//! membership test at 1 false alarm in 1000 and the attack advantage, exact (certified upper ends) next
//! to what the Bureau's zCDP accounting allows, and against the reduced noise of the paper's Table 1.
use crate::error::Fallible;
use crate::plots::plot::{bar_figure_opts, BarOpts, BUREAU, EXACT};
use crate::record::Record;
use plotters::style::RGBColor;
use std::path::{Path, PathBuf};

pub fn figure(rows: &[Record], stem: &Path) -> Fallible<Vec<PathBuf>> {
    let cats: Vec<String> = rows.iter().map(|r| r.get("level").unwrap_or("").replace("all levels (overall)", "overall")).collect();
    let col = |k: &str| -> Vec<f64> { rows.iter().map(|r| r.get(k).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)).collect() };
    let groups = vec![
        ("TPR at FPR 1/1000, Bureau's accounting".to_string(), RGBColor(245, 150, 150), col("tpr_at_fpr_1e-3_bureau")),
        ("TPR at FPR 1/1000, exact".to_string(), RGBColor(150, 190, 230), col("tpr_at_fpr_1e-3_hi")),
        ("advantage TPR − FPR, Bureau's accounting".to_string(), BUREAU, col("advantage_bureau")),
        ("advantage TPR − FPR, exact".to_string(), EXACT, col("advantage_hi")),
        ("TPR at FPR 1/1000, exact, reduced noise (Table 1)".to_string(), RGBColor(160, 215, 160), col("tpr_at_fpr_1e-3_reduced_hi")),
        ("advantage TPR − FPR, exact, reduced noise (Table 1)".to_string(), RGBColor(40, 140, 60), col("advantage_reduced_hi")),
    ];
    // TPRs of 0.2–14 % next to advantages up to 100 %: a log axis in percent shows both
    bar_figure_opts(
        "Membership attacks per level, DHC 2022-08-25 (Table 1: σ² lowered to the Bureau's ε at δ = 1e-11)",
        "probability, % (log scale)",
        &cats,
        &groups,
        stem,
        &BarOpts { x_label: "geographic level (overall: all eight levels composed)".into(), percent_log: true },
    )
}
