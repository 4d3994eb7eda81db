//! `tightdp reproduce`: the main job — every table, figure and the verification, into one directory.
//! Everything is computed first and written at the end (atomically per file): a failure writes nothing.

use crate::budget::zcdp;
use crate::census::Allocation;
use crate::cli::calibrate::{level_rows, Conversion};
use crate::cli::common::check_prec;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::{parse_rational, DEFAULT_PREC};
use crate::report::figures;
use crate::report::output::{render_csv, write_atomic};
use crate::report::{tables, Record};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rug::{Float, Rational};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Output directory
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Directory holding the bundled data (allocations, published values)
    #[arg(long, value_name = "DIR", default_value = "data")]
    pub data: PathBuf,
    /// Working precision in bits for the per-level tables
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
    /// Working precision for the overall (80-query) compositions behind figures and curves
    #[arg(long, value_name = "BITS", default_value_t = 128)]
    pub overall_prec: u32,
    /// Skip figures (tables only)
    #[arg(long)]
    pub no_figures: bool,
    /// Only the fast per-level tables (a smoke test of the pipeline; implies --no-figures)
    #[arg(long)]
    pub quick: bool,
}

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).unwrap()
}

/// results/overall-profile.csv: the overall (ε, δ) curve, exact (certified, both terms) vs Bureau and
/// under the two uniform reductions; plus results/overall-summary.csv.
fn overall_tables(alloc: &Allocation, prec: u32) -> Result<(String, String), String> {
    let od = figures::overall_data(alloc, prec)?;
    let rho = alloc.total_rho();
    let mut rows = Vec::new();
    for i in 0..=120 {
        let e = 30.0 * i as f64 / 120.0;
        let er = rat(e);
        let d = od.same.delta(&er);
        let mut r = Record::new();
        r.push("epsilon", format!("{e}"));
        r.push("delta_bureau", fmt_nearest(&zcdp::delta_bs(&rho, &er, prec).mid(), 20));
        r.push("delta_exact_lo", fmt_down(&d.delta.lo, 25));
        r.push("delta_exact_hi", fmt_up(&d.delta.hi, 25));
        r.push("first_term", fmt_nearest(&d.first.mid(), 20));
        r.push("second_term", fmt_nearest(&d.second.mid(), 20));
        r.push("delta_exact_paper_reduced_8.59pct", fmt_nearest(&od.paper.delta(&er).delta.mid(), 20));
        r.push("delta_exact_uniform_reduced", fmt_nearest(&od.exact.delta(&er).delta.mid(), 20));
        rows.push(r);
    }
    let d10 = parse_rational("1e-10").unwrap();
    let eb = zcdp::eps_bs(&rho, &d10, prec);
    let ee = od.same.epsilon(&d10)?;
    let at = od.same.delta(&ee.lo.to_rational().unwrap());
    let mut s = Vec::new();
    let mut push = |k: &str, v: String, note: &str| {
        let mut r = Record::new();
        r.push("quantity", k);
        r.push("value", v);
        r.push("note", note);
        s.push(r);
    };
    push("rho_total", rho.to_string(), "sum of the level budgets (3.65)");
    push("eps_bureau_delta_1e-10", fmt_nearest(&eb.mid(), 25), "rho + 2 sqrt(rho log 1e10)");
    push("eps_exact_lo_delta_1e-10", fmt_down(&ee.lo, 25), "certified, both terms of (A.9)");
    push("eps_exact_hi_delta_1e-10", fmt_up(&ee.hi, 25), "");
    let red = (Float::with_val(prec, 1) - Float::with_val(prec, &ee.hi) / eb.mid()) * 100u32;
    push("eps_reduction_percent_delta_1e-10", fmt_nearest(&red, 12), "100 (1 - eps_exact/eps_bureau)");
    push("first_term_at_eps_exact", fmt_nearest(&at.first.mid(), 20), "P[L_Q > eps]: the term the paper evaluates");
    push("second_term_at_eps_exact", fmt_nearest(&at.second.mid(), 20), "e^eps P[L_P > eps]: the paper's 'second term', dropped there");
    push(
        "uniform_variance_factor_lo",
        fmt_down(&Float::with_val(prec, &od.exact_factor.0), 20),
        "exact both-term match of eps_bureau at delta = 1e-10",
    );
    push("uniform_variance_factor_hi", fmt_up(&Float::with_val(prec, &od.exact_factor.1), 20), "");
    let ur = (1.0 - od.exact_factor.1.to_f64()) * 100.0;
    push("uniform_variance_reduction_percent", format!("{ur:.6}"), "paper: 8.59% (first term only)");
    Ok((render_csv(&rows), render_csv(&s)))
}

