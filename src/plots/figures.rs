//! The f-DP paper's figures ([SSW24]), regenerated as CSV + PNG + SVG.

use crate::account::Profile;
use crate::app::figure_data::{acs_1890_profile, count_errors, level_data, local_clt, LevelData};
use crate::budget::zcdp;
use crate::census::Allocation;
use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::plots::plot::{bar_figure_opts, BarOpts, Figure, Panel, Series, BUREAU, EXACT, OTHER, REDUCED};
use rug::{Float, Rational};
use std::path::{Path, PathBuf};

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).expect("invariant: a finite value")
}

/// δ(ε) (f64, for plotting) of a profile on a grid of ε.
/// Certified δ(ε) on a grid, plotted at the bracket's midpoint — refused when a bracket is not known to
/// six digits (a profile truncated too shallowly for e^ε · second term), rather than drawing a mid-point
/// that may be far from the truth.
pub fn exact_curve(prof: &Profile, eps: &[f64]) -> Fallible<Vec<(f64, f64)>> {
    eps.iter()
        .map(|&e| {
            let d = prof.delta(&rat(e))?.delta;
            let (lo, hi) = (d.lo().to_f64(), d.hi().to_f64());
            if hi > 0.0 && (hi - lo) > 1e-6 * hi {
                return fallible!(Input,
                    "figure: delta({e}) is only known to lie in [{lo:.6e}, {hi:.6e}]; the profile's truncation depth is too shallow to plot it"
                );
            }
            Ok((e, d.mid().to_f64()))
        })
        .collect()
}

/// Bureau's δ(ε) = exp(−(ε−ρ)²/(4ρ)) (inverse of ε = ρ + 2√(ρ log 1/δ)).
pub fn bureau_delta(rho: f64, e: f64) -> f64 {
    if e <= rho {
        1.0
    } else {
        (-(e - rho) * (e - rho) / (4.0 * rho)).exp()
    }
}

/// ε grid from 0 to the larger of the two ε values at δ = 1e-15.
fn eps_grid(prof: &Profile, rho: f64, n: usize) -> Vec<f64> {
    let d15 = parse_rational("1e-15").expect("invariant: a decimal constant");
    let e1 = prof.epsilon(&d15).map(|c| c.hi().to_f64()).unwrap_or(0.0);
    let e2 = rho + 2.0 * (rho * (1e15f64).ln()).sqrt();
    let top = e1.max(e2);
    (0..=n).map(|i| top * i as f64 / n as f64).collect()
}

/// Exact trade-off knots thinned for plotting (consecutive kept points differ by ≥ `step` in α or β).
pub fn tradeoff_points(prof: &Profile, step: f64) -> Fallible<Vec<(f64, f64)>> {
    let mut out: Vec<(f64, f64)> = vec![(0.0, 1.0)];
    let mut last = (0.0f64, 1.0f64);
    for k in prof.knots()?.into_iter().rev() {
        let a = k.alpha.mid().to_f64();
        let b = k.beta.mid().to_f64();
        if (a - last.0).abs() >= step || (b - last.1).abs() >= step {
            out.push((a, b));
            last = (a, b);
        }
    }
    out.push((1.0, 0.0));
    Ok(out)
}

/// Trade-off curve implied by the Bureau's (ε, δ_BS(ε)) statements for all ε:
/// f(α) = sup_ε max(0, 1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) (Dong–Roth–Su Prop. 2.12 dual).
pub fn bureau_tradeoff(rho: f64, n: usize) -> Vec<(f64, f64)> {
    bureau_tradeoff_at(rho, (0..=n).map(|i| i as f64 / n as f64), 2000, 60.0)
}

/// The Bureau's trade-off envelope at the given α, with ε on a grid of `eps_steps` steps over [0, eps_max].
fn bureau_tradeoff_at(rho: f64, alphas: impl Iterator<Item = f64>, eps_steps: usize, eps_max: f64) -> Vec<(f64, f64)> {
    let eps: Vec<f64> = (0..=eps_steps).map(|i| eps_max * i as f64 / eps_steps as f64).collect();
    alphas
        .map(|a| {
            let mut best: f64 = 0.0;
            for &e in &eps {
                let d = bureau_delta(rho, e);
                best = best.max(1.0 - d - e.exp() * a).max((-e).exp() * (1.0 - d - a));
            }
            (a, best)
        })
        .collect()
}

