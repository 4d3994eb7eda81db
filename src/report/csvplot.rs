//! Plots drawn from figure-data CSV files (used for the Kazan–Reiter figures, whose data
//! `risk::figures::figure_data` writes): one panel per y column (or per value of a facet column),
//! one series per value of a group column.

use crate::report::plot::{Figure, Panel, Series, BUREAU, EXACT, OTHER, REDUCED};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct CsvPlot<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub ys: &'a [&'a str],
    pub group: Option<&'a str>,
    pub facet: Option<&'a str>,
    pub x_log: bool,
    pub y_log: bool,
}

fn color(i: usize) -> plotters::style::RGBColor {
    [EXACT, BUREAU, OTHER[0], OTHER[1], REDUCED, OTHER[2], OTHER[3]][i % 7]
}

pub fn plot_csv(csv_path: &Path, spec: &CsvPlot, stem: &Path) -> Result<Vec<PathBuf>, String> {
    let mut rd = csv::Reader::from_path(csv_path).map_err(|e| format!("{}: {e}", csv_path.display()))?;
    let hdr = rd.headers().map_err(|e| e.to_string())?.clone();
    let col = |n: &str| hdr.iter().position(|h| h == n).ok_or_else(|| format!("{}: no column '{n}'", csv_path.display()));
    let xi = col(spec.x)?;
    let yis: Vec<usize> = spec.ys.iter().map(|y| col(y)).collect::<Result<_, _>>()?;
    let gi = spec.group.map(col).transpose()?;
    let fi = spec.facet.map(col).transpose()?;
    // facet -> y column -> group -> points (insertion order of groups kept)
    let mut data: BTreeMap<String, Vec<Vec<(String, Vec<(f64, f64)>)>>> = BTreeMap::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let x: f64 = rec[xi].parse().map_err(|_| format!("{}: bad x '{}'", csv_path.display(), &rec[xi]))?;
        let facet = fi.map(|i| rec[i].to_string()).unwrap_or_default();
        let group = gi.map(|i| rec[i].to_string()).unwrap_or_default();
        let panels = data.entry(facet).or_insert_with(|| vec![Vec::new(); yis.len()]);
        for (k, &yi) in yis.iter().enumerate() {
            let Ok(y) = rec[yi].parse::<f64>() else { continue };
            let series = &mut panels[k];
            match series.iter_mut().find(|(g, _)| *g == group) {
                Some((_, pts)) => pts.push((x, y)),
                None => series.push((group.clone(), vec![(x, y)])),
            }
        }
    }
    let mut panels = Vec::new();
    for (facet, per_y) in &data {
        for (k, series) in per_y.iter().enumerate() {
            let title = match (spec.facet, spec.ys.len()) {
                (Some(f), 1) => format!("{f} = {facet}"),
                (Some(f), _) => format!("{f} = {facet}: {}", spec.ys[k]),
                (None, _) => spec.ys[k].to_string(),
            };
            let mut p = Panel::new(
                &title,
                spec.x,
                if spec.group.is_none() && spec.ys.len() > 1 && spec.facet.is_none() { "value" } else { spec.ys[k] },
            );
            p.x_log = spec.x_log;
            p.y_log = spec.y_log;
            for (i, (g, pts)) in series.iter().enumerate() {
                let name = match spec.group {
                    Some(gname) => format!("{gname} = {g}"),
                    None => spec.ys[k].to_string(),
                };
                p.series.push(Series::line(&name, color(i), pts.clone()));
            }
            panels.push(p);
        }
    }
    // With no group and several y columns, overlay them in one panel.
    if spec.group.is_none() && spec.facet.is_none() && spec.ys.len() > 1 {
        let mut p = Panel::new(spec.title, spec.x, "value");
        p.x_log = spec.x_log;
        p.y_log = spec.y_log;
        for (i, q) in panels.iter().enumerate() {
            let mut s = q.series[0].clone();
            s.color = color(i);
            p.series.push(s);
        }
        panels = vec![p];
    }
    let cols = if panels.len() >= 3 { 3 } else { panels.len().max(1) };
    let fig = if panels.len() == 1 { Figure::single(spec.title, panels.pop().unwrap()) } else { Figure::grid(spec.title, panels, cols) };
    // The data CSV already exists; write only the pictures next to it.
    let files = fig.write(stem)?;
    Ok(files.into_iter().filter(|f| f.extension().map(|e| e != "csv").unwrap_or(true)).collect())
}

/// PNG/SVG for the Kazan–Reiter figure data in `dir` (written by `risk::figures::figure_data`).
pub fn risk_figures(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let specs: Vec<(&str, CsvPlot)> = vec![
        (
            "kr-figure1",
            CsvPlot {
                title: "KR Figure 1: posterior and relative risk R′ vs x* (single level)",
                x: "xstar",
                ys: &["posterior", "risk_prime"],
                group: Some("prior"),
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
        (
            "kr-figure2-3",
            CsvPlot {
                title: "KR Figures 2–3: marginal posterior, risk and P(correct decision) vs ρ₁",
                x: "rho1",
                ys: &["marginal_posterior", "risk", "p_correct"],
                group: Some("prior"),
                facet: None,
                x_log: true,
                y_log: false,
            },
        ),
        (
            "kr-figure5",
            CsvPlot {
                title: "KR Figure 5: P(correct decision) vs true x₂ (exact, paper's sampler, no hierarchy)",
                x: "x2",
                ys: &["p_correct_exact", "p_correct_paper_sampler", "p_correct_no_hier"],
                group: None,
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
        (
            "kr-figure6",
            CsvPlot {
                title: "KR Figure 6: P(correct decision) vs x₂ for several ρ₂",
                x: "x2",
                ys: &["p_correct_exact", "p_correct_paper_sampler"],
                group: Some("rho2"),
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
        (
            "kr-figure7",
            CsvPlot {
                title: "KR Figure 7: risk as levels are added (target unique at each level)",
                x: "levels",
                ys: &["risk_hi"],
                group: Some("prior"),
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
        (
            "kr-figure12-left",
            CsvPlot {
                title: "KR Figure 12 (left): risk after block-level post-processing",
                x: "x2tilde",
                ys: &["risk_postprocessed", "risk_raw_x1star_y1star", "risk_x1star_only"],
                group: None,
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
        (
            "kr-figure12-right",
            CsvPlot {
                title: "KR Figure 12 (right): post-processed risk for several ρ₁",
                x: "x2tilde",
                ys: &["risk_postprocessed"],
                group: Some("rho1"),
                facet: None,
                x_log: false,
                y_log: false,
            },
        ),
    ];
    let mut out = Vec::new();
    for (stem, spec) in specs {
        let csv = dir.join(format!("{stem}.csv"));
        if csv.exists() {
            out.extend(plot_csv(&csv, &spec, &dir.join(stem))?);
        }
    }
    Ok(out)
}