/// results/accuracy-counts.csv: exact MSE/MAE of a released count with and without max(0, ·),
/// per level, Bureau vs Table 1 reduced σ², for small true counts (Figures 6 and 8, exact).
fn accuracy_table(alloc: &Allocation, table1: &[Record]) -> Result<String, String> {
    let mut rows = Vec::new();
    for (l, t) in alloc.levels.iter().zip(table1) {
        let groups = alloc.level_mechanisms(l);
        if groups.len() != 1 {
            continue;
        }
        let s2 = &groups[0].sigma2;
        let fac = parse_rational(t.get("factor_lo").unwrap()).unwrap();
        let s2r = Rational::from(s2 * &fac);
        for y in [0i64, 1, 2, 5, 10, 100] {
            let (a, b, c, d) = figures::count_errors(s2, y);
            let (ar, br, cr, dr) = figures::count_errors(&s2r, y);
            let mut r = Record::new();
            r.push("level", l.name.clone());
            r.push("true_count", y.to_string());
            r.push("sigma2_bureau", fmt_nearest(&Float::with_val(128, s2), 10));
            r.push("sigma2_reduced", fmt_nearest(&Float::with_val(128, &s2r), 10));
            r.push("mse_bureau", format!("{a:.10}"));
            r.push("mse_reduced", format!("{ar:.10}"));
            r.push("mse_change_percent", format!("{:.4}", 100.0 * (ar / a - 1.0)));
            r.push("mae_bureau", format!("{b:.10}"));
            r.push("mae_reduced", format!("{br:.10}"));
            r.push("mae_change_percent", format!("{:.4}", 100.0 * (br / b - 1.0)));
            r.push("mse_nonneg_bureau", format!("{c:.10}"));
            r.push("mse_nonneg_reduced", format!("{cr:.10}"));
            r.push("mse_nonneg_change_percent", format!("{:.4}", 100.0 * (cr / c - 1.0)));
            r.push("mae_nonneg_bureau", format!("{d:.10}"));
            r.push("mae_nonneg_reduced", format!("{dr:.10}"));
            r.push("mae_nonneg_change_percent", format!("{:.4}", 100.0 * (dr / d - 1.0)));
            rows.push(r);
        }
    }
    Ok(render_csv(&rows))
}

