//! The tables `reproduce` writes about the whole allocation and the production releases: overall
//! privacy tables, the accuracy table, production certificates and calibrations (results/*.csv).

use crate::budget::zcdp;
use crate::census::Allocation;
use crate::err;
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::parse_rational;
use crate::record::{render_csv, row, Record};
use rug::{Float, Rational};
use serde::Serialize;

/// A row of results/overall-profile.csv: δ(ε) of the whole allocation, the Bureau's and the exact one.
#[derive(Serialize)]
struct ProfileRow {
    epsilon: String,
    delta_bureau: String,
    delta_exact_lo: String,
    delta_exact_hi: String,
    first_term: String,
    second_term: String,
    #[serde(rename = "delta_exact_paper_reduced_8.59pct")]
    delta_paper: String,
    #[serde(rename = "delta_exact_uniform_reduced")]
    delta_uniform: String,
}

/// A row of results/overall-summary.csv.
#[derive(Serialize)]
struct SummaryRow {
    quantity: String,
    value: String,
    note: String,
}

/// A row of the accuracy table: one level's errors under the Bureau's and the reduced variances.
#[derive(Serialize)]
struct AccuracyRow {
    level: String,
    true_count: String,
    sigma2_bureau: String,
    sigma2_reduced: String,
    mse_bureau: String,
    mse_reduced: String,
    mse_change_percent: String,
    mae_bureau: String,
    mae_reduced: String,
    mae_change_percent: String,
    mse_nonneg_bureau: String,
    mse_nonneg_reduced: String,
    mse_nonneg_change_percent: String,
    mae_nonneg_bureau: String,
    mae_nonneg_reduced: String,
    mae_nonneg_change_percent: String,
}

/// A row of results/production-certificates.csv: one product at δ = 1e-10.
#[derive(Serialize)]
struct CertificateRow {
    product: String,
    neighbors: String,
    rho: String,
    rho_decimal: String,
    eps_reported_by_bureau: String,
    eps_zcdp_bun_steinke: String,
    eps_zcdp_cks: String,
    eps_exact_lo: String,
    eps_exact_hi: String,
    note: String,
}

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).expect("invariant: a finite value")
}
/// results/overall-profile.csv: the overall (ε, δ) curve, exact (certified, both terms) vs Bureau and
/// under the two uniform reductions; plus results/overall-summary.csv.
pub fn overall_tables(alloc: &Allocation, od: &crate::app::figure_data::OverallData, prec: u32) -> Fallible<(String, String)> {
    let rho = alloc.total_rho();
    let mut rows = Vec::new();
    // the curve from the accountant's overall profile (one lattice, every value certified, both terms)
    let eps: Vec<f64> = (0..=120).map(|i| 30.0 * i as f64 / 120.0).collect();
    let ers: Vec<Rational> = eps.iter().map(|&e| rat(e)).collect();
    let (same, paper, exact) = (od.same.delta_curve(&ers)?, od.paper.delta_curve(&ers)?, od.exact.delta_curve(&ers)?);
    let term = |t: &Option<crate::account::Certified>| {
        t.as_ref().map(|c| c.mid()).ok_or_else(|| err!(Internal, "a lattice profile without its terms"))
    };
    for (i, (e, er)) in eps.iter().zip(&ers).enumerate() {
        let d = &same[i];
        rows.push(row(&ProfileRow {
            epsilon: format!("{e}"),
            delta_bureau: fmt_nearest(&zcdp::delta_bs(&rho, er, prec).mid(), 20),
            delta_exact_lo: fmt_down(d.delta.lo(), 25),
            delta_exact_hi: fmt_up(d.delta.hi(), 25),
            first_term: fmt_nearest(&term(&d.first)?, 20),
            second_term: fmt_nearest(&term(&d.second)?, 20),
            delta_paper: fmt_nearest(&paper[i].delta.mid(), 20),
            delta_uniform: fmt_nearest(&exact[i].delta.mid(), 20),
        })?);
    }
    let d10 = parse_rational("1e-10").expect("invariant: a decimal constant");
    let eb = zcdp::eps_bs(&rho, &d10, prec);
    let ee = od.same.epsilon(&d10)?;
    let at = od.same.delta(&ee.lo().to_rational().expect("invariant: a finite bracket end"))?;
    let mut s = Vec::new();
    let mut push = |quantity: &str, value: String, note: &str| {
        s.push(SummaryRow { quantity: quantity.into(), value, note: note.into() });
    };
    push("rho_total", rho.to_string(), "sum of the level budgets (3.65)");
    push("eps_bureau_delta_1e-10", fmt_nearest(&eb.mid(), 25), "rho + 2 sqrt(rho log 1e10)");
    push("eps_exact_lo_delta_1e-10", fmt_down(ee.lo(), 25), "certified, both terms of (A.9)");
    push("eps_exact_hi_delta_1e-10", fmt_up(ee.hi(), 25), "");
    let red = (Float::with_val(prec, 1) - Float::with_val(prec, ee.hi()) / eb.mid()) * 100u32;
    push("eps_reduction_percent_delta_1e-10", fmt_nearest(&red, 12), "100 (1 - eps_exact/eps_bureau)");
    push("first_term_at_eps_exact", fmt_nearest(&term(&at.first)?, 20), "P[L_Q > eps]: the term the paper evaluates");
    push("second_term_at_eps_exact", fmt_nearest(&term(&at.second)?, 20), "e^eps P[L_P > eps]: the paper's 'second term', dropped there");
    push(
        "uniform_variance_factor_lo",
        fmt_down(&Float::with_val(prec, &od.exact_factor.0), 20),
        "exact both-term match of eps_bureau at delta = 1e-10",
    );
    push("uniform_variance_factor_hi", fmt_up(&Float::with_val(prec, &od.exact_factor.1), 20), "");
    let ur = (1.0 - od.exact_factor.1.to_f64()) * 100.0;
    push("uniform_variance_reduction_percent", format!("{ur:.6}"), "paper: 8.59% (first term only)");
    let s = s.iter().map(row).collect::<Fallible<Vec<Record>>>()?;
    Ok((render_csv(&rows), render_csv(&s)))
}

