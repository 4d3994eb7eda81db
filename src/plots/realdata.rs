//! Figures 6, 8 and 9 of [SSW24] drawn from `accuracy` results on extracts
//! (formatting only): exact expectations as bars, the simulation as markers with ± 2 standard errors.

use crate::accuracy::counts::{reduction_pct, LevelStudy};
use crate::accuracy::regression::LevelFit;
use crate::data::nhgis::Geo;
use crate::error::Fallible;
use crate::plots::bars::{write_bar_grid, BarPanel, BarSeries};
use crate::plots::plot::{BUREAU, EXACT, OTHER, REDUCED};
use plotters::style::RGBColor;
use std::path::{Path, PathBuf};

const SIM: RGBColor = RGBColor(127, 127, 127);

fn err2(m: Option<f64>, se: Option<f64>) -> Option<(f64, f64)> {
    match (m, se) {
        (Some(m), Some(s)) => Some((m - 2.0 * s, m + 2.0 * s)),
        _ => None,
    }
}

fn s2(x: &rug::Rational) -> String {
    let v = x.to_f64();
    if v >= 100.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Figure 6: per level, MSE and MAE of released counts with and without max(0, ·), Bureau vs reduced.
pub fn fig06(studies: &[LevelStudy], source: &str, stem: &Path) -> Fallible<Vec<PathBuf>> {
    let mut panels = Vec::new();
    for (metric, (k0, k1), unit) in [("MSE", (0, 2), "mean squared error (persons²)"), ("MAE", (1, 3), "mean absolute error (persons)")] {
        for st in studies {
            let (b, r) = (&st.noises[0], &st.noises[1]);
            let cats = vec!["no post-processing".to_string(), "max(0, ·)".to_string()];
            let ex = |n: &crate::accuracy::counts::NoiseStats| vec![n.pooled.exact[k0], n.pooled.exact[k1]];
            let sim = |n: &crate::accuracy::counts::NoiseStats| vec![n.pooled.sim.map(|s| s[k0]), n.pooled.sim.map(|s| s[k1])];
            let err = |n: &crate::accuracy::counts::NoiseStats| {
                vec![
                    err2(n.pooled.sim.map(|s| s[k0]), n.pooled.se.map(|s| s[k0])),
                    err2(n.pooled.sim.map(|s| s[k1]), n.pooled.se.map(|s| s[k1])),
                ]
            };
            let mut series = vec![
                BarSeries::bars("Bureau noise (exact expectation)", BUREAU, ex(b)),
                BarSeries::bars("reduced noise, Table 1 (exact expectation)", REDUCED, ex(r)),
            ];
            if st.trials > 0 {
                series.push(
                    BarSeries::markers(&format!("simulation, {} trials (± 2 s.e.)", st.trials), SIM, Some(0), sim(b)).with_err(err(b)),
                );
                series.push(
                    BarSeries::markers(&format!("simulation, {} trials (± 2 s.e.)", st.trials), SIM, Some(1), sim(r)).with_err(err(r)),
                );
            }
            let red = reduction_pct(b.pooled.exact[k0], r.pooled.exact[k0], None).0;
            let red_pp = reduction_pct(b.pooled.exact[k1], r.pooled.exact[k1], None).0;
            panels.push(BarPanel {
                title: format!("{} {metric}, σ² {} → {}: −{red:.2}%; max(0,·): −{red_pp:.2}%", st.geo.name(), s2(&b.sigma2), s2(&r.sigma2)),
                y_label: unit.into(),
                categories: cats,
                series,
                log_y: false,
            });
        }
    }
    write_bar_grid(
        &format!("Figure 6: error of released counts per level, Bureau vs the Table 1 noise (σ² lowered to the Bureau's ε at δ = 1e-11) — {source}"),
        &panels,
        studies.len().max(1),
        (500, 380),
        stem,
    )
}

/// Figure 8: block-level MSE after max(0, ·) by race cell, and its reduction.
pub fn fig08(st: &LevelStudy, source: &str, stem: &Path) -> Fallible<Vec<PathBuf>> {
    let (b, r) = (&st.noises[0], &st.noises[1]);
    let cats: Vec<String> = b.groups.iter().map(|g| g.label.clone()).collect();
    let mut s1 = vec![
        BarSeries::bars(
            &format!("Bureau noise, σ² = {} (exact expectation)", s2(&b.sigma2)),
            BUREAU,
            b.groups.iter().map(|g| g.exact[2]).collect(),
        ),
        BarSeries::bars(
            &format!("reduced noise, σ² = {} (exact expectation)", s2(&r.sigma2)),
            REDUCED,
            r.groups.iter().map(|g| g.exact[2]).collect(),
        ),
    ];
    let mut s2v = vec![BarSeries::bars(
        "reduction of the MSE (exact expectation)",
        EXACT,
        b.groups.iter().zip(&r.groups).map(|(x, y)| reduction_pct(x.exact[2], y.exact[2], None).0).collect(),
    )];
    if st.trials > 0 {
        let label = format!("simulation, {} trials (± 2 s.e.)", st.trials);
        for (i, n) in [b, r].iter().enumerate() {
            s1.push(
                BarSeries::markers(&label, SIM, Some(i), n.groups.iter().map(|g| g.sim.map(|s| s[2])).collect())
                    .with_err(n.groups.iter().map(|g| err2(g.sim.map(|s| s[2]), g.se.map(|s| s[2]))).collect()),
            );
        }
        let sims: Vec<(Option<f64>, Option<(f64, f64)>)> = b
            .groups
            .iter()
            .zip(&r.groups)
            .map(|(x, y)| match (x.sim, y.sim) {
                (Some(xs), Some(ys)) => {
                    let (v, se) = reduction_pct(xs[2], ys[2], x.se.zip(y.se).map(|(a, b)| (a[2], b[2])));
                    (Some(v), se.map(|s| (v - 2.0 * s, v + 2.0 * s)))
                }
                _ => (None, None),
            })
            .collect();
        s2v.push(BarSeries::markers(&label, SIM, Some(0), sims.iter().map(|s| s.0).collect()).with_err(sims.iter().map(|s| s.1).collect()));
    }
    let panels = vec![
        BarPanel {
            title: format!("{}-level MSE after max(0, ·), {} units", st.geo.name(), st.units),
            y_label: "mean squared error (persons²)".into(),
            categories: cats.clone(),
            series: s1,
            log_y: false,
        },
        BarPanel {
            title: "reduction of the MSE with the Table 1 noise".into(),
            y_label: "reduction of the MSE (%)".into(),
            categories: cats,
            series: s2v,
            log_y: false,
        },
    ];
    write_bar_grid(&format!("Figure 8: block-level MSE by race, race table {} — {source}", st.table.name()), &panels, 1, (1100, 400), stem)
}

/// The block-level study, if any (Figure 8 is drawn from it).
pub fn block_level(studies: &[LevelStudy]) -> Option<&LevelStudy> {
    studies.iter().find(|s| s.geo == Geo::Block)
}

/// Figure 9: MAE of the slope per ACS level, and the improvement of the reduced noise.
pub fn fig09(fits: &[LevelFit], source: &str, paper_state: Option<f64>, stem: &Path) -> Fallible<Vec<PathBuf>> {
    let cats: Vec<String> = fits.iter().map(|f| f.geo.name().to_string()).collect();
    let k = fits.first().map(|f| f.trials).unwrap_or(0);
    let mut s1 = Vec::new();
    for (i, (name, color)) in [("Bureau noise", BUREAU), ("reduced noise, Table 1", REDUCED)].into_iter().enumerate() {
        s1.push(
            BarSeries::bars(&format!("{name}: simulated MAE, {k} trials (± 2 s.e.)"), color, fits.iter().map(|f| f.runs[i].mae).collect())
                .with_err(fits.iter().map(|f| err2(Some(f.runs[i].mae), f.runs[i].mae_se)).collect()),
        );
    }
    for i in 0..2 {
        s1.push(BarSeries::markers(
            "first-order value √(2/π)·σ·‖∇β̂‖",
            OTHER[2],
            Some(i),
            fits.iter().map(|f| Some(f.runs[i].linear)).collect(),
        ));
    }
    let red: Vec<(f64, Option<f64>)> =
        fits.iter().map(|f| reduction_pct(f.runs[0].mae, f.runs[1].mae, f.runs[0].mae_se.zip(f.runs[1].mae_se))).collect();
    let mut s2v = vec![
        BarSeries::bars(&format!("improvement, {k} trials (± 2 s.e.)"), EXACT, red.iter().map(|r| r.0).collect())
            .with_err(red.iter().map(|r| r.1.map(|s| (r.0 - 2.0 * s, r.0 + 2.0 * s))).collect()),
        BarSeries::markers(
            "first-order value 1 − √(Var reduced / Var Bureau)",
            OTHER[3],
            Some(0),
            fits.iter().map(|f| Some(100.0 * (1.0 - f.runs[1].linear / f.runs[0].linear))).collect(),
        ),
    ];
    if let Some(b) = fits.first().map(|f| f.batch) {
        s2v.push(
            BarSeries::markers(
                &format!("what a {b}-trial study prints: median, 5%–95%"),
                OTHER[0],
                None,
                fits.iter().map(|f| f.batch_quantiles.map(|q| q[1])).collect(),
            )
            .with_err(fits.iter().map(|f| f.batch_quantiles.map(|q| (q[0], q[2]))).collect())
            .shift(0.3),
        );
    }
    if let Some(p) = paper_state {
        s2v.push(
            BarSeries::markers(
                &format!("paper, state level (K = 3): {p}%"),
                OTHER[1],
                None,
                fits.iter().map(|f| (f.geo == crate::data::acs::AcsGeo::State).then_some(p)).collect(),
            )
            .shift(-0.3),
        );
    }
    let panels = vec![
        BarPanel {
            title: "MAE of the slope over the trials (eq. 3.1)".into(),
            y_label: "MAE of slope (dollars per percentage point)".into(),
            categories: cats.clone(),
            series: s1,
            log_y: true,
        },
        BarPanel {
            title: "improvement of the MAE with the Table 1 noise".into(),
            y_label: "reduction of the MAE (%)".into(),
            categories: cats,
            series: s2v,
            log_y: false,
        },
    ];
    write_bar_grid(
        &format!("Figure 9: slope of median earnings on % bachelor's or higher, noisy education counts — {source}"),
        &panels,
        1,
        (1150, 420),
        stem,
    )
}