/// One (ε, δ) panel: the Bureau's curve at ρ next to the exact curve of `prof`, δ on a log axis 1e-15..1.
fn eps_delta_panel(name: &str, rho: f64, prof: &Profile, labels: (&str, &str), color: plotters::style::RGBColor) -> Fallible<Panel> {
    let grid = eps_grid(prof, rho, 160);
    let mut p = Panel::new(name, "privacy loss ε", "δ(ε), log scale");
    p.y_log = true;
    p.y_range = Some((1e-15, 1.0));
    p.series.push(Series::line(labels.0, BUREAU, grid.iter().map(|&e| (e, bureau_delta(rho, e))).collect()));
    p.series.push(Series::line(labels.1, color, exact_curve(prof, &grid)?));
    Ok(p)
}

/// Figures 2, 3, 4, 5, 6, 8, 14, 15 (per level), 10 (local CLT), and the overall Figures 7, 12, 13.
/// `od`: the overall composition (computed once by the caller, shared with the overall tables).
pub fn write_all(
    alloc: &Allocation,
    out: &Path,
    prec: u32,
    od: &crate::app::figure_data::OverallData,
    progress: &dyn Fn(&str),
) -> Fallible<Vec<PathBuf>> {
    progress("per-level profiles and Table 1 noise");
    let levels = level_data(alloc, prec)?;
    let log_grid: Vec<f64> = (0..=120).map(|i| 10f64.powf(-15.0 + 15.0 * i as f64 / 120.0)).collect();
    let inputs = FigureInputs { alloc, out, prec, od, progress, levels, log_grid };
    let mut files = Vec::new();
    for (label, write) in FIGURES {
        progress(label);
        files.extend(write(&inputs)?);
    }
    Ok(files)
}

/// What the figures of `write_all` read: the allocation and its per-level profiles, the overall
/// composition's data, the output folder and the progress line.
struct FigureInputs<'a> {
    alloc: &'a Allocation,
    out: &'a Path,
    prec: u32,
    od: &'a crate::app::figure_data::OverallData,
    progress: &'a dyn Fn(&str),
    levels: Vec<LevelData>,
    /// δ from 1e-15 to 1 in 120 steps on a log scale (figures 14 and 15)
    log_grid: Vec<f64>,
}

/// One figure (or a pair drawn from the same data): the files it wrote.
type Writer = fn(&FigureInputs) -> Fallible<Vec<PathBuf>>;

/// The figures `write_all` writes, in order: the progress label and the writer.
const FIGURES: &[(&str, Writer)] = &[
    ("figure 2", fig02),
    ("figure 3", fig03),
    ("figures 4 and 5", fig04_05),
    ("figures 14 and 15", fig14_15),
    ("figures 6 and 8", fig06_08),
    ("figure 10", fig10),
    ("figure 11", fig11),
    ("overall composition (figures 7, 12, 13)", overall),
    ("figure 13 (County)", fig13),
];

/// Figure 2: (ε, δ) curves per level.
fn fig02(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, out) = (&inp.levels, inp.out);
    let mut files = Vec::new();
    let panels: Vec<Panel> = levels
        .iter()
        .map(|l| {
            let names = ("Bureau's accounting: its zCDP ρ converted to (ε, δ)", "exact privacy profile of the same noise (certified)");
            eps_delta_panel(&l.name, l.rho, &l.prof, names, EXACT)
        })
        .collect::<Result<_, _>>()?;
    files.extend(
        shared_legend(Figure::grid(
            "Figure 2: privacy profile δ(ε) per geographic level, DHC 2022-08-25 (the smallest δ for each ε)",
            panels,
            4,
        ))
        .write(&out.join("fig02-eps-delta-levels"))?,
    );
    Ok(files)
}

/// Figure 3: ε at δ = 1e-11 and 1e-5 per level.
fn fig03(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, out) = (&inp.levels, inp.out);
    let mut files = Vec::new();
    let mut groups = Vec::new();
    for (d, light) in [("1e-11", false), ("1e-5", true)] {
        let dr = parse_rational(d).expect("invariant: a decimal constant");
        let b: Vec<f64> = levels.iter().map(|l| zcdp::eps_bs(&rat(l.rho), &dr, 128).mid().to_f64()).collect();
        let e: Vec<f64> =
            levels.iter().map(|l| l.prof.epsilon(&dr).expect("invariant: the level's lattice answers epsilon").mid().to_f64()).collect();
        let (cb, ce) =
            if light { (plotters::style::RGBColor(245, 150, 150), plotters::style::RGBColor(150, 190, 230)) } else { (BUREAU, EXACT) };
        groups.push((format!("Bureau, δ = {d}"), cb, b));
        groups.push((format!("exact, δ = {d}"), ce, e));
    }
    let cats: Vec<String> = levels.iter().map(|l| short(&l.name)).collect();
    files.extend(bar_figure_opts(
        "Figure 3: ε per geographic level at δ = 1e-11 and δ = 1e-5",
        "privacy loss ε",
        &cats,
        &groups,
        &out.join("fig03-eps-bars"),
        &abbrev(),
    )?);
    Ok(files)
}

