//! The paper's inputs and printed tables ([KR22]), recomputed as records.
//!
//! Reference values: printed digits from the paper; full-precision values from the research script
//! docs/research/kr_spines_numbers.py (mpmath, 40 digits) and its output kr_spines_numbers_output.txt.

use crate::budget::zcdp;
use crate::error::Fallible;
use crate::num::format::fmt_nearest;
use crate::num::{parse_rational, Interval};
use crate::record::Record;
use crate::risk::hier::{Data, Prior2, Sampler, TwoLevel};
use crate::risk::single::SingleLevel;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

/// Global ρ of KR §2.3 / Table 2: 2.56 (the production value 293764/114921 rounded).
pub fn rho_total() -> Rational {
    Rational::from((256, 100))
}

/// KR Table 2: (level, total proportion β, GVHR proportion α, printed ρ ≈).
pub const TABLE2: [(&str, (i64, i64), (i64, i64), &str); 6] = [
    ("United States", (104, 4099), (189, 241), "0.0509"),
    ("State", (1440, 4099), (230, 4097), "0.0505"),
    ("County", (447, 4099), (754, 4097), "0.0514"),
    ("Tract", (687, 4099), (241, 2051), "0.0504"),
    ("Optimized Block Group", (1256, 4099), (1288, 4099), "0.2465"),
    ("Block", (165, 4099), (3945, 4097), "0.0992"),
];

/// GVHR ρ of a Table 2 row: 2.56·β·α, exact.
pub fn rho_gvhr(row: usize) -> Rational {
    let (_, b, a, _) = TABLE2[row];
    rho_total() * Rational::from(b) * Rational::from(a)
}

/// ρ₁ = block GVHR ρ = 1666368/16793603 ≈ 0.0992263542 — the value that reproduces Tables 4 and 5
/// (the captions' 0.099 does not; see docs/risk-findings.md).
pub fn rho_block() -> Rational {
    rho_gvhr(5)
}

/// ρ₂ = optimized-block-group GVHR ρ = 103534592/420045025 ≈ 0.2464845096.
pub fn rho_obg() -> Rational {
    rho_gvhr(4)
}

/// The five adversaries of §4.2.
pub fn priors() -> Vec<(&'static str, Rational)> {
    vec![
        ("1/2", Rational::from((1, 2))),
        ("1/5", Rational::from((1, 5))),
        ("1/10", Rational::from((1, 10))),
        ("1/50", Rational::from((1, 50))),
        ("1/864", Rational::from((1, 864))),
    ]
}

/// Table 4 as printed: "mass" column, posterior (p = 1/2, 1/5, 1/10, 1/50), R′ (five priors), x* = 1..5.
pub const T4_MASS: [&str; 5] = ["0.161", "0.119", "0.073", "0.036", "0.015"];
pub const T4_POST: [[&str; 5]; 4] = [
    ["0.525", "0.574", "0.622", "0.667", "0.710"],
    ["0.216", "0.252", "0.291", "0.334", "0.379"],
    ["0.109", "0.130", "0.154", "0.182", "0.213"],
    ["0.022", "0.027", "0.032", "0.039", "0.047"],
];
pub const T4_RISK: [[&str; 5]; 5] = [
    ["1.05", "1.15", "1.24", "1.33", "1.42"],
    ["1.08", "1.26", "1.46", "1.67", "1.90"],
    ["1.09", "1.30", "1.54", "1.82", "2.13"],
    ["1.10", "1.34", "1.62", "1.96", "2.37"],
    ["1.10", "1.35", "1.64", "2.00", "2.44"],
];
/// Table 5 as printed: (marginal posterior, R) per prior.
pub const T5: [(&str, &str); 5] = [("0.524", "1.05"), ("0.225", "1.13"), ("0.117", "1.17"), ("0.024", "1.21"), ("0.0014", "1.22")];

/// Certified "x rounds (half up) to the printed decimal": both ends of the enclosure round to it.
pub fn rounds_to(x: &Interval, printed: &str) -> bool {
    let nd = printed.split_once('.').map(|(_, f)| f.len()).unwrap_or(0) as u32;
    let Ok(target) = parse_rational(printed) else { return false };
    let scale = Integer::from(10).pow(nd);
    let want = Rational::from(&target * &scale);
    if *want.denom() != 1 {
        return false;
    }
    let p = x.prec() + 64;
    let s = Float::with_val(p, &scale);
    let r = |v: &Float, rnd: Round| -> Integer {
        let y = Float::with_val_round(p, v * &s, rnd).0 + 0.5f64;
        y.floor().to_integer().expect("invariant: a finite value")
    };
    r(x.lo(), Round::Down) == *want.numer() && r(x.hi(), Round::Up) == *want.numer()
}

