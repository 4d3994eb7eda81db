//! SafeTab-P Figures 1 and 2 ([HBC25, §5.3.2]): drawing only; the data come from
//! `tabulation::suppression` (certified discrete-Gaussian values; eq. 13 as printed beside the exact bias).
use crate::error::Fallible;
use crate::plots::plot::{Figure, Panel, Series, EXACT, OTHER};
use crate::tabulation::suppression::{Setting, SuppressionPoint};
use std::path::{Path, PathBuf};

const X_LABEL: &str = "true size of the population group as a fraction of the suppression threshold (n / T)";

fn color(i: usize) -> plotters::style::RGBColor {
    [EXACT, OTHER[0], OTHER[2]][i % 3]
}

fn name(s: &Setting) -> String {
    format!("ρ = {} (T = {}, σ² = {:.2})", s.rho_text, s.t, s.sigma2.to_f64())
}

fn x(q: &SuppressionPoint, s: &Setting) -> f64 {
    q.n as f64 / s.t as f64
}

/// Figure 1: P[suppressed] against n/T, one curve per ρ of Table 6.
pub fn fig1(curves: &[(Setting, Vec<SuppressionPoint>)], stem: &Path) -> Fallible<Vec<PathBuf>> {
    let mut p = Panel::new(
        "exact, discrete Gaussian noise; suppressed when the noisy total is ≤ T; zeros with prob. ≥ 99.99%",
        X_LABEL,
        "probability that the group is suppressed",
    );
    for (i, (s, pts)) in curves.iter().enumerate() {
        p.series.push(Series::line(&name(s), color(i), pts.iter().map(|q| (x(q, s), q.p_suppressed.mid().to_f64())).collect()));
    }
    p.x_range = Some((0.0, 2.0));
    p.y_range = Some((0.0, 1.02));
    Figure::single("SafeTab-P Figure 1: probability of suppression (§5.3.2)", p).write(stem)
}

/// Figure 2: bias E[X | released]/T against n/T, exact (solid) and eq. 13 (dashed), per ρ; and a
/// second panel with eq. 13 minus the exact bias, over T (what eq. 13 gets wrong).
pub fn fig2(curves: &[(Setting, Vec<SuppressionPoint>)], stem: &Path) -> Fallible<Vec<PathBuf>> {
    let mut p = Panel::new(
        "bias / T — solid: exact (discrete Gaussian); dashed: eq. 13 as printed",
        X_LABEL,
        "bias of a released count / T  (E[noise | released] / T)",
    );
    let mut d = Panel::new("eq. 13 minus the exact bias, / T", X_LABEL, "(eq. 13 − exact bias) / T");
    for (i, (s, pts)) in curves.iter().enumerate() {
        let t = s.t as f64;
        p.series.push(Series::line(
            &format!("{}, exact", name(s)),
            color(i),
            pts.iter().map(|q| (x(q, s), q.bias.mid().to_f64() / t)).collect(),
        ));
        p.series.push(
            Series::line(&format!("{}, eq. 13", name(s)), color(i), pts.iter().map(|q| (x(q, s), q.bias_eq13.to_f64() / t)).collect())
                .dashed(),
        );
        d.series.push(Series::line(
            &name(s),
            color(i),
            pts.iter().map(|q| (x(q, s), (q.bias_eq13.to_f64() - q.bias.mid().to_f64()) / t)).collect(),
        ));
    }
    p.x_range = Some((0.0, 2.0));
    p.y_range = Some((0.0, 1.2));
    d.x_range = Some((0.0, 2.0));
    // room below the curves (the largest gap is at n = 0, ρ = 0.543: −0.052) for the legend
    d.y_range = Some((-0.08, 0.004));
    d.legend_lower_left = true;
    let mut fig = Figure::grid("SafeTab-P Figure 2: bias of released counts after suppression (§5.3.2, eq. 13)", vec![p, d], 2);
    fig.panel_w = 820;
    fig.panel_h = 600;
    fig.write(stem)
}