/// Figures 4 and 5: trade-off functions (Bureau, exact same noise, exact reduced noise).
fn fig04_05(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, out) = (&inp.levels, inp.out);
    let mut files = Vec::new();
    let panels: Vec<Panel> = levels
        .iter()
        .map(|l| {
            let mut p = Panel::new(&format!("{} (σ² × {:.4})", l.name, l.factor), "type I error α", "type II error β");
            p.x_range = Some((0.0, 1.0));
            p.y_range = Some((0.0, 1.0));
            p.series.push(Series::line("Bureau (zCDP)", BUREAU, bureau_tradeoff(l.rho, 400)));
            p.series.push(Series::line("exact, same noise", EXACT, tradeoff_points(&l.prof, 2e-3)?));
            p.series.push(
                Series::line("exact, reduced noise (σ² × the factor in each title)", REDUCED, tradeoff_points(&l.reduced, 2e-3)?).dashed(),
            );
            Ok(p)
        })
        .collect::<Fallible<_>>()?;
    files.extend(
        shared_legend(Figure::grid(
            "Figure 4: trade-off functions per level; reduced noise (Table 1): σ² lowered until the exact ε at δ = 1e-11 is the Bureau's",
            panels,
            4,
        ))
        .write(&out.join("fig04-tradeoff-levels"))?,
    );
    let panels: Vec<Panel> = levels
        .iter()
        .map(|l| {
            eps_delta_panel(
                &l.name,
                l.rho,
                &l.reduced,
                ("Bureau's accounting: zCDP ρ of the published noise, converted", "exact privacy profile, reduced noise (Table 1)"),
                REDUCED,
            )
        })
        .collect::<Result<_, _>>()?;
    files.extend(
        shared_legend(Figure::grid(
            "Figure 5: the reduced noise of Table 1 (σ² lowered until the exact ε at δ = 1e-11 is the Bureau's) against the Bureau's curve",
            panels,
            4,
        ))
        .write(&out.join("fig05-reduced-noise-levels"))?,
    );
    Ok(files)
}

/// Figures 14 and 15: improvement in ε against δ.
fn fig14_15(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, log_grid, out) = (&inp.levels, &inp.log_grid, inp.out);
    let mut files = Vec::new();
    // Figure 14's caption puts the improvement in ε on the x-axis and δ on the y-axis
    // (as δ nears 1 both ε fall to 0 and each curve turns back: the axis runs to δ = 1, ticks beside the turn)
    let mut abs_p = Panel::new("ε_Bureau − ε_exact", "improvement in ε", "δ (log scale)");
    abs_p.y_log = true;
    abs_p.y_range = Some((1e-15, 1.0));
    let mut rel_p = Panel::new("100 (1 − ε_exact/ε_Bureau)", "δ", "improvement in %");
    rel_p.x_log = true;
    for (i, l) in levels.iter().enumerate() {
        let color = palette(i);
        let mut a = Vec::new();
        let mut r = Vec::new();
        for &d in log_grid {
            if d >= 1.0 {
                continue;
            }
            let dr = rat(d);
            let b = zcdp::eps_bs(&rat(l.rho), &dr, 128).mid().to_f64();
            let e = l.prof.epsilon(&dr).expect("invariant: the level's lattice answers epsilon").mid().to_f64();
            a.push((b - e, d));
            r.push((d, 100.0 * (1.0 - e / b)));
        }
        abs_p.series.push(Series::line(&l.name, color, a));
        rel_p.series.push(Series::line(&l.name, color, r));
    }
    // PEPG and Tract Subset Group have the same noise (Table 1), so their curves coincide and the one
    // drawn later hides the other: the legend says so
    for p in [&mut abs_p, &mut rel_p] {
        name_identical_curves(&mut p.series);
    }
    // the legend under the plot, off the curves
    let xmax = abs_p.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(0.0, f64::max);
    abs_p.x_range = Some((0.0, 1.03 * xmax));
    let title = "Figure 14: improvement in ε per level; near δ = 1 both ε shrink";
    files.extend(shared_legend(Figure::single(title, abs_p)).write(&out.join("fig14-improvement-eps"))?);
    files.extend(
        shared_legend(Figure::single("Figure 15: improvement in ε per level, percent", rel_p))
            .write(&out.join("fig15-improvement-percent"))?,
    );
    Ok(files)
}