/// results/production-certificates.csv: what the 2020 Census really spent, per product, at δ = 1e-10.
fn production_certificates(data: &std::path::Path) -> Result<(String, Vec<(String, [f64; 3])>), String> {
    let d10 = parse_rational("1e-10").unwrap();
    let mut rows = Vec::new();
    let mut plot = Vec::new();
    let products: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "Redistricting persons 2021",
            vec!["redistricting-persons-us-2021"],
            "17.14 (CKS certificate, 17849145/1041158); 17.91 often quoted",
        ),
        ("DHC persons 2023", vec!["dhc-persons-us-2023"], ""),
        ("DHC units 2023", vec!["dhc-units-us-2023"], ""),
        ("Redistricting persons 2021 + DHC persons 2023", vec!["redistricting-persons-us-2021", "dhc-persons-us-2023"], ""),
    ];
    for (name, files, reported) in products {
        let allocs: Vec<Allocation> =
            files.iter().map(|f| Allocation::from_path(&data.join(format!("allocations/{f}.toml")))).collect::<Result<_, _>>()?;
        let rho: Rational = allocs.iter().map(|a| a.total_rho()).fold(Rational::from(0), |x, y| x + y);
        let mut comp = allocs[0].composition()?;
        for a in &allocs[1..] {
            comp = comp.compose(&a.composition()?)?;
        }
        let opts = crate::account::Options { width: Some(crate::census::certificate::DEFAULT_WIDTH), ..Default::default() };
        let e = crate::account::Accountant::new(comp, opts)?.epsilon(&d10)?;
        let note = e.describe();
        let (lo, hi) = (crate::num::fmt_down(e.lo(), 20), fmt_up(e.hi(), 20));
        let bars = [zcdp::eps_bs(&rho, &d10, 128).hi.to_f64(), zcdp::eps_cks(&rho, &d10, 128).0.hi.to_f64(), e.hi().to_f64()];
        plot.push((name.to_string(), bars));
        let mut r = Record::new();
        r.push("product", name);
        r.push("neighbors", allocs[0].neighbors.as_str());
        r.push("rho", rho.to_string());
        r.push("rho_decimal", fmt_nearest(&Float::with_val(128, &rho), 12));
        r.push("eps_reported_by_bureau", reported);
        r.push("eps_zcdp_bun_steinke", fmt_up(&zcdp::eps_bs(&rho, &d10, 128).hi, 10));
        r.push("eps_zcdp_cks", fmt_up(&zcdp::eps_cks(&rho, &d10, 128).0.hi, 12));
        r.push("eps_exact_lo", lo);
        r.push("eps_exact_hi", hi);
        r.push("note", note);
        rows.push(r);
    }
    for bounded in [false, true] {
        let m = crate::mech::manifest::safetab_p_production(bounded);
        let cert = crate::mech::manifest::certify(&m, &d10, None)?;
        let c = &cert[0];
        let mut r = Record::new();
        r.push("product", if bounded { "SafeTab-P (Table 7 budgets)" } else { "SafeTab-P (Table 7 budgets), unbounded accounting" });
        r.push("neighbors", c.get("neighbors").unwrap_or(""));
        r.push("rho", c.get("zcdp_rho").unwrap_or("").trim_end_matches('0').trim_end_matches('.').to_string());
        r.push("rho_decimal", c.get("zcdp_rho").unwrap_or("").to_string());
        r.push("eps_reported_by_bureau", "");
        r.push("eps_zcdp_bun_steinke", c.get("epsilon_bureau_bs").unwrap_or("").to_string());
        r.push("eps_zcdp_cks", c.get("epsilon_zcdp_cks").unwrap_or("").to_string());
        r.push("eps_exact_lo", c.get("epsilon_exact_lo").unwrap_or("").to_string());
        r.push("eps_exact_hi", c.get("epsilon_exact_hi").unwrap_or("").to_string());
        r.push(
            "note",
            format!("src/mech manifest model (stability 9, gamma 0.1, adaptive stage as a product); {}", c.get("detail").unwrap_or("")),
        );
        let num = |k: &str| c.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
        plot.push((
            if bounded { "SafeTab-P (replace)".to_string() } else { "SafeTab-P (add-remove)".to_string() },
            [num("epsilon_bureau_bs"), num("epsilon_zcdp_cks"), num("epsilon_exact_hi")],
        ));
        rows.push(r);
    }
    Ok((render_csv(&rows), plot))
}

/// results/production-calibration.csv: how much less noise each production release needed for the same
/// guarantee — one variance factor on every query such that the exact ε(1e-10) equals the zCDP-implied ε
/// (CKS, the conversion of the Bureau's certificates, and Bun–Steinke). Certified factor brackets from the
/// smoothed Fourier inversion (all three files share one method; src/calibrate).
fn production_calibration(data: &std::path::Path) -> Result<String, String> {
    let d10 = parse_rational("1e-10").unwrap();
    let mut rows = Vec::new();
    for (name, file) in [
        ("Redistricting persons 2021", "redistricting-persons-us-2021"),
        ("DHC persons 2023", "dhc-persons-us-2023"),
        ("DHC units 2023", "dhc-units-us-2023"),
    ] {
        let alloc = Allocation::from_path(&data.join(format!("allocations/{file}.toml")))?;
        let groups = alloc.all_mechanisms();
        let rho = alloc.total_rho();
        for (conv, target) in [("zcdp-cks", zcdp::eps_cks(&rho, &d10, 256).0.mid()), ("zcdp-bs", zcdp::eps_bs(&rho, &d10, 256).mid())] {
            let t = target.to_rational().unwrap();
            let br = crate::calibrate::calibrate_uniform_smoothed(&groups, &d10, &t, 256, 1e-10)?;
            let mut r = Record::new();
            r.push("product", name);
            r.push("neighbors", alloc.neighbors.as_str());
            r.push("target", conv);
            r.push("target_epsilon", fmt_nearest(&target, 14));
            crate::cli::calibrate::push_bracket(&mut r, None, &br);
            rows.push(r);
        }
    }
    Ok(render_csv(&rows))
}

