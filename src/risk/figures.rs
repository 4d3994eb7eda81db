//! CSV data for KR Figures 1–12 (plots are drawn by the figure pipeline, `plots::csvplot`).
//! All sweeps use the exact Table 2 parameters ρ₁ = 1666368/16793603, ρ₂ = 103534592/420045025
//! (the paper's captions say 0.099 / 0.247), p = 1/2 and d = 27 where the paper does.

use crate::error::Fallible;
use crate::num::Interval;
use crate::record::Record;
use crate::record::{render_csv, write_atomic};
use crate::risk::decisions::{decision_map, Decisions, Procedure};
use crate::risk::hier::{Prior2, Sampler, TwoLevel};
use crate::risk::paper::{self, priors};
use crate::risk::postproc::postproc_risk;
use crate::risk::single::{marginal_multi_f64_prefixes, Decision, MarginalTerms, SingleLevel};
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
        v.push(crate::num::parse_rational(&s).expect("invariant: a decimal constant"));
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
pub fn figure1() -> Fallible<Vec<Record>> {
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

/// Figures 2 and 3 from one sweep over ρ₁ (log grid 1e-3..1e2 plus the exact Table 2 block ρ₁):
/// Figure 2 = marginal posterior (3.3) and R (3.4); Figure 3 = the decision threshold x̃₁* and
/// P(correct) (3.6).
pub fn figure2_and_3() -> Fallible<(Vec<Record>, Vec<Record>)> {
    let mut f2 = Vec::new();
    let mut f3 = Vec::new();
    let mut grid = log_grid(-3, 2, 40);
    grid.push(paper::rho_block());
    grid.sort();
    for rho in grid {
        let terms = MarginalTerms::new(0, &rho, PREC);
        let models =
            priors().into_iter().map(|(name, p)| Ok((name, SingleLevel::new(p, 0, rho.clone())?))).collect::<Fallible<Vec<_>>>()?;
        let pc = SingleLevel::prob_correct_many(&models.iter().map(|(_, s)| s).collect::<Vec<_>>(), PREC);
        for ((name, s), pc) in models.iter().zip(&pc) {
            let m = s.marginal_with(&terms);
            let risk = m.div(&Interval::from_rational(&s.p, PREC));
            let mut r = Record::new();
            r.push("rho1", format!("{:.6e}", rho.to_f64())).push("prior", *name);
            r.push("marginal_posterior", f(&m)).push("risk", f(&risk));
            f2.push(r);
            let mut r = Record::new();
            r.push("rho1", format!("{:.6e}", rho.to_f64())).push("prior", *name);
            r.push("threshold_xstar", s.threshold().to_string()).push("p_correct", f(pc));
            f3.push(r);
        }
    }
    Ok((f2, f3))
}

/// The priors of X₂ | X₁ drawn in Figures 4, 10 and 11 (S4): (figure, panel, prior).
pub fn decision_priors() -> Vec<(&'static str, &'static str, Prior2)> {
    vec![
        ("4", "", Prior2::Unbounded),
        ("10", "top", Prior2::Unbounded),
        ("10", "bottom", Prior2::UpTo(10)),
        ("11", "top", Prior2::Point(1)),
        ("11", "bottom", Prior2::Point(25)),
    ]
}

fn decision_model(prior: Prior2) -> Fallible<TwoLevel> {
    TwoLevel::new(Rational::from((1, 2)), 0, paper::rho_block(), paper::rho_obg(), 27, prior)
}

/// Figure 4 (and S4 Figures 10/11 via the prior): decision tiles over the paper's window
/// x₁* ∈ {−1, 0, 1, 2}, −3 ≤ x₂* ≤ 5, −30 ≤ y₁* ≤ 30, under the exact posterior of the model as
/// written and under the paper's Gibbs sampler (its exact stationary law; it reproduces the paper's
/// tiles). No Monte Carlo: both are computed, so the map is deterministic.
pub fn figure4(prior: Prior2) -> Fallible<Vec<Record>> {
    let t = decision_model(prior)?;
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

/// Figures 10 and 11 (S4): two decision maps each, rows of [`figure4`] with the columns `panel`
/// (top/bottom) and `prior_x2` in front. `fig4` is Figure 4's map, reused as Figure 10's top panel.
pub fn figure10_11(fig4: &[Record]) -> Fallible<(Vec<Record>, Vec<Record>)> {
    let tag = |rows: Vec<Record>, panel: &str, prior: &Prior2| -> Vec<Record> {
        rows.into_iter()
            .map(|r| {
                let mut o = Record::new();
                o.push("panel", panel).push("prior_x2", prior.describe());
                for (k, v) in &r.fields {
                    o.push(k, v.clone());
                }
                o
            })
            .collect()
    };
    let mut f10 = Vec::new();
    let mut f11 = Vec::new();
    for (fig, panel, prior) in decision_priors() {
        let rows = match (fig, &prior) {
            ("4", _) => continue,
            ("10", Prior2::Unbounded) => fig4.to_vec(),
            _ => figure4(prior.clone())?,
        };
        let tagged = tag(rows, panel, &prior);
        if fig == "10" {
            f10.extend(tagged);
        } else {
            f11.extend(tagged);
        }
    }
    Ok((f10, f11))
}

/// The probabilities of a correct decision behind Figures 4, 10 and 11 (§4.3, S4): per prior, truth
/// and procedure, P(correct) with and without the hierarchy, and the mass where the hierarchy turns a
/// wrong decision right (gain) or a right one wrong (loss), summed exactly over all the data
/// (`decisions::prob_correct`, no window). The S4 counterfactual (truth x₁ = x₂ = 0) is included
/// for the point mass at 25.
pub fn decision_summary() -> Fallible<Vec<Record>> {
    let mut rows = Vec::new();
    for (fig, panel, prior) in decision_priors() {
        if fig == "10" && panel == "top" {
            continue; // = Figure 4
        }
        let t = decision_model(prior.clone())?;
        let mut decisions = Decisions::new(&t, &PROCEDURES);
        let mut truths = vec![(1, 1)];
        if prior == Prior2::Point(25) {
            truths.push((0, 0));
        }
        for (x1, x2) in truths {
            for proc in PROCEDURES {
                let c = decisions.prob_correct(proc, x1, x2, None)?;
                let mut r = Record::new();
                let figure = if fig == "4" { "4 (= 10 top)".to_string() } else { format!("{fig} {panel}") };
                r.push("figure", figure).push("prior_x2", prior.describe());
                r.push("truth", format!("x1 = {x1}, x2 = {x2}")).push("procedure", proc.as_str());
                r.push("p_correct", g(c.p_correct)).push("p_correct_no_hier", g(c.p_correct_no_hier));
                r.push("gain", g(c.gain)).push("loss", g(c.loss)).push("net", g(c.gain - c.loss));
                r.push("tie_mass", g(c.tie_mass)).push("data_mass", g(c.mass));
                rows.push(r);
            }
        }
    }
    Ok(rows)
}

/// The procedures compared in Figures 5, 6 and the P(correct) summary.
const PROCEDURES: [Procedure; 2] = [Procedure::Exact, Procedure::Gibbs(Sampler::Paper)];

/// Figure 5: P(correct) against the true x₂ (x₁ = 1), both procedures, and without hierarchy.
pub fn figure5() -> Fallible<Vec<Record>> {
    let t = paper::table6_model(Prior2::Unbounded);
    let mut decisions = Decisions::new(&t, &PROCEDURES);
    let mut rows = Vec::new();
    for x2 in 1..=30 {
        let a = decisions.prob_correct(Procedure::Exact, 1, x2, None)?;
        let b = decisions.prob_correct(Procedure::Gibbs(Sampler::Paper), 1, x2, None)?;
        let mut r = Record::new();
        r.push("x2", x2.to_string());
        r.push("p_correct_exact", g(a.p_correct)).push("p_correct_paper_sampler", g(b.p_correct));
        r.push("p_correct_no_hier", g(a.p_correct_no_hier)).push("mass", g(a.mass));
        rows.push(r);
    }
    Ok(rows)
}

/// Figure 6: P(correct) against ρ₂ for x₂ ∈ {1, 10, 100}.
pub fn figure6() -> Fallible<Vec<Record>> {
    let mut rows = Vec::new();
    let mut grid = log_grid(-2, 2, 4);
    grid.push(paper::rho_obg());
    grid.sort();
    for rho2 in grid {
        let t = TwoLevel::new(Rational::from((1, 2)), 0, paper::rho_block(), rho2.clone(), 27, Prior2::Unbounded)?;
        let mut decisions = Decisions::new(&t, &PROCEDURES);
        for x2 in [1, 10, 100] {
            let a = decisions.prob_correct(Procedure::Exact, 1, x2, None)?;
            let b = decisions.prob_correct(Procedure::Gibbs(Sampler::Paper), 1, x2, None)?;
            let mut r = Record::new();
            r.push("rho2", format!("{:.6e}", rho2.to_f64())).push("x2", x2.to_string());
            r.push("p_correct_exact", g(a.p_correct)).push("p_correct_paper_sampler", g(b.p_correct));
            r.push("p_correct_no_hier", g(a.p_correct_no_hier));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figure 7 (§S1.3, eq. S1.1): marginal posterior and risk against the number ℓ of levels where the target is
/// known unique; levels in the order Block, OBG, Tract, County, State, US (Table 2 ρ).
pub fn figure7() -> Fallible<Vec<Record>> {
    let order = [5usize, 4, 3, 2, 1, 0];
    let rhos: Vec<f64> = order.iter().map(|i| paper::rho_gvhr(*i).to_f64()).collect();
    let ps: Vec<(&str, f64)> = priors().into_iter().map(|(name, p)| (name, p.to_f64())).collect();
    let bounds = marginal_multi_f64_prefixes(&ps.iter().map(|(_, p)| *p).collect::<Vec<_>>(), &rhos);
    let mut rows = Vec::new();
    for ((name, pf), b) in ps.iter().zip(&bounds) {
        for l in 1..=6 {
            let (lo, hi) = b[l - 1];
            let mut r = Record::new();
            r.push("prior", *name).push("levels", l.to_string()).push("level_added", paper::TABLE2[order[l - 1]].0);
            r.push("marginal_posterior_lo", g(lo)).push("marginal_posterior_hi", g(hi));
            r.push("risk_lo", g(lo / pf)).push("risk_hi", g(hi / pf));
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Figure 12 (S6): marginal risk with and without post-processing; left: against x̃₂ at ρ₁; right:
/// against ρ₁ for x̃₂ ∈ {1, 10, 100}. p = 1/2, x₂ = 1 known.
pub fn figure12() -> Fallible<(Vec<Record>, Vec<Record>)> {
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

/// Figure 8 (S2): the variance σ² of KR's DG(0, s) (pmf ∝ exp(−x²/(2s)), i.e. N_Z(0, s); ρ = 1/(2s))
/// against the scale s, certified (`noise::DiscreteGaussian::variance_direct`, 128 bits), with s − σ²
/// from the theta-series identity (`variance_deficit`: no cancellation, exact down to 1e−800).
/// Grid: s = 10^(k/20), k = −30 … 40 (s from 0.0316 to 100; ρ from 15.8 to 0.005), exact decimals.
pub fn figure8() -> Fallible<Vec<Record>> {
    let prec = 128;
    let mut rows = Vec::new();
    for k in -30..=40 {
        let x = 10f64.powf(k as f64 / 20.0);
        let s = crate::num::parse_rational(&format!("{x:.4e}"))?;
        let dg = crate::noise::DiscreteGaussian::new(s.clone())?;
        let var = dg.variance_direct(prec);
        let def = dg.variance_deficit(prec);
        let mut r = Record::new();
        r.push("s", format!("{:.4e}", s.to_f64())).push("rho", format!("{:.6e}", (Rational::from(1) / (Rational::from(2) * &s)).to_f64()));
        r.push("sigma2", f(&var));
        r.push("s_minus_sigma2", format!("{:.6e}", def.mid()));
        rows.push(r);
    }
    Ok(rows)
}

/// The pmfs of Figure 9 (S2, Proposition 1) for one (ρ, n): the exact pmf of Σᵢ₌₁ⁿ Zᵢ with Zᵢ i.i.d.
/// KR DG(0, s = 1/(2ρ)) (n-fold convolution, [`crate::risk::dg_sum_pmf_f64`]) and the approximation
/// DG(0, n/(2ρ)) (S2.3), i.e. pmf ∝ exp(−ρx²/n), on |x| ≤ ⌈5.5·√(n/(2ρ))⌉. Returns (x, sum, approx).
pub fn dg_sum_and_approx(rho: f64, n: u32) -> Vec<(i64, f64, f64)> {
    let (off, sum) = crate::risk::dg_sum_pmf_f64(rho, n);
    let (k, approx) = crate::risk::dg_pmf_f64(rho / n as f64);
    let w = (5.5 * (n as f64 / (2.0 * rho)).sqrt()).ceil() as i64;
    let at = |v: &[f64], o: i64, x: i64| -> f64 {
        let i = x - o;
        if i < 0 || i as usize >= v.len() {
            0.0
        } else {
            v[i as usize]
        }
    };
    (-w..=w).map(|x| (x, at(&sum, off, x), at(&approx, -k, x))).collect()
}

/// Figure 9 (S2): the pmf of the sum of n i.i.d. DG(0, 1/(2ρ)) against DG(0, n/(2ρ)), for
/// ρ ∈ {0.099, 1} (rows; 0.099 is the caption's rounded ρ₁) and n ∈ {27, 5} (columns).
pub fn figure9() -> Vec<Record> {
    let mut rows = Vec::new();
    for (rho_s, rho) in [("0.099", 0.099), ("1", 1.0)] {
        for n in [27u32, 5] {
            for (x, a, b) in dg_sum_and_approx(rho, n) {
                let mut r = Record::new();
                r.push("rho", rho_s).push("n", n.to_string()).push("x", x.to_string());
                r.push("pmf_sum", g(a)).push("pmf_dg_approx", g(b)).push("difference", g(b - a));
                rows.push(r);
            }
        }
    }
    rows
}

/// The CSV files [`figure_data`] writes, in its order.
pub const CSV_NAMES: [&str; 14] = [
    "kr-figure1.csv",
    "kr-figure2.csv",
    "kr-figure3.csv",
    "kr-figure4.csv",
    "kr-figure5.csv",
    "kr-figure6.csv",
    "kr-figure7.csv",
    "kr-figure8.csv",
    "kr-figure9.csv",
    "kr-figure10.csv",
    "kr-figure11.csv",
    "kr-decisions-pcorrect.csv",
    "kr-figure12-left.csv",
    "kr-figure12-right.csv",
];

/// Write the CSV data of Figures 1–12 into `out_dir` (computed first, then written atomically),
/// and `kr-decisions-pcorrect.csv` (the P(correct) numbers behind Figures 4, 10, 11). Returns the
/// paths written.
pub fn figure_data(out_dir: &Path) -> Fallible<Vec<PathBuf>> {
    let (f2, f3) = figure2_and_3()?;
    let (l12, r12) = figure12()?;
    let f4 = figure4(Prior2::Unbounded)?;
    let (f10, f11) = figure10_11(&f4)?;
    let tables: [Vec<Record>; 14] =
        [figure1()?, f2, f3, f4, figure5()?, figure6()?, figure7()?, figure8()?, figure9(), f10, f11, decision_summary()?, l12, r12];
    let mut out = Vec::new();
    for (name, rows) in CSV_NAMES.into_iter().zip(tables) {
        let path = out_dir.join(name);
        write_atomic(&path, render_csv(&rows).as_bytes())?;
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // reference values keep the digits mpmath printed
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    /// Reference values: mpmath at 150 digits, direct sums over |x| ≤ 4000 (scripts/reference/kr_figures.{py,txt}:
    /// var(s) = Σx²e^{−x²/(2s)} / Σe^{−x²/(2s)}).
    #[test]
    fn kr_figure8_variance_matches_mpmath() {
        let rows = figure8().unwrap();
        let at = |s: &str| rows.iter().find(|r| r.get("s") == Some(s)).unwrap_or_else(|| panic!("no s = {s}"));
        for (s, var, def) in [
            ("1.0000e-1", 0.01329672517362415754233279, 0.08670327482637584245766721),
            ("1.0000e0", 0.999999788767728083111723, 2.112322719168882769514259e-7),
            ("1.0000e1", 10.0, 1.48284286954927922568771e-82),
        ] {
            let r = at(s);
            let v: f64 = r.get("sigma2").unwrap().parse().unwrap();
            let d: f64 = r.get("s_minus_sigma2").unwrap().parse().unwrap();
            assert!(rel(v, var) < 1e-11, "s = {s}: sigma2 {v} vs {var}");
            assert!(rel(d, def) < 1e-5, "s = {s}: s - sigma2 {d} vs {def}");
        }
        // the S2 claims: |σ² − s| < 0.002 for s > 0.5 and < 1e-6 for s > 1 (s − σ² decreasing there)
        for r in &rows {
            let s: f64 = r.get("s").unwrap().parse().unwrap();
            let txt = r.get("s_minus_sigma2").unwrap();
            let d: f64 = txt.parse().unwrap();
            // below s (values beyond f64's range print in MPFR's exponent range, e.g. 4.3e-852)
            assert!(!txt.starts_with('-') && !txt.starts_with("0.000000"), "the variance is below s (s = {s}): {txt}");
            if s > 0.5 {
                assert!(d < 0.002, "s = {s}: {d}");
            }
            if s > 1.0 {
                assert!(d < 1e-6, "s = {s}: {d}");
            }
        }
    }

    /// Reference values: mpmath 1.3 at 60 digits, the n-fold convolution of the pmf ∝ e^{−ρx²} on
    /// |x| ≤ √(60/ρ) + 2, and the pmf ∝ e^{−ρx²/n} (scripts/reference/kr_figures.{py,txt}).
    #[test]
    fn kr_figure9_pmfs_match_mpmath() {
        for (rho, n, k, sum, approx) in [
            (1.0, 5, 0, 0.25315803586194706774, 0.25231325220201600482),
            (1.0, 5, 3, 0.041561816266866503374, 0.041707100072566017078),
            (0.099, 27, 0, 0.034163375848129613604, 0.034163375848129613604),
            (0.099, 27, 20, 0.0078812578909773602798, 0.0078812578909773602798),
        ] {
            let v = dg_sum_and_approx(rho, n);
            let (_, a, b) = v.iter().find(|t| t.0 == k).copied().unwrap();
            assert!(rel(a, sum) < 1e-12, "rho {rho} n {n} k {k}: sum {a} vs {sum}");
            assert!(rel(b, approx) < 1e-12, "rho {rho} n {n} k {k}: approx {b} vs {approx}");
            // symmetric, and the window holds all but a negligible mass
            let (_, am, _) = v.iter().find(|t| t.0 == -k).copied().unwrap();
            assert_eq!(a, am);
            let tot: f64 = v.iter().map(|t| t.1).sum();
            assert!(tot <= 1.0 + 1e-12 && tot > 1.0 - 1e-6, "{tot}");
        }
        assert_eq!(
            figure9().len(),
            [(0.099, 27u32), (0.099, 5), (1.0, 27), (1.0, 5)].iter().map(|(r, n)| dg_sum_and_approx(*r, *n).len()).sum::<usize>()
        );
    }

    /// KR S4: with all prior mass on X₂ = 1 "the adversary's decision about x₁ does not depend on x₂*".
    #[test]
    fn kr_figure11_point_prior_decision_ignores_x2star() {
        let rows = figure4(Prior2::Point(1)).unwrap();
        let mut seen: std::collections::BTreeMap<(String, String), String> = Default::default();
        for r in &rows {
            let key = (r.get("x1star").unwrap().to_string(), r.get("y1star").unwrap().to_string());
            let d = r.get("decision_exact").unwrap().to_string();
            assert_eq!(r.get("decision_paper_sampler").unwrap(), d, "both procedures agree for a point prior");
            let prev = seen.entry(key.clone()).or_insert_with(|| d.clone());
            assert_eq!(*prev, d, "decision at {key:?} depends on x2*");
        }
        assert_eq!(rows.len(), 4 * 9 * 61);
    }
}