fn dec(x: &Interval, digits: usize) -> String {
    fmt_nearest(&x.mid(), digits)
}

/// Table 2 with ρ = 2.56: level, β, α, ρ exact and decimal, printed value and whether it reproduces;
/// plus the noise variance KR's model implies, σ² = 1/(2ρ), and the production noise 1/ρ (replace relation).
pub fn table2(prec: u32) -> Vec<Record> {
    TABLE2
        .iter()
        .enumerate()
        .map(|(i, (name, b, a, printed))| {
            let rho = rho_gvhr(i);
            let iv = Interval::from_rational(&rho, prec);
            let mut r = Record::new();
            r.push("level", *name);
            r.push("total_prop", format!("{}/{}", b.0, b.1));
            r.push("gvhr_prop", format!("{}/{}", a.0, a.1));
            r.push("rho_exact", rho.to_string());
            r.push("rho", dec(&iv, 15));
            r.push("printed", *printed);
            r.push("reproduces", rounds_to(&iv, printed).to_string());
            r.push("kr_sigma2", dec(&Interval::from_rational(&(Rational::from(rho.recip_ref()) / 2u32), prec), 10));
            r.push("production_sigma2", dec(&Interval::from_rational(&Rational::from(rho.recip_ref()), prec), 10));
            r
        })
        .collect()
}

/// KR Theorem 1 (Bun–Steinke) at ρ = 2.56, δ = 1e-10: ε = 17.9152829…, printed 17.91 (truncated; it
/// rounds to 17.92). Also the CKS conversion and the production ρ.
pub fn epsilon_record(prec: u32) -> Record {
    let delta = parse_rational("1e-10").expect("invariant: a decimal constant");
    let mut r = Record::new();
    for (tag, rho) in [("2.56", rho_total()), ("293764/114921", parse_rational("293764/114921").expect("invariant: a rational constant"))] {
        let bs = zcdp::eps_bs(&rho, &delta, prec);
        let (cks, _) = zcdp::eps_cks(&rho, &delta, prec);
        r.push(&format!("eps_bs_rho_{tag}"), dec(&bs, 15));
        r.push(&format!("eps_cks_rho_{tag}"), dec(&cks, 15));
    }
    r.push("printed", "17.91");
    r.push("note", "17.91 = Bun-Steinke at rho = 2.56 truncated to 2 decimals (17.9153 rounds to 17.92)");
    r
}

/// Table 4 at ρ₁: per x* = 1..5 the printed "mass" column (which is P[X*=x*|X=0], not |X=1), the true
/// P[X*=x*|X=1], the posteriors and R′ for the five priors, and whether every printed digit reproduces.
pub fn table4(rho1: &Rational, prec: u32) -> Fallible<Vec<Record>> {
    let pr = priors();
    let mut rows = Vec::new();
    for (ix, x) in (1..=5i64).enumerate() {
        let s0 = SingleLevel::new(Rational::from((1, 2)), 0, rho1.clone())?;
        let mass0 = s0.likelihood(x, 0, prec);
        let mass1 = s0.likelihood(x, 1, prec);
        let mut r = Record::new();
        let mut ok = rounds_to(&mass0, T4_MASS[ix]);
        r.push("xstar", x.to_string());
        r.push("mass_printed", T4_MASS[ix]);
        r.push("p_xstar_given_x0", dec(&mass0, 12));
        r.push("p_xstar_given_x1", dec(&mass1, 12));
        for (ip, (name, p)) in pr.iter().enumerate() {
            let s = SingleLevel::new(p.clone(), 0, rho1.clone())?;
            let post = s.posterior(x, prec);
            let rp = s.risk_prime(x, prec);
            r.push(&format!("posterior_p{name}"), dec(&post, 12));
            r.push(&format!("risk_p{name}"), dec(&rp, 12));
            if ip < 4 {
                ok &= rounds_to(&post, T4_POST[ip][ix]);
            }
            ok &= rounds_to(&rp, T4_RISK[ip][ix]);
        }
        r.push("reproduces", ok.to_string());
        rows.push(r);
    }
    Ok(rows)
}

