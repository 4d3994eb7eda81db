//! Plots drawn from figure-data CSV files (used for the Kazan–Reiter figures, whose data
//! `risk::figures::figure_data` writes): one panel per y column (or per value of a facet column),
//! one series per value of a group column.

use crate::err;
use crate::error::{Error, Fallible};
use crate::plots::plot::{Figure, Panel, Series, BUREAU, EXACT, OTHER, REDUCED};
use std::path::{Path, PathBuf};

fn color(i: usize) -> plotters::style::RGBColor {
    [EXACT, BUREAU, OTHER[0], OTHER[1], REDUCED, OTHER[2], OTHER[3]][i % 7]
}

/// A figure-data CSV read into memory: header and rows of strings.
struct Table {
    path: PathBuf,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &Path) -> Fallible<Table> {
        let mut rd = csv::Reader::from_path(path).map_err(|e| Error::from(e).context(path.display()))?;
        let header = rd.headers().map_err(Error::from)?.iter().map(String::from).collect();
        let mut rows = Vec::new();
        for rec in rd.records() {
            rows.push(rec.map_err(|e| Error::from(e).context(path.display()))?.iter().map(String::from).collect());
        }
        Ok(Table { path: path.to_path_buf(), header, rows })
    }

    fn col(&self, name: &str) -> Fallible<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| err!(Input, "{}: no column '{name}'", self.path.display()))
    }

    /// (x, y) of the rows where `filter` holds (rows whose y does not parse are skipped).
    fn points(&self, x: &str, y: &str, filter: &dyn Fn(&dyn Fn(&str) -> String) -> bool) -> Fallible<Vec<(f64, f64)>> {
        let (xi, yi) = (self.col(x)?, self.col(y)?);
        let mut out = Vec::new();
        for r in &self.rows {
            let get = |c: &str| self.header.iter().position(|h| h == c).map(|i| r[i].clone()).unwrap_or_default();
            if !filter(&get) {
                continue;
            }
            let xv: f64 = r[xi].parse().map_err(|_| err!(Input, "{}: bad {x} '{}'", self.path.display(), r[xi]))?;
            if let Ok(yv) = r[yi].parse::<f64>() {
                out.push((xv, yv));
            }
        }
        Ok(out)
    }

    /// Distinct values of a column, in order of appearance.
    fn distinct(&self, c: &str) -> Fallible<Vec<String>> {
        let i = self.col(c)?;
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            if !out.contains(&r[i]) {
                out.push(r[i].clone());
            }
        }
        Ok(out)
    }
}

/// KR's ρ₁ for the 2020 block GVHR query (Table 2, 1666368/16793603 ≈ 0.0992; the captions say 0.099).
const RHO1: f64 = 1666368.0 / 16793603.0;
/// KR's ρ₂ for the optimized block group (Table 2, 103534592/420045025 ≈ 0.2465; the captions say 0.247).
const RHO2: f64 = 103534592.0 / 420045025.0;
const GREY: plotters::style::RGBColor = plotters::style::RGBColor(110, 110, 110);
const PURPLE: plotters::style::RGBColor = OTHER[1];

fn prior_series(t: &Table, x: &str, y: &str) -> Fallible<Vec<Series>> {
    let mut out = Vec::new();
    for (i, pr) in t.distinct("prior")?.iter().enumerate() {
        let pts = t.points(x, y, &|g| g("prior") == *pr)?;
        out.push(Series::line(&format!("adversary prior p = {pr}"), color(i), pts));
    }
    Ok(out)
}

fn rho1_line() -> (f64, String, plotters::style::RGBColor) {
    (RHO1, "ρ₁ = 0.099 (2020 Census, block)".to_string(), GREY)
}

fn write_fig(fig: Figure, dir: &Path, stem: &str) -> Fallible<Vec<PathBuf>> {
    fig.write_pictures(&dir.join(stem))
}