pub fn run(a: ReproduceArgs) -> Result<String, String> {
    let prec = check_prec(a.prec)?;
    let oprec = check_prec(a.overall_prec)?;
    let alloc = Allocation::from_path(&a.data.join("allocations/dhc-2022-08-25.toml"))?;
    let pb = ProgressBar::new_spinner();
    pb.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").unwrap());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    let step = |m: &str| pb.set_message(m.to_string());
    let deltas = vec![parse_rational("1e-11").unwrap(), parse_rational("1e-5").unwrap()];
    // Tables first, all in memory.
    step("per-level epsilons");
    let geo = tables::geolevel_epsilons(&alloc, &deltas, prec)?;
    step("Table 1 calibration");
    let t1 = level_rows(&alloc, &deltas[0], Conversion::ZcdpBs, &None, prec)?;
    if a.quick {
        let mut log = String::new();
        for (path, body) in
            [(a.out.join("geolevel-epsilons.csv"), render_csv(&geo)), (a.out.join("table1-calibration.csv"), render_csv(&t1))]
        {
            write_atomic(&path, body.as_bytes())?;
            log += &format!("wrote {}\n", path.display());
        }
        pb.finish_and_clear();
        return Ok(log);
    }
    step("exact accuracy of released counts");
    let acc = accuracy_table(&alloc, &t1)?;
    step("overall composition");
    let (ov, ovs) = overall_tables(&alloc, oprec)?;
    step("production certificates");
    let (prod, prod_plot) = production_certificates(&a.data)?;
    step("production calibration");
    let pcal = production_calibration(&a.data)?;
    step("verification of published numbers");
    let (vrows, vsummary, _) = crate::cli::verify::verify_rows(&a.data.join("published.csv"), &a.data, prec)?;
    let mut files: Vec<(PathBuf, String)> = vec![
        (a.out.join("geolevel-epsilons.csv"), render_csv(&geo)),
        (a.out.join("table1-calibration.csv"), render_csv(&t1)),
        (a.out.join("accuracy-counts.csv"), acc),
        (a.out.join("overall-profile.csv"), ov),
        (a.out.join("overall-summary.csv"), ovs),
        (a.out.join("production-certificates.csv"), prod),
        (a.out.join("production-calibration.csv"), pcal),
        (a.out.join("verification.csv"), render_csv(&vrows)),
    ];
    files.push((a.out.join("README.md"), results_readme(!a.no_figures) + &crate::cli::reproduce_realdata::readme_section(!a.no_figures)));
    let mut log = String::new();
    for (path, body) in &files {
        write_atomic(path, body.as_bytes())?;
        log += &format!("wrote {}\n", path.display());
    }
    if !a.no_figures {
        // what the production releases spent: zCDP-implied ε vs exact, δ = 1e-10
        let cats: Vec<String> = prod_plot
            .iter()
            .map(|(n, _)| {
                n.replace("Redistricting persons 2021", "Redistricting 2021")
                    .replace("Redistricting 2021 + DHC persons 2023", "Redistr. + DHC persons")
            })
            .collect();
        let groups: Vec<(String, plotters::style::RGBColor, Vec<f64>)> = [
            ("zCDP, Bun–Steinke", crate::report::plot::BUREAU),
            ("zCDP, Canonne–Kamath–Steinke", plotters::style::RGBColor(245, 150, 150)),
            ("exact f-DP (certified)", crate::report::plot::EXACT),
        ]
        .iter()
        .enumerate()
        .map(|(i, (n, c))| (n.to_string(), *c, prod_plot.iter().map(|(_, v)| v[i]).collect()))
        .collect();
        for f in crate::report::plot::bar_figure(
            "What the 2020 Census production releases spent: ε at δ = 1e-10",
            "ε",
            &cats,
            &groups,
            &a.out.join("production-epsilons"),
        )? {
            log += &format!("wrote {}\n", f.display());
        }
        let figs = figures::write_all(&alloc, &a.out, prec, oprec, &|m| step(m))?;
        for f in figs {
            log += &format!("wrote {}\n", f.display());
        }
    }
    if !a.no_figures {
        step("disclosure-risk figure data (Kazan-Reiter)");
        for f in crate::risk::figures::figure_data(&a.out.join("risk"))? {
            log += &format!("wrote {}\n", f.display());
        }
        for f in crate::report::csvplot::risk_figures(&a.out.join("risk"))? {
            log += &format!("wrote {}\n", f.display());
        }
        step("Figures 6, 8, 9 on the synthetic extracts");
        for f in crate::cli::reproduce_realdata::synthetic(&a.data, &a.out)? {
            log += &format!("wrote {}\n", f.display());
        }
    }
    step("TopDown post-processing accuracy (simulated, dhc-small)");
    for f in crate::topdown::pp_accuracy::write_results(&a.data, &a.out, 50, !a.no_figures)? {
        log += &format!("wrote {}\n", f.display());
    }
    pb.finish_and_clear();
    log += &format!("verify: {vsummary}\n");
    Ok(log)
}

