//! CSV data for KR Figures 1, 2, 3, 4, 5, 6, 7 and 12 (plots are drawn by the figure pipeline).
//! All sweeps use the exact Table 2 parameters ρ₁ = 1666368/16793603, ρ₂ = 103534592/420045025
//! (the paper's captions say 0.099 / 0.247), p = 1/2 and d = 27 where the paper does.

use crate::num::Interval;
use crate::record::Record;
use crate::record::{render_csv, write_atomic};
use crate::risk::decisions::{decision_map, prob_correct, Procedure};
use crate::risk::hier::{Prior2, Sampler, TwoLevel};
use crate::risk::paper::{self, priors};
use crate::risk::postproc::postproc_risk;
use crate::risk::single::{marginal_multi_f64, Decision, SingleLevel};
use rug::Rational;
use std::path::{Path, PathBuf};

const PREC: u32 = 64;

fn f(x: &Interval) -> String {
    format!("{:.12e}", x.to_f64())
}

fn g(x: f64) -> String {
    format!("{x:.12e}")
}

/// Log-spaced grid of exact decimals a·10^e (4 significant digits), from 10^lo to 10^hi, n per decade.
fn log_grid(lo: i32, hi: i32, per_decade: usize) -> Vec<Rational> {
    let mut v = Vec::new();
    let n = ((hi - lo) as usize) * per_decade;
    for i in 0..=n {
        let x = 10f64.powf(lo as f64 + i as f64 / per_decade as f64);
        let s = format!("{x:.4e}");
        v.push(crate::num::parse_rational(&s).unwrap());
    }
    v
}

fn dec_name(d: Decision) -> &'static str {
    match d {
        Decision::Target => "1",
        Decision::Other => "0",
        Decision::Tie => "tie",
    }
}