fn kr_figure1(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure1.csv"))?;
    let mut a = Panel::new("posterior probability of the correct conclusion", "released noisy count x₁*", "P[X₁ = 1 | X₁* = x₁*]");
    a.series = prior_series(&t, "xstar", "posterior")?;
    let mut b = Panel::new("implied disclosure risk R′ (3.2)", "released noisy count x₁*", "R′(x₁*) = posterior / prior");
    b.series = prior_series(&t, "xstar", "risk_prime")?;
    let mut f = Figure::grid("KR Figure 1: posterior and risk R′ against the released count (ρ₁ = 0.099, x₁ = 1)", vec![a, b], 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure2(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure2.csv"))?;
    let mut a = Panel::new("marginal posterior (3.3)", "block privacy parameter ρ₁ (log scale)", "P[X₁ = 1 | x₁ = 1]");
    a.series = prior_series(&t, "rho1", "marginal_posterior")?;
    a.x_log = true;
    a.y_range = Some((0.0, 1.02));
    a.vlines.push(rho1_line());
    let mut b = Panel::new(
        "implied disclosure risk R (3.4)",
        "block privacy parameter ρ₁ (log scale)",
        "R = marginal posterior / prior (log scale)",
    );
    b.series = prior_series(&t, "rho1", "risk")?;
    b.x_log = true;
    b.y_log = true;
    b.y_range = Some((0.9, 1000.0));
    b.vlines.push(rho1_line());
    let mut f = Figure::grid("KR Figure 2: marginal posterior and risk R against ρ₁", vec![a, b], 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure3(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure3.csv"))?;
    let mut a = Panel::new(
        "probability of a correct decision under 0-1 loss (3.6)",
        "block privacy parameter ρ₁ (log scale)",
        "P(adversary decides X₁ = 1 | x₁ = 1)",
    );
    a.series = prior_series(&t, "rho1", "p_correct")?;
    a.x_log = true;
    a.y_range = Some((0.0, 1.02));
    a.vlines.push(rho1_line());
    let mut f = Figure::single("KR Figure 3: P(correct decision) against ρ₁", a);
    f.legend_below = true;
    Ok(f)
}

/// Decision tiles (Figures 4, 10, 11): colour = the paper's sampler's decision, × = the exact
/// posterior of the model as written decides otherwise. `rows` = (panel tag, row title).
fn decision_figure(t: &Table, title: &str, rows: &[(&str, &str)]) -> Fallible<Figure> {
    let (c0, c1, ct) =
        (plotters::style::RGBColor(158, 202, 225), plotters::style::RGBColor(222, 45, 38), plotters::style::RGBColor(170, 170, 170));
    let mut panels = Vec::new();
    for (tag, row_title) in rows {
        for x1 in ["-1", "0", "1", "2"] {
            let sel = |g: &dyn Fn(&str) -> String| g("x1star") == x1 && (tag.is_empty() || g("panel") == *tag);
            let mut p = Panel::new(&format!("{row_title}x₁* = {x1}"), "y₁* (noisy count, other d = 27 blocks)", "x₂* (noisy block group)");
            p.x_range = Some((-30.5, 30.5));
            p.y_range = Some((-3.5, 5.5));
            for (dec, name, c) in
                [("0", "decides x₁ = 0", c0), ("1", "decides x₁ = 1", c1), ("tie", "posterior exactly ½ (decides x₁ = 0)", ct)]
            {
                let pts = t.points("y1star", "x2star", &|g| sel(g) && g("decision_paper_sampler") == dec)?;
                if !pts.is_empty() || dec != "tie" {
                    p.series.push(Series::line(name, c, pts).tiles());
                }
            }
            let cross = t.points("y1star", "x2star", &|g| sel(g) && g("decision_exact") != g("decision_paper_sampler"))?;
            panels.push((p, cross));
        }
    }
    // the × has a legend entry only where one is drawn; otherwise the title says the two agree
    let crosses: usize = panels.iter().map(|(_, c)| c.len()).sum();
    let title = if crosses == 0 { format!("{title}; the exact posterior decides the same in every cell") } else { title.to_string() };
    let panels = panels
        .into_iter()
        .map(|(mut p, cross)| {
            if crosses > 0 {
                p.series.push(Series::line("exact posterior (model as written) decides otherwise", REDUCED, cross).cross());
            }
            p
        })
        .collect();
    let mut f = Figure::grid(&title, panels, 4);
    f.legend_below = true;
    f.panel_w = 440;
    f.panel_h = 300;
    Ok(f)
}

fn kr_figure4(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure4.csv"))?;
    decision_figure(
        &t,
        "KR Figure 4: adversary's decision (0-1 loss), prior X₂ | X₁ ~ Unif{k₁, k₁+1, …}, p = 1/2, d = 27, colour: paper's sampler",
        &[("", "")],
    )
}

fn kr_figure10(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure10.csv"))?;
    decision_figure(
        &t,
        "KR Figure 10: decisions, top: Unif{k₁, k₁+1, …} (= Figure 4); bottom: Unif{k₁, …, 10}",
        &[("top", "Unif{k₁,…}: "), ("bottom", "Unif{k₁,…,10}: ")],
    )
}

fn kr_figure11(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure11.csv"))?;
    decision_figure(
        &t,
        "KR Figure 11: decisions, prior P[X₂ = k₂ | X₁] = 1 for k₂ = 1 (top) and k₂ = 25 (bottom)",
        &[("top", "X₂ ≡ 1: "), ("bottom", "X₂ ≡ 25: ")],
    )
}

fn kr_figure5(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure5.csv"))?;
    let all = |_: &dyn Fn(&str) -> String| true;
    let nohier = t.points("x2", "p_correct_no_hier", &all)?.first().map(|p| p.1).unwrap_or(f64::NAN);
    let paper = t.points("x2", "p_correct_paper_sampler", &all)?;
    let tail: Vec<f64> = paper.iter().filter(|(x, _)| *x >= 4.0).map(|p| p.1).collect();
    let mean4 = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
    let mut a = Panel::new("paper's Gibbs sampler (exact stationary law)", "true block-group count x₂", "P(correct decision)");
    a.series.push(Series::line("with hierarchy", EXACT, paper).markers());
    a.hlines.push((nohier, format!("ignoring the hierarchy ({:.2}%)", 100.0 * nohier), REDUCED));
    a.hlines.push((mean4, format!("paper's sampler, mean over x₂ ≥ 4 ({:.2}%)", 100.0 * mean4), BUREAU));
    let mut b = Panel::new("exact posterior of the model as written", "true block-group count x₂", "P(correct decision)");
    b.series.push(Series::line("with hierarchy", EXACT, t.points("x2", "p_correct_exact", &all)?).markers());
    b.hlines.push((nohier, format!("ignoring the hierarchy ({:.2}%)", 100.0 * nohier), REDUCED));
    let mut f =
        Figure::grid("KR Figure 5: P(correct decision) against the true x₂ (ρ₁ = 0.099, ρ₂ = 0.247, p = 1/2, d = 27)", vec![a, b], 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure6(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure6.csv"))?;
    let nohier = t.points("rho2", "p_correct_no_hier", &|_| true)?.first().map(|p| p.1).unwrap_or(f64::NAN);
    let mut panels = Vec::new();
    for (col, title) in [
        ("p_correct_paper_sampler", "paper's Gibbs sampler (exact stationary law)"),
        ("p_correct_exact", "exact posterior of the model as written"),
    ] {
        let mut p = Panel::new(title, "block-group privacy parameter ρ₂ (log scale)", "P(correct decision)");
        p.x_log = true;
        for (i, x2) in t.distinct("x2")?.iter().enumerate() {
            p.series.push(Series::line(&format!("true x₂ = {x2}"), color(i), t.points("rho2", col, &|g| g("x2") == *x2)?));
        }
        p.hlines.push((nohier, format!("ignoring the hierarchy ({:.2}%)", 100.0 * nohier), REDUCED));
        p.vlines.push((RHO2, "ρ₂ = 0.247 (2020 Census, block group)".into(), PURPLE));
        panels.push(p);
    }
    let mut f = Figure::grid("KR Figure 6: P(correct decision) against ρ₂ (ρ₁ = 0.099, p = 1/2, d = 27)", panels, 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure7(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure7.csv"))?;
    let mut a =
        Panel::new("marginal posterior", "number ℓ of levels where the target is known unique", "P[X₁ = 1 | x₁ = 1] (upper bracket)");
    a.series = prior_series(&t, "levels", "marginal_posterior_hi")?;
    let mut b =
        Panel::new("implied disclosure risk", "number ℓ of levels where the target is known unique", "R = marginal posterior / prior");
    b.series = prior_series(&t, "levels", "risk_hi")?;
    let mut f =
        Figure::grid("KR Figure 7: target unique at ℓ levels (Block, Block Group, Tract, County, State, US; Table 2 ρ)", vec![a, b], 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure8(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure8.csv"))?;
    let all = |_: &dyn Fn(&str) -> String| true;
    let var = t.points("s", "sigma2", &all)?;
    let diag: Vec<(f64, f64)> = var.iter().map(|(s, _)| (*s, *s)).collect();
    let top = Some((
        "ρ = 1/(2s) (upper axis)".to_string(),
        [10.0, 1.0, 0.1, 0.01].iter().map(|r: &f64| (0.5 / r, format!("{r}"))).collect::<Vec<_>>(),
    ));
    let mut a = Panel::new("variance σ² of DG(0, s) (certified)", "scale s of the discrete Gaussian (log scale)", "σ² (log scale)");
    a.x_log = true;
    a.y_log = true;
    a.y_range = Some((1e-7, 200.0));
    a.series.push(Series::line("σ² = Var DG(0, s)", EXACT, var));
    a.series.push(Series::line("σ² = s", REDUCED, diag).dashed());
    a.top_axis = top.clone();
    let mut b =
        Panel::new("s − σ² (theta-series identity, certified)", "scale s of the discrete Gaussian (log scale)", "s − σ² (log scale)");
    b.x_log = true;
    b.y_log = true;
    b.y_range = Some((1e-24, 1.0));
    b.series.push(Series::line("s − σ²", BUREAU, t.points("s", "s_minus_sigma2", &all)?));
    b.hlines.push((0.002, "0.002 (S2: |σ² − s| < 0.002 for s > 0.5)".into(), OTHER[0]));
    b.hlines.push((1e-6, "1e-6 (S2: |σ² − s| < 1e-6 for s > 1)".into(), OTHER[2]));
    b.top_axis = top;
    let mut f =
        Figure::grid("KR Figure 8: variance of the discrete Gaussian against its scale s (ρ = 1/(2s) on the upper axis)", vec![a, b], 2);
    f.legend_below = true;
    f.panel_w = 620;
    f.panel_h = 460;
    Ok(f)
}

fn kr_figure9(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure9.csv"))?;
    let mut panels = Vec::new();
    for rho in ["0.099", "1"] {
        for n in ["27", "5"] {
            let sel = |g: &dyn Fn(&str) -> String| g("rho") == rho && g("n") == n;
            let mut p = Panel::new(&format!("ρ = {rho}, n = {n}"), "value k of the sum", "probability");
            p.series.push(
                Series::line("exact pmf of Z₁ + … + Zₙ, Zᵢ ~ DG(0, 1/(2ρ)) (convolution)", EXACT, t.points("x", "pmf_sum", &sel)?)
                    .bars(-0.4, 0.8),
            );
            // the approximation as a dot on each bar (bar pairs merged at n = 27, ρ = 0.099: 81 values)
            p.series.push(
                Series::line("approximation DG(0, n/(2ρ)) (S2.3), one dot per value", BUREAU, t.points("x", "pmf_dg_approx", &sel)?)
                    .markers(),
            );
            let xs = t.points("x", "pmf_sum", &sel)?;
            let ymax = xs.iter().map(|p| p.1).fold(0.0, f64::max);
            // show where the pmf is visible (above 1e-3 of its mode); the CSV has the full window
            let vis: Vec<f64> = xs.iter().filter(|p| p.1 >= 1e-3 * ymax).map(|p| p.0).collect();
            let (lo, hi) = (vis.first().copied().unwrap_or(-1.0), vis.last().copied().unwrap_or(1.0));
            p.x_range = Some((lo - 1.0, hi + 1.0));
            p.y_range = Some((0.0, ymax * 1.08));
            panels.push(p);
        }
    }
    let mut f = Figure::grid("KR Figure 9: pmf of a sum of n discrete Gaussians against DG(0, n/(2ρ))", panels, 2);
    f.legend_below = true;
    f.panel_w = 620;
    Ok(f)
}

fn kr_figure12_left(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure12-left.csv"))?;
    let all = |_: &dyn Fn(&str) -> String| true;
    let mut a = Panel::new("", "post-processed block-group count x̃₂", "marginal disclosure risk R");
    a.series.push(Series::line("with post-processing (S6.8)", EXACT, t.points("x2tilde", "risk_postprocessed", &all)?));
    a.series.push(Series::line("without post-processing, from (x₁*, y₁*)", PURPLE, t.points("x2tilde", "risk_raw_x1star_y1star", &all)?));
    a.series
        .push(Series::line("without post-processing, from x₁* alone (3.4)", GREY, t.points("x2tilde", "risk_x1star_only", &all)?).dashed());
    let mut f = Figure::single("KR Figure 12 (left): post-processed risk against x̃₂ (ρ₁ = 0.099, p = 1/2, x₂ = 1)", a);
    f.legend_below = true;
    Ok(f)
}

fn kr_figure12_right(dir: &Path) -> Fallible<Figure> {
    let t = Table::read(&dir.join("kr-figure12-right.csv"))?;
    let mut a = Panel::new("", "block privacy parameter ρ₁ (log scale)", "marginal disclosure risk R");
    a.x_log = true;
    for (i, x2t) in t.distinct("x2tilde")?.iter().enumerate() {
        let c = [EXACT, BUREAU, OTHER[0]][i % 3];
        a.series.push(Series::line(
            &format!("with post-processing, x̃₂ = {x2t}"),
            c,
            t.points("rho1", "risk_postprocessed", &|g| g("x2tilde") == *x2t)?,
        ));
    }
    let first = t.distinct("x2tilde")?.first().cloned().unwrap_or_default();
    a.series.push(Series::line(
        "without post-processing, from (x₁*, y₁*)",
        PURPLE,
        t.points("rho1", "risk_raw_x1star_y1star", &|g| g("x2tilde") == first)?,
    ));
    a.vlines.push(rho1_line());
    let mut f = Figure::single("KR Figure 12 (right): post-processed risk against ρ₁ (p = 1/2, x₂ = 1)", a);
    f.legend_below = true;
    Ok(f)
}

/// A figure's maker: it reads its CSV from the directory given.
type Maker = fn(&Path) -> Fallible<Figure>;

/// The Kazan–Reiter figures: each stem's CSV (from `risk::figures::figure_data`) and its maker.
const RISK_FIGS: [(&str, Maker); 13] = [
    ("kr-figure1", kr_figure1),
    ("kr-figure2", kr_figure2),
    ("kr-figure3", kr_figure3),
    ("kr-figure4", kr_figure4),
    ("kr-figure5", kr_figure5),
    ("kr-figure6", kr_figure6),
    ("kr-figure7", kr_figure7),
    ("kr-figure8", kr_figure8),
    ("kr-figure9", kr_figure9),
    ("kr-figure10", kr_figure10),
    ("kr-figure11", kr_figure11),
    ("kr-figure12-left", kr_figure12_left),
    ("kr-figure12-right", kr_figure12_right),
];

/// The picture files [`risk_figures`] writes (`stem.png`, `stem.svg`), for a check of the destination
/// before the figures are computed.
pub fn risk_figure_files() -> Vec<String> {
    RISK_FIGS.iter().flat_map(|(stem, _)| [format!("{stem}.png"), format!("{stem}.svg")]).collect()
}

/// PNG/SVG for the Kazan–Reiter figure data in `dir` (written by `risk::figures::figure_data`):
/// Figures 1–12, labels in words, legends in a strip below the panels. The data CSVs are left as
/// written (only the pictures are written here).
pub fn risk_figures(dir: &Path) -> Fallible<Vec<PathBuf>> {
    let mut out = Vec::new();
    for (stem, make) in RISK_FIGS {
        if dir.join(format!("{stem}.csv")).exists() {
            out.extend(write_fig(make(dir)?, dir, stem)?);
        }
    }
    Ok(out)
}