fn results_readme(figs: bool) -> String {
    let mut s = String::from(
        "# results/\n\nRegenerated by `tightdp reproduce` (`./scripts/reproduce.sh`). Do not edit by hand.\n\
Allocation: `data/allocations/dhc-2022-08-25.toml` (census-2020-more-private-fdp.txt Tables 1 and 3), add/remove neighbours.\n\n\
## Tables\n\n| file | content | source |\n|---|---|---|\n\
| geolevel-epsilons.csv | per level, δ ∈ {1e-11, 1e-5}: σ², Bureau ε, certified exact ε, reduction % | §3.1, Figure 3 |\n\
| table1-calibration.csv | per level: reduced σ² bracket so that exact ε(1e-11) = Bureau ε | Table 1 |\n\
| accuracy-counts.csv | exact MSE/MAE of a released count, with/without max(0,·), Bureau vs reduced σ² | Figures 6, 8 |\n\
| overall-profile.csv | overall δ(ε) (80 queries): Bureau, exact (certified, both terms), uniform reductions | Figure 7, §3.3 |\n\
| overall-summary.csv | overall ε at δ = 1e-10, both terms, exact uniform variance reduction vs the paper's 8.59% | §3.3, App. A.6 |\n\
| production-certificates.csv | exact ε at δ = 1e-10 of the 2020 Census production releases next to the zCDP figures | ../shared/census-production, SafeTab-P Table 7 |\n\
| production-epsilons | bar chart of production-certificates.csv: Bun–Steinke, CKS and exact ε per release | ../shared/census-production |\n\
| production-calibration.csv | one variance factor per production release keeping its zCDP-implied ε (CKS, Bun–Steinke) exactly: the noise it did not need | ../shared/census-production |\n\
| verification.csv | every published number of the five papers, recomputed, with a verdict | data/published.csv |\n\
| topdown-postprocess-accuracy.csv | TopDown final counts (L2 + rounding) vs noisy measurements and max(0,·): MAE/MSE per geolevel, cells and totals, Bureau / Table 1 / uniform −12.28% noise, 50 noise draws on data/topdown/dhc-small.csv | geographic-spines-topdown.txt; Abowd et al. 2022 |
| risk/*.csv, *.png, *.svg | Kazan–Reiter disclosure-risk figures and data (Figures 1–7, 12; Figure 4 as data) | kazan-reiter-disclosure-risk.txt |\n",
    );
    if figs {
        s.push_str(
            "\n## Figures (PNG, SVG, and the plotted data as CSV)\n\n| stem | figure | source |\n|---|---|---|\n\
| fig02-eps-delta-levels | (ε, δ) curves per level, exact vs Bureau | Figure 2 |\n\
| fig03-eps-bars | ε at δ = 1e-11 and 1e-5 per level | Figure 3 |\n\
| fig04-tradeoff-levels | trade-off functions per level: Bureau, exact, exact with Table 1 noise | Figure 4 |\n\
| fig05-reduced-noise-levels | (ε, δ) curves with Table 1 noise vs the Bureau's (cross at δ = 1e-11) | Figure 5 |\n\
| fig06-accuracy-reduction | exact MSE/MAE reductions per level with Table 1 noise, without and with max(0, ·) (true count 1) | Figure 6 (the paper's are Monte Carlo on PA 2010 counts) |\n\
| fig07-overall-eps-delta | overall (ε, δ) curves: Bureau, exact, 8.59% and exact uniform reductions | Figure 7 |\n\
| fig08-block-mse | exact block-level MSE of max(0, y + X) against the true count y, Bureau vs Table 1 noise | Figure 8 (the paper's are by race group on PA 2010 blocks) |\n\
| fig10-local-clt | pmf of Sₙ vs the local-CLT approximation, and the residual, σ² = 5, 25 | Figure 10 |\n\
| fig11-acs-1890 | (ε, δ) curves of a 1890-fold composition (σ² = 100 each; the paper states no σ²) | Figure 11 |\n\
| fig12-overall-tradeoff | overall trade-off functions | Figure 12 |\n\
| fig13-overall-tradeoff-zoom | overall trade-off functions near α = 0 (log α) | Figure 13 |\n\
| fig14-improvement-eps | ε_Bureau − ε_exact against δ per level | Figure 14 |\n\
| fig15-improvement-percent | improvement in percent against δ per level | Figure 15 |\n\
| topdown-postprocess-mae | MAE per detailed cell of TopDown's final counts per geolevel: Bureau, Table 1 and uniform noise, next to the noisy measurement | issue 18 |\n",
        );
    }
    s
}