/// Figure 6 (exact analogue): MSE and MAE reductions per level with the Table 1 noise, without
/// post-processing (independent of the counts) and with max(0, ·) at a true count of 1. The paper's
/// values are Monte Carlo estimates on Pennsylvania 2010 counts, which are not bundled.
fn fig06_08(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, out) = (&inp.levels, inp.out);
    let mut files = Vec::new();
    let one: Vec<&LevelData> = levels.iter().filter(|l| l.sigma2.is_some()).collect();
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); 4];
    for l in &one {
        let (s, r) = l.sigma2.as_ref().expect("invariant: filtered to levels with one variance");
        let (a, b, c, d) = count_errors(s, 1);
        let (a2, b2, c2, d2) = count_errors(r, 1);
        for (k, (x, y)) in [(a, a2), (b, b2), (c, c2), (d, d2)].into_iter().enumerate() {
            cols[k].push(100.0 * (1.0 - y / x));
        }
    }
    let names = ["MSE, no post-processing", "MAE, no post-processing", "MSE, max(0, ·), true count 1", "MAE, max(0, ·), true count 1"];
    let g6: Vec<(String, plotters::style::RGBColor, Vec<f64>)> =
        names.iter().zip(cols).enumerate().map(|(i, (n, v))| (n.to_string(), palette(i), v)).collect();
    let cats6: Vec<String> = one.iter().map(|l| short(&l.name)).collect();
    files.extend(bar_figure_opts(
        "Figure 6 (exact): error reduction per level with the Table 1 noise (σ² lowered until the exact ε at δ = 1e-11 is the Bureau's)",
        "reduction of the error, %",
        &cats6,
        &g6,
        &out.join("fig06-accuracy-reduction"),
        &abbrev(),
    )?);
    // Figure 8 (exact analogue): block-level MSE after max(0, ·) against the true count.
    if let Some(blk) = one.iter().find(|l| short(&l.name) == "Block").or(one.last()) {
        let (s, r) = blk.sigma2.as_ref().expect("invariant: filtered to levels with one variance");
        let ys: Vec<i64> = (0..=30).collect();
        let mut p = Panel::new(
            &format!("{} level: σ² = {:.3} (Bureau) vs {:.3} (Table 1)", blk.name, s.to_f64(), r.to_f64()),
            "true count y",
            "MSE of max(0, y + X)",
        );
        p.series.push(Series::line("Bureau noise", BUREAU, ys.iter().map(|&y| (y as f64, count_errors(s, y).2)).collect()).markers());
        p.series.push(
            Series::line("reduced noise (same ε at δ = 1e-11)", REDUCED, ys.iter().map(|&y| (y as f64, count_errors(r, y).2)).collect())
                .markers(),
        );
        // the MSE axis from 0 (the reduction reads as a ratio), the legend in the empty band under the points
        let top = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.1)).fold(0.0, f64::max);
        p.y_range = Some((0.0, 1.05 * top));
        p.x_range = Some((-0.8, 30.8));
        p.legend_lower_left = true;
        files.extend(
            Figure::single("Figure 8 (exact): MSE of a block count after non-negative post-processing", p)
                .write(&out.join("fig08-block-mse"))?,
        );
    }
    Ok(files)
}