/// Table 5 at ρ₁ plus the §4.2 decision quantities: marginal posterior M (3.3), R (3.4), threshold x̃*,
/// P(correct) (3.6), certified.
pub fn table5(rho1: &Rational, prec: u32) -> Fallible<Vec<Record>> {
    let mut rows = Vec::new();
    for (ip, (name, p)) in priors().iter().enumerate() {
        let s = SingleLevel::new(p.clone(), 0, rho1.clone())?;
        let m = s.marginal(prec);
        let rr = s.risk(prec);
        let pc = s.prob_correct(prec);
        let mut r = Record::new();
        r.push("p", *name);
        r.push("marginal_posterior", dec(&m, 15));
        r.push("marginal_posterior_lo", crate::num::fmt_down(m.lo(), 20));
        r.push("marginal_posterior_hi", crate::num::fmt_up(m.hi(), 20));
        r.push("risk", dec(&rr, 15));
        r.push("printed_posterior", T5[ip].0);
        r.push("printed_risk", T5[ip].1);
        r.push("reproduces", (rounds_to(&m, T5[ip].0) && rounds_to(&rr, T5[ip].1)).to_string());
        r.push("threshold_xstar", s.threshold().to_string());
        r.push("p_correct", dec(&pc, 12));
        rows.push(r);
    }
    Ok(rows)
}

/// KR Table 6 data and the §4.3 setting.
pub fn table6_data() -> Data {
    Data { x1s: 2, x2s: 1, y1s: -1 }
}

pub fn table6_model(prior: Prior2) -> TwoLevel {
    TwoLevel::new(Rational::from((1, 2)), 0, rho_block(), rho_obg(), 27, prior).expect("invariant: a valid constant")
}

/// Printed Table 7/8: P[X₁ = 1 | D] and P[X₂ = k | D], k = 0..7.
pub const T7: &str = "0.570";
pub const T8: [&str; 8] = ["0.11", "0.40", "0.30", "0.14", "0.046", "0.007", "0.0008", "0.0001"];

/// Tables 7 and 8 three ways: the exact posterior of the model as written (default), the exact
/// stationary law of the paper's sampler, and Monte Carlo runs of both samplers (seeded, 10⁴ draws as
/// in the paper). One row per method: P[X₁=1|D], then P[X₂=k|D] for k = 0..7.
pub fn tables78(prec: u32, seed: u64, draws: usize) -> Fallible<Vec<Record>> {
    let t = table6_model(Prior2::Unbounded);
    let d = table6_data();
    let mut rows = Vec::new();
    let mut push = |method: &str, p1: String, se: String, x2: Vec<String>| {
        let mut r = Record::new();
        r.push("method", method);
        r.push("p_x1_eq_1", p1);
        r.push("std_error", se);
        for k in 0..8 {
            r.push(&format!("p_x2_eq_{k}"), x2.get(k).cloned().unwrap_or_default());
        }
        rows.push(r);
    };
    push("printed (paper, 1e4 MCMC draws)", T7.into(), String::new(), T8.iter().map(|s| s.to_string()).collect());
    let ex = t.posterior(&d, 8, prec);
    push("exact posterior (model as written)", dec(&ex.p_target, 12), "0".into(), ex.x2.iter().map(|(_, v)| dec(v, 8)).collect());
    let ps = t.gibbs_stationary(&d, Sampler::Paper, 8, prec)?;
    push("paper sampler, stationary law (exact)", dec(&ps.p_target, 12), "0".into(), ps.x2.iter().map(|(_, v)| dec(v, 8)).collect());
    for (name, s) in [("correct sampler, Monte Carlo", Sampler::Correct), ("paper sampler, Monte Carlo", Sampler::Paper)] {
        let mc = t.gibbs_mc(&d, s, draws, 1000, seed, 8)?;
        push(
            &format!("{name} ({} draws, seed {})", mc.draws, mc.seed),
            format!("{:.4}", mc.p_target),
            format!("{:.4}", mc.p_target_se),
            mc.x2.iter().map(|(_, v, _)| format!("{v:.4}")).collect(),
        );
    }
    let nh = SingleLevel::new(Rational::from((1, 2)), 0, rho_block())?.posterior(2, prec);
    push("no hierarchy (3.1), printed 57.4%", dec(&nh, 12), "0".into(), vec![]);
    Ok(rows)
}