/// Figure 1: posterior (3.1) and R′ (3.2) against x₁* for the five priors.
pub fn figure1() -> Result<Vec<Record>, String> {
    let mut rows = Vec::new();
    for (name, p) in priors() {
        let s = SingleLevel::new(p, 0, paper::rho_block())?;
        for x in -10..=15 {
            let mut r = Record::new();
            r.push("prior", name).push("xstar", x.to_string());
            r.push("posterior", f(&s.posterior(x, PREC))).push("risk_prime", f(&s.risk_prime(x, PREC)));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figures 2 and 3: marginal posterior (3.3), R (3.4), threshold and P(correct) (3.6) against ρ₁.
pub fn figure2_3() -> Result<Vec<Record>, String> {
    let mut rows = Vec::new();
    let mut grid = log_grid(-3, 2, 40);
    grid.push(paper::rho_block());
    grid.sort();
    for rho in grid {
        for (name, p) in priors() {
            let s = SingleLevel::new(p, 0, rho.clone())?;
            let mut r = Record::new();
            r.push("rho1", format!("{:.6e}", rho.to_f64())).push("prior", name);
            let m = s.marginal(PREC);
            let risk = m.div(&Interval::from_rational(&s.p, PREC));
            r.push("marginal_posterior", f(&m)).push("risk", f(&risk));
            r.push("threshold_xstar", s.threshold().to_string()).push("p_correct", f(&s.prob_correct(PREC)));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figure 4 (and S4 Figures 10/11 via the prior): decision tiles, exact posterior and paper sampler.
pub fn figure4(prior: Prior2) -> Result<Vec<Record>, String> {
    let t = TwoLevel::new(Rational::from((1, 2)), 0, paper::rho_block(), paper::rho_obg(), 27, prior)?;
    let ex = decision_map(&t, Procedure::Exact, &[-1, 0, 1, 2], (-3, 5), (-30, 30))?;
    let pa = decision_map(&t, Procedure::Gibbs(Sampler::Paper), &[-1, 0, 1, 2], (-3, 5), (-30, 30))?;
    Ok(ex
        .iter()
        .zip(&pa)
        .map(|(a, b)| {
            let mut r = Record::new();
            r.push("x1star", a.x1s.to_string()).push("x2star", a.x2s.to_string()).push("y1star", a.y1s.to_string());
            r.push("decision_no_hier", dec_name(a.decision_no_hier));
            r.push("posterior_exact", g(a.posterior)).push("decision_exact", dec_name(a.decision));
            r.push("posterior_paper_sampler", g(b.posterior)).push("decision_paper_sampler", dec_name(b.decision));
            r
        })
        .collect())
}

/// Figure 5: P(correct) against the true x₂ (x₁ = 1), both procedures, and without hierarchy.
pub fn figure5() -> Result<Vec<Record>, String> {
    let t = paper::table6_model(Prior2::Unbounded);
    let mut rows = Vec::new();
    for x2 in 1..=30 {
        let a = prob_correct(&t, Procedure::Exact, 1, x2, None)?;
        let b = prob_correct(&t, Procedure::Gibbs(Sampler::Paper), 1, x2, None)?;
        let mut r = Record::new();
        r.push("x2", x2.to_string());
        r.push("p_correct_exact", g(a.p_correct)).push("p_correct_paper_sampler", g(b.p_correct));
        r.push("p_correct_no_hier", g(a.p_correct_no_hier)).push("mass", g(a.mass));
        rows.push(r);
    }
    Ok(rows)
}

/// Figure 6: P(correct) against ρ₂ for x₂ ∈ {1, 10, 100}.
pub fn figure6() -> Result<Vec<Record>, String> {
    let mut rows = Vec::new();
    let mut grid = log_grid(-2, 2, 4);
    grid.push(paper::rho_obg());
    grid.sort();
    for rho2 in grid {
        let t = TwoLevel::new(Rational::from((1, 2)), 0, paper::rho_block(), rho2.clone(), 27, Prior2::Unbounded)?;
        for x2 in [1, 10, 100] {
            let a = prob_correct(&t, Procedure::Exact, 1, x2, None)?;
            let b = prob_correct(&t, Procedure::Gibbs(Sampler::Paper), 1, x2, None)?;
            let mut r = Record::new();
            r.push("rho2", format!("{:.6e}", rho2.to_f64())).push("x2", x2.to_string());
            r.push("p_correct_exact", g(a.p_correct)).push("p_correct_paper_sampler", g(b.p_correct));
            r.push("p_correct_no_hier", g(a.p_correct_no_hier));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figure 7 (S1.1): marginal posterior and risk against the number ℓ of levels where the target is
/// known unique; levels in the order Block, OBG, Tract, County, State, US (Table 2 ρ).
pub fn figure7() -> Result<Vec<Record>, String> {
    let order = [5usize, 4, 3, 2, 1, 0];
    let rhos: Vec<f64> = order.iter().map(|i| paper::rho_gvhr(*i).to_f64()).collect();
    let mut rows = Vec::new();
    for (name, p) in priors() {
        let pf = p.to_f64();
        for l in 1..=6 {
            let (lo, hi) = marginal_multi_f64(pf, &rhos[..l]);
            let mut r = Record::new();
            r.push("prior", name).push("levels", l.to_string()).push("level_added", paper::TABLE2[order[l - 1]].0);
            r.push("marginal_posterior_lo", g(lo)).push("marginal_posterior_hi", g(hi));
            r.push("risk_lo", g(lo / pf)).push("risk_hi", g(hi / pf));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figure 12 (S6): marginal risk with and without post-processing; left: against x̃₂ at ρ₁; right:
/// against ρ₁ for x̃₂ ∈ {1, 10, 100}. p = 1/2, x₂ = 1 known.
pub fn figure12() -> Result<(Vec<Record>, Vec<Record>), String> {
    let r1 = paper::rho_block().to_f64();
    let mut left = Vec::new();
    for x2t in 0..=100 {
        let r = postproc_risk(0.5, r1, 27, 1, x2t)?;
        let mut rec = Record::new();
        rec.push("x2tilde", x2t.to_string()).push("risk_postprocessed", g(r.risk_pp()));
        rec.push("risk_raw_x1star_y1star", g(r.risk_raw())).push("risk_x1star_only", g(r.risk_single()));
        left.push(rec);
    }
    let mut right = Vec::new();
    let mut grid = log_grid(-2, 1, 10);
    grid.push(paper::rho_block());
    grid.sort();
    for rho in grid {
        for x2t in [1, 10, 100] {
            let r = postproc_risk(0.5, rho.to_f64(), 27, 1, x2t)?;
            let mut rec = Record::new();
            rec.push("rho1", format!("{:.6e}", rho.to_f64())).push("x2tilde", x2t.to_string());
            rec.push("risk_postprocessed", g(r.risk_pp())).push("risk_raw_x1star_y1star", g(r.risk_raw()));
            rec.push("risk_x1star_only", g(r.risk_single()));
            right.push(rec);
        }
    }
    Ok((left, right))
}

/// Write the CSV data of Figures 1, 2, 3, 4, 5, 6, 7, 12 into `out_dir` (computed first, then written
/// atomically). Returns the paths written.
pub fn figure_data(out_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let f23 = figure2_3()?;
    let (l12, r12) = figure12()?;
    let files: Vec<(&str, Vec<Record>)> = vec![
        ("kr-figure1.csv", figure1()?),
        ("kr-figure2-3.csv", f23),
        ("kr-figure4.csv", figure4(Prior2::Unbounded)?),
        ("kr-figure5.csv", figure5()?),
        ("kr-figure6.csv", figure6()?),
        ("kr-figure7.csv", figure7()?),
        ("kr-figure12-left.csv", l12),
        ("kr-figure12-right.csv", r12),
    ];
    let mut out = Vec::new();
    for (name, rows) in files {
        let path = out_dir.join(name);
        write_atomic(&path, render_csv(&rows).as_bytes())?;
        out.push(path);
    }
    Ok(out)
}