/// Figure 10: pmf of S_n (n = 2) vs its local-CLT approximation (Theorem A.11).
fn fig10(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let out = inp.out;
    let mut files = Vec::new();
    let mut panels = Vec::new();
    for s2 in ["5", "25"] {
        let sigma2 = parse_rational(s2).expect("invariant: a decimal constant");
        let lc = local_clt(&sigma2, 2)?;
        let (bn, span) = (lc.bn, lc.span);
        let exact: Vec<(f64, f64)> = lc.pmf.iter().map(|&(y, m)| (y as f64 / bn, m)).collect();
        let clt: Vec<(f64, f64)> = (-span..=span)
            .map(|y| {
                let z = y as f64 / bn;
                (z, (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() / bn)
            })
            .collect();
        let mut p = Panel::new(&format!("σ² = {s2}, n = 2"), "y = (X₁+X₂)/(√n σ)", "mass");
        p.series.push(Series::line("(1/Bₙ) ϕ(y)", REDUCED, clt).legend("local-CLT approximation (1/Bₙ) ϕ(y)"));
        p.series.push(Series::line("exact pmf of Sₙ", EXACT, exact).markers());
        panels.push(p);
        // residual panel: r(y) = P[S = y] − ϕ(y/Bₙ)/Bₙ is far below f64 resolution of the masses, so it is
        // computed in MPFR at 512 bits (the exact pmf is certified to ~1e-150 there) and only then plotted.
        let resid: Vec<(f64, f64)> = lc.log10_residual.iter().map(|&(y, r)| (y as f64 / bn, r)).collect();
        let mut q = Panel::new(&format!("σ² = {s2}: |pmf − (1/Bₙ)ϕ| (512-bit)"), "y", "log10 |residual|");
        q.series.push(Series::line("|r_{n,σ}(y)|", OTHER[0], resid).legend("residual |exact pmf − (1/Bₙ) ϕ(y)| (log10)"));
        panels.push(q);
    }
    files.extend(
        shared_legend(Figure::grid("Figure 10: exact pmf of Sₙ vs its local-CLT approximation", panels, 2))
            .write(&out.join("fig10-local-clt"))?,
    );
    Ok(files)
}

/// Figure 11: the ACS 5-year comparison, n = 1890 queries. The paper does not state σ²; the authors'
/// notebook (github.com/BuxinSu/Census_2020_Privacy, Figures/log_delta_eps_curve.ipynb, commit 9956194,
/// removed in 6d297d3) draws two panels, σ² = 25 and σ² = 100 per query, log δ from 1e-15 to 1. Composed
/// exactly in 30 blocks of 63 with the certified double-precision engine.
fn fig11(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let out = inp.out;
    let mut files = Vec::new();
    {
        let mut panels = Vec::new();
        for s2 in ["25", "100"] {
            let sigma2 = parse_rational(s2).expect("invariant: a decimal constant");
            let rho = 1890.0 / (2.0 * sigma2.to_f64());
            // δ(ε) = first − e^ε·second: the second term must be resolved below 2^-(ε log2 e + 60), so the
            // lattice is truncated that deep (ε up to the Bureau's ε at δ = 1e-15).
            let eps_top = rho + 2.0 * (rho * (1e15f64).ln()).sqrt();
            let prof = acs_1890_profile(&sigma2, eps_top)?;
            let grid = eps_grid(&prof, rho, 160);
            let mut p = Panel::new(&format!("n = 1890 queries, σ² = {s2} each (ρ = {rho})"), "privacy loss ε", "δ(ε) (log scale)");
            p.y_log = true;
            p.y_range = Some((1e-15, 1.0));
            p.legend_lower_left = true;
            p.series.push(Series::line("Bureau (zCDP)", BUREAU, grid.iter().map(|&e| (e, bureau_delta(rho, e))).collect()));
            p.series.push(Series::line("exact (f-DP)", EXACT, exact_curve(&prof, &grid)?));
            panels.push(p);
        }
        files.extend(
            shared_legend(Figure::grid("Figure 11: the ACS 5-year comparison, 1890-fold compositions", panels, 2))
                .write(&out.join("fig11-acs-1890"))?,
        );
    }
    Ok(files)
}

/// Overall: Figures 7, 12, 13.
fn overall(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (out, od, progress) = (inp.out, inp.od, inp.progress);
    let mut files = Vec::new();
    files.extend(overall_figures(od, out, progress)?);
    Ok(files)
}

/// Figure 13 (Appendix E): "zoomed-in trade-off functions for County …, under the same noise level or
/// after reducing the variance proxy by 8.59%" — near α = 0 on a log axis, where the curves meet; with
/// the County's Table 1 noise (§3.2, the reduction Figure 4 draws) as well.
fn fig13(inp: &FigureInputs) -> Fallible<Vec<PathBuf>> {
    let (levels, out, alloc, prec) = (&inp.levels, inp.out, inp.alloc, inp.prec);
    let mut files = Vec::new();
    if let Some(c) = levels.iter().find(|l| l.name == "County") {
        let paper = crate::app::figure_data::county_paper_reduced(alloc, prec)?;
        let mut z = Panel::new("County, small α", "type I error α (log scale)", "type II error β");
        z.x_log = true;
        z.x_range = Some((1e-12, 1e-1));
        z.y_range = Some((0.0, 1.0));
        z.legend_lower_left = true;
        z.series.push(Series::line("Bureau (zCDP)", BUREAU, bureau_tradeoff_log(c.rho)));
        z.series.push(Series::line("exact, same noise", EXACT, tradeoff_points_log(&c.prof)?));
        z.series.push(Series::line("exact, σ² reduced 8.59% (caption)", OTHER[2], tradeoff_points_log(&paper)?).dashed());
        z.series.push(
            Series::line(
                &format!("exact, σ² reduced {:.2}% (Table 1)", 100.0 * (1.0 - c.factor)),
                REDUCED,
                tradeoff_points_log(&c.reduced)?,
            )
            .dashed(),
        );
        // §3.2: the reduced-noise curve lies above the Bureau's "except for very small regions near the
        // endpoints"; near α = 0 the two differ by picoscale amounts no linear β axis resolves, so a second
        // panel draws the difference itself (not in the CSV: it is derived from the same two functions)
        let mut d = Panel::new(
            "where they cross: β(exact, Table 1 noise) − β(Bureau)",
            "type I error α (log scale)",
            "difference in β, units of 1e-12",
        );
        d.x_log = true;
        d.series.push(Series::line(
            &format!("exact, σ² reduced {:.2}% (Table 1) minus Bureau (zCDP)", 100.0 * (1.0 - c.factor)),
            REDUCED,
            crossing_gap(c.rho, &c.reduced, log_alphas(-16.0, -12.2, 240))?,
        ));
        d.hlines.push((0.0, "no difference (curves cross)".into(), BUREAU));
        d.legend_lower_left = false;
        let mut f = Figure::grid("Figure 13: County trade-off functions near α = 0", vec![z, d], 2);
        f.panel_w = 760;
        f.panel_h = 620;
        f.legend_below = true;
        files.extend(f.write_data_of_first(1, &out.join("fig13-county-tradeoff-zoom"))?);
    }
    Ok(files)
}

/// Legend text for series whose points equal an earlier series' points: drawn later, the earlier curve
/// lies hidden under it, so both legend entries name the pair ("PEPG (= Tract Subset Group, identical
/// curve)").
fn name_identical_curves(series: &mut [Series]) {
    let n = series.len();
    for i in 0..n {
        let twins: Vec<String> =
            (0..n).filter(|&j| j != i && series[j].points == series[i].points).map(|j| series[j].name.clone()).collect();
        if !twins.is_empty() {
            let text = format!("{} (= {}, identical curve)", series[i].name, twins.join(", "));
            series[i].legend = Some(text);
        }
    }
}

/// The figure with one legend under its panels instead of the same legend in every panel.
fn shared_legend(mut f: Figure) -> Figure {
    f.legend_below = true;
    f
}

fn palette(i: usize) -> plotters::style::RGBColor {
    const P: [plotters::style::RGBColor; 8] = [
        plotters::style::RGBColor(31, 119, 180),
        plotters::style::RGBColor(255, 127, 14),
        plotters::style::RGBColor(44, 160, 44),
        plotters::style::RGBColor(214, 39, 40),
        plotters::style::RGBColor(148, 103, 189),
        plotters::style::RGBColor(140, 86, 75),
        plotters::style::RGBColor(227, 119, 194),
        plotters::style::RGBColor(127, 127, 127),
    ];
    P[i % 8]
}

/// The x axis of the per-level bar charts, whose categories are the short names of [`short`] (kept as
/// they are: they are the CSV's category keys): the abbreviations in words.
fn abbrev() -> BarOpts {
    BarOpts {
        x_label: "geographic level (TSG = Tract Subset Group, TS = Tract Subset, OBG = Optimized Block Group)".into(),
        percent_log: false,
    }
}

fn short(name: &str) -> String {
    match name {
        "Tract Subset Group" => "TSG".into(),
        "Tract Subset" => "TS".into(),
        "Optimized Block Group" => "OBG".into(),
        other => other.into(),
    }
}

fn overall_figures(od: &crate::app::figure_data::OverallData, out: &Path, progress: &dyn Fn(&str)) -> Fallible<Vec<PathBuf>> {
    progress("overall curves");
    let mut files = Vec::new();
    let grid = eps_grid(&od.same, od.rho, 200);
    let fac = od.exact_factor.0.to_f64();
    let mut p = Panel::new("all eight levels composed (80 queries)", "ε", "δ(ε)");
    p.y_log = true;
    p.y_range = Some((1e-15, 1.0));
    p.series.push(Series::line("Bureau (zCDP)", BUREAU, grid.iter().map(|&e| (e, bureau_delta(od.rho, e))).collect()));
    p.series.push(Series::line("exact, same noise", EXACT, exact_curve(&od.same, &grid)?));
    // the paper's Figure 7: "The black curve uses variance proxy that is reduced by 8.59%"
    p.series.push(Series::line("exact, σ² reduced 8.59% (paper)", REDUCED, exact_curve(&od.paper, &grid)?).dashed());
    p.series.push(
        Series::line(
            &format!("exact, σ² reduced {:.2}% (exact match at δ=1e-10)", 100.0 * (1.0 - fac)),
            OTHER[2],
            exact_curve(&od.exact, &grid)?,
        )
        .dashed(),
    );
    files.extend(Figure::single("Figure 7: overall (ε, δ)-curves, DHC 2022-08-25", p).write(&out.join("fig07-overall-eps-delta"))?);
    let mut t = Panel::new("all eight levels composed", "type I error α", "type II error β");
    t.x_range = Some((0.0, 1.0));
    t.y_range = Some((0.0, 1.0));
    t.series.push(Series::line("Bureau (zCDP)", BUREAU, bureau_tradeoff(od.rho, 500)));
    t.series.push(Series::line("exact, same noise", EXACT, tradeoff_points(&od.same, 1e-3)?));
    t.series.push(Series::line("exact, σ² reduced 8.59% (paper)", REDUCED, tradeoff_points(&od.paper, 1e-3)?).dashed());
    t.series.push(Series::line("exact, σ² reduced (exact match)", OTHER[2], tradeoff_points(&od.exact, 1e-3)?).dashed());
    // On linear axes the Bureau's curve (β < 1e-3 for α > 0.05) lies on the axes; the same four curves on
    // log–log axes show where it runs. The second panel redraws the same functions (not in the CSV).
    let mut l = Panel::new("the same curves, both axes on a log scale", "type I error α (log scale)", "type II error β (log scale)");
    l.x_log = true;
    l.y_log = true;
    l.x_range = Some((1e-13, 1.0));
    l.y_range = Some((1e-7, 1.0));
    l.series.push(Series::line("Bureau (zCDP)", BUREAU, bureau_tradeoff_at(od.rho, log_alphas(-13.0, 0.0, 400), 20_000, 100.0)));
    l.series.push(Series::line("exact, same noise", EXACT, tradeoff_points_log(&od.same)?));
    l.series.push(Series::line("exact, σ² reduced 8.59% (paper)", REDUCED, tradeoff_points_log(&od.paper)?).dashed());
    l.series.push(Series::line("exact, σ² reduced (exact match)", OTHER[2], tradeoff_points_log(&od.exact)?).dashed());
    let title =
        "Figure 12: overall trade-off functions (on linear axes the Bureau's zCDP curve runs along the axes: β < 0.001 once α > 0.001)";
    let mut f = Figure::grid(title, vec![t, l], 2);
    f.panel_w = 700;
    f.panel_h = 600;
    f.legend_below = true;
    files.extend(f.write_data_of_first(1, &out.join("fig12-overall-tradeoff"))?);
    Ok(files)
}

/// `n + 1` values of α evenly spaced in log10 from 10^lo to 10^hi.
fn log_alphas(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..=n).map(move |i| 10f64.powf(lo + (hi - lo) * i as f64 / n as f64))
}

