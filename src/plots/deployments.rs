//! The deployments figure: stated vs exact ε per deployment of the registry, the Census products first
//! (`results/deployments-epsilon.{png,svg,csv}`). Formatting only: the values come from
//! `crate::app::deployments`.

use crate::app::deployments::DeploymentPoint;
use crate::error::Fallible;
use std::path::{Path, PathBuf};

/// Bars of the stated ε (as published, or the Bun–Steinke ε of a stated ρ) and of the exact certified ε
/// at the same δ, for the deployments recomputed; those whose noise is not published (stated, not
/// recomputable) have nothing to compare and are listed in `deployments.csv` only.
pub fn figure(points: &[DeploymentPoint], stem: &Path) -> Fallible<Vec<PathBuf>> {
    let points: Vec<&DeploymentPoint> = points.iter().filter(|p| p.exact.is_some()).collect();
    let cats: Vec<String> = points.iter().map(|p| p.label.clone()).collect();
    let groups = vec![
        (
            "stated ε (published, or Bun–Steinke ε of the stated ρ)".to_string(),
            crate::plots::plot::BUREAU,
            points.iter().map(|p| p.stated).collect(),
        ),
        (
            "exact ε of the noise (certified)".to_string(),
            crate::plots::plot::EXACT,
            points.iter().map(|p| p.exact.unwrap_or(f64::NAN)).collect(),
        ),
    ];
    crate::plots::plot::bar_figure_opts(
        "Stated vs exact privacy loss of public deployments (δ as stated, or 1e-10 for the Census products)",
        "privacy loss ε",
        &cats,
        &groups,
        stem,
        &crate::plots::plot::BarOpts {
            x_label: "deployment recomputed (2020 Census products first; the stated-only ones are in deployments.csv)".into(),
            percent_log: false,
        },
    )
}