/// results/accuracy-counts.csv: exact MSE/MAE of a released count with and without max(0, ·),
/// per level, Bureau vs Table 1 reduced σ², for small true counts (Figures 6 and 8, exact).
pub fn accuracy_table(alloc: &Allocation, table1: &[Record]) -> Fallible<String> {
    let mut rows = Vec::new();
    for (l, t) in alloc.levels.iter().zip(table1) {
        let groups = alloc.level_mechanisms(l);
        if groups.len() != 1 {
            continue;
        }
        let s2 = &groups[0].sigma2;
        let fac = parse_rational(t.get("factor_lo").expect("invariant: a column of the table made above"))
            .expect("invariant: a column of the table made above");
        let s2r = Rational::from(s2 * &fac);
        for y in [0i64, 1, 2, 5, 10, 100] {
            let (a, b, c, d) = crate::app::figure_data::count_errors(s2, y);
            let (ar, br, cr, dr) = crate::app::figure_data::count_errors(&s2r, y);
            let pct = |new: f64, old: f64| format!("{:.4}", 100.0 * (new / old - 1.0));
            rows.push(row(&AccuracyRow {
                level: l.name.clone(),
                true_count: y.to_string(),
                sigma2_bureau: fmt_nearest(&Float::with_val(128, s2), 10),
                sigma2_reduced: fmt_nearest(&Float::with_val(128, &s2r), 10),
                mse_bureau: format!("{a:.10}"),
                mse_reduced: format!("{ar:.10}"),
                mse_change_percent: pct(ar, a),
                mae_bureau: format!("{b:.10}"),
                mae_reduced: format!("{br:.10}"),
                mae_change_percent: pct(br, b),
                mse_nonneg_bureau: format!("{c:.10}"),
                mse_nonneg_reduced: format!("{cr:.10}"),
                mse_nonneg_change_percent: pct(cr, c),
                mae_nonneg_bureau: format!("{d:.10}"),
                mae_nonneg_reduced: format!("{dr:.10}"),
                mae_nonneg_change_percent: pct(dr, d),
            })?);
        }
    }
    Ok(render_csv(&rows))
}