/// 1 − f(α) of the Bureau's trade-off envelope near α = 0, computed as min over ε of δ(ε) + e^ε α (the
/// branch that binds there), without the cancellation of 1 − f: a coarse grid over [0, 100], then a
/// golden-section refinement around the best grid point.
fn bureau_one_minus_beta(rho: f64, alpha: f64) -> f64 {
    let g = |e: f64| bureau_delta(rho, e) + e.exp() * alpha;
    let steps = 20_000;
    let h = 100.0 / steps as f64;
    let best = (0..=steps).map(|i| i as f64 * h).fold(0.0, |b, e| if g(e) < g(b) { e } else { b });
    let (mut a, mut b) = ((best - h).max(0.0), best + h);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let (c, d) = (b - r * (b - a), a + r * (b - a));
        if g(c) < g(d) {
            b = d;
        } else {
            a = c;
        }
    }
    g(best).min(g((a + b) / 2.0))
}

/// β_exact(α) − β_Bureau(α) near α = 0, in units of 1e-12: 1 − β of the exact curve from its certified
/// value in MPFR (no f64 cancellation), the Bureau's from [`bureau_one_minus_beta`].
fn crossing_gap(rho: f64, prof: &Profile, alphas: impl Iterator<Item = f64>) -> Fallible<Vec<(f64, f64)>> {
    alphas
        .map(|a| {
            let f = prof.tradeoff(&rat(a))?.mid();
            let one_minus = Float::with_val(f.prec(), 1u32 - &f).to_f64();
            Ok((a, (bureau_one_minus_beta(rho, a) - one_minus) * 1e12))
        })
        .collect()
}

fn tradeoff_points_log(prof: &Profile) -> Fallible<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let mut last_la = f64::NEG_INFINITY;
    for k in prof.knots()?.into_iter().rev() {
        let a = k.alpha.mid().to_f64();
        if a < 1e-13 {
            continue;
        }
        let la = a.log10();
        if la - last_la >= 0.02 {
            out.push((a, k.beta.mid().to_f64()));
            last_la = la;
        }
    }
    Ok(out)
}

fn bureau_tradeoff_log(rho: f64) -> Vec<(f64, f64)> {
    bureau_tradeoff_at(rho, (0..=330).map(|i| 10f64.powf(-13.0 + 13.0 * i as f64 / 330.0)), 3000, 60.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::{lattice_depth, Accountant, Options};
    use crate::model::Composition;
    use crate::num::Arith;

    /// Figures 14 and 15 drew PEPG under the identical Tract Subset Group curve with nothing saying so:
    /// series with equal points name each other in the legend, the others keep their names.
    #[test]
    fn identical_curves_name_each_other() {
        let c = plotters::style::RGBColor(0, 0, 0);
        let mut s = vec![
            Series::line("US", c, vec![(0.1, 1.0)]),
            Series::line("PEPG", c, vec![(0.5, 1e-3), (0.4, 1e-2)]),
            Series::line("Tract Subset Group", c, vec![(0.5, 1e-3), (0.4, 1e-2)]),
        ];
        name_identical_curves(&mut s);
        assert_eq!(s[0].legend, None);
        assert_eq!(s[1].legend.as_deref(), Some("PEPG (= Tract Subset Group, identical curve)"));
        assert_eq!(s[2].legend.as_deref(), Some("Tract Subset Group (= PEPG, identical curve)"));
    }

    /// 1 − f(α) of the Bureau's envelope near α = 0 against a direct minimisation on a fine grid (the
    /// 1 − β the crossing panel of Figure 13 subtracts): within 1e-9 relative at County's ρ.
    #[test]
    fn bureau_one_minus_beta_is_the_envelope() {
        let rho = 0.6128; // any ρ of the order of the levels'
        for a in [1e-15, 1e-13, 1e-11] {
            let fine = (0..=2_000_000).map(|i| i as f64 * 5e-5).map(|e| bureau_delta(rho, e) + e.exp() * a).fold(f64::INFINITY, f64::min);
            let v = bureau_one_minus_beta(rho, a);
            assert!(v <= fine * (1.0 + 1e-9) && v >= fine * (1.0 - 1e-6), "{a}: {v} vs {fine}");
        }
    }

    /// Figure 11's σ² = 25 panel at ε = 88.05: at the f64 engine's default depth the bracket of δ is
    /// [0, 2.3e-9] (the second term, times e^88, is unresolved) and the curve is refused instead of drawn
    /// at a wrong mid-point; truncated deep enough, it agrees with `tightdp delta --sigma2 25 --n 1890
    /// --epsilon 88.05` (2.217860649e-9, double-double lattice, 20 digits).
    #[test]
    fn exact_curve_refuses_unresolved_brackets() {
        let block = Composition::gaussian(parse_rational("25").unwrap(), 63, 1).unwrap();
        let acc = Accountant::of_blocks(&vec![block; 30], Options::default()).unwrap();
        let shallow = acc.lattice_profile(Arith::F64, None).unwrap();
        let err = exact_curve(&shallow, &[88.05]).unwrap_err();
        assert!(err.to_string().contains("too shallow"), "{err}");
        let deep = acc.lattice_profile(Arith::F64, Some(lattice_depth(Arith::F64) + 160)).unwrap();
        let v = exact_curve(&deep, &[88.05]).unwrap()[0].1;
        assert!((v - 2.217860649e-9).abs() < 1e-9 * 2.217860649e-9 * 1e3, "{v}");
    }
}