/// results/production-certificates.csv: what the 2020 Census really spent, per product, at δ = 1e-10.
pub fn production_certificates(data: &std::path::Path) -> Fallible<(String, Vec<(String, [f64; 3])>)> {
    let d10 = parse_rational("1e-10").expect("invariant: a decimal constant");
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
    use rayon::prelude::*;
    // the four releases are independent: certified side by side, rows in the order above
    let done: Vec<(Record, (String, [f64; 3]))> = products
        .par_iter()
        .map(|(name, files, reported)| -> Fallible<(Record, (String, [f64; 3]))> {
            let allocs: Vec<Allocation> =
                files.iter().map(|f| Allocation::from_path(&data.join(format!("allocations/{f}.toml")))).collect::<Result<_, _>>()?;
            let rho: Rational = allocs.iter().map(|a| a.total_rho()).fold(Rational::from(0), |x, y| x + y);
            let mut comp = allocs[0].composition()?;
            for a in &allocs[1..] {
                comp = comp.compose(&a.composition()?)?;
            }
            let opts = crate::account::Options { width: Some(crate::app::certificate::DEFAULT_WIDTH), ..Default::default() };
            let e = crate::account::Accountant::new(comp, opts)?.epsilon(&d10)?;
            let note = e.describe();
            let (lo, hi) = (crate::num::fmt_down(e.lo(), 20), fmt_up(e.hi(), 20));
            let bars = [zcdp::eps_bs(&rho, &d10, 128).hi().to_f64(), zcdp::eps_cks(&rho, &d10, 128).0.hi().to_f64(), e.hi().to_f64()];
            let r = row(&CertificateRow {
                product: name.to_string(),
                neighbors: allocs[0].neighbors.as_str().into(),
                rho: rho.to_string(),
                rho_decimal: fmt_nearest(&Float::with_val(128, &rho), 12),
                eps_reported_by_bureau: reported.to_string(),
                eps_zcdp_bun_steinke: fmt_up(zcdp::eps_bs(&rho, &d10, 128).hi(), 10),
                eps_zcdp_cks: fmt_up(zcdp::eps_cks(&rho, &d10, 128).0.hi(), 12),
                eps_exact_lo: lo,
                eps_exact_hi: hi,
                note,
            })?;
            Ok((r, (name.to_string(), bars)))
        })
        .collect::<Result<_, _>>()?;
    for (r, p) in done {
        rows.push(r);
        plot.push(p);
    }
    for bounded in [false, true] {
        let m = crate::tabulation::manifest::safetab_p_production(bounded);
        let cert = crate::tabulation::manifest::certify(&m, &d10, None)?;
        let c = &cert[0];
        let field = |k: &str| c.get(k).unwrap_or("").to_string();
        let r = row(&CertificateRow {
            product: if bounded { "SafeTab-P (Table 7 budgets)" } else { "SafeTab-P (Table 7 budgets), unbounded accounting" }.into(),
            neighbors: field("neighbors"),
            rho: field("zcdp_rho").trim_end_matches('0').trim_end_matches('.').to_string(),
            rho_decimal: field("zcdp_rho"),
            eps_reported_by_bureau: String::new(),
            eps_zcdp_bun_steinke: field("epsilon_bureau_bs"),
            eps_zcdp_cks: field("epsilon_zcdp_cks"),
            eps_exact_lo: field("epsilon_exact_lo"),
            eps_exact_hi: field("epsilon_exact_hi"),
            note: format!("src/tabulation manifest model (stability 9, gamma 0.1, adaptive stage as a product); {}", field("detail")),
        })?;
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
pub fn production_calibration(data: &std::path::Path) -> Fallible<String> {
    use rayon::prelude::*;
    let d10 = parse_rational("1e-10").expect("invariant: a decimal constant");
    let releases: Vec<(&str, Allocation)> = [
        ("Redistricting persons 2021", "redistricting-persons-us-2021"),
        ("DHC persons 2023", "dhc-persons-us-2023"),
        ("DHC units 2023", "dhc-units-us-2023"),
    ]
    .into_iter()
    .map(|(name, file)| Ok((name, Allocation::from_path(&data.join(format!("allocations/{file}.toml")))?)))
    .collect::<Fallible<_>>()?;
    let mut jobs = Vec::new();
    for (name, alloc) in &releases {
        let rho = alloc.total_rho();
        for (conv, target) in [("zcdp-cks", zcdp::eps_cks(&rho, &d10, 256).0.mid()), ("zcdp-bs", zcdp::eps_bs(&rho, &d10, 256).mid())] {
            jobs.push((*name, alloc, conv, target));
        }
    }
    // six independent searches, side by side (rows in the order above)
    let rows: Vec<Record> = jobs
        .par_iter()
        .map(|(name, alloc, conv, target)| -> Fallible<Record> {
            let t = target.to_rational().ok_or_else(|| err!(Input, "non-finite target"))?;
            let br = crate::calibrate::calibrate_uniform_smoothed(&alloc.all_mechanisms(), &d10, &t, 256, 1e-10)?;
            let mut r = Record::new();
            r.push("product", *name);
            r.push("neighbors", alloc.neighbors.as_str());
            r.push("target", *conv);
            r.push("target_epsilon", fmt_nearest(target, 14));
            crate::app::calibration::push_bracket(&mut r, None, &br);
            Ok(r)
        })
        .collect::<Result<_, _>>()?;
    Ok(render_csv(&rows))
}
