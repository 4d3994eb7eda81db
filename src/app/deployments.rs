//! `tightdp verify --deployments`: the stated guarantee of every public deployment in the registry
//! (`data/deployments/`, [`crate::app::deployment_registry`]), next to what its published noise exactly
//! spends.
//!
//! Per deployment: the stated guarantee, the exact certified ε at the stated δ (the accountant's default
//! 20 digits), the zCDP conversions of the noise's ρ (Bun–Steinke [BS16, Prop. 1.3], Canonne–Kamath–Steinke
//! [CKS20, Prop. 12]), the difference in percent and a verdict: `as stated` (the exact ε, rounded as the
//! stated one is printed, equals it), `tighter than stated by X%`, `stated guarantee too optimistic` (the
//! exact loss exceeds the claim), `stated, not recomputable: …` (what is missing). A stated guarantee given only
//! as ρ is compared through its Bun–Steinke ε at a δ the file names (an assumption, cited). A pure ε-DP
//! claim is compared with the exact pure ε of the noise (Σ nμ/b for discrete Laplace noise; none for
//! Gaussian noise). The attack column is the certified TPR of the most powerful membership test at FPR
//! 10⁻³, 1 − f(10⁻³) [SSW24, Thm A.7], as `tightdp attack` computes it.
//!
//! Certificates: for each Census product, per level (geography), the level's ρ, its zCDP ε and its exact
//! ε at the same δ, and the whole release (`(all levels)`), in the style of
//! `results/production-certificates.csv`.

use crate::account::{Accountant, Certified, Options};
use crate::app::deployment_registry::{Deployment, Mechanisms, StatedKind};
use crate::budget::zcdp;
use crate::census::Allocation;
use crate::error::Fallible;
use crate::fallible;
use crate::model::{Composition, Group};
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::{row, Record};
use rug::{Float, Rational};
use serde::Serialize;
use std::path::Path;

const PREC: u32 = 256;
/// FPR of the attack column.
pub const ATTACK_FPR: &str = "1/1000";

/// One row of `deployments.csv` (its fields are the columns, in order; empty where a field does not apply).
#[derive(Serialize, Default)]
struct DeploymentRow {
    id: String,
    organisation: String,
    product: String,
    year: String,
    privacy_unit: String,
    neighbors: String,
    stated: String,
    stated_kind: String,
    stated_rho: String,
    delta: String,
    delta_from: String,
    stated_epsilon: String,
    stated_epsilon_from: String,
    rho: String,
    eps_zcdp_bun_steinke: String,
    eps_zcdp_cks: String,
    eps_exact_lo: String,
    eps_exact_hi: String,
    digits: String,
    method: String,
    difference_percent: String,
    verdict: String,
    explanation: String,
    #[serde(rename = "tpr_at_fpr_1e-3_lo")]
    tpr_lo: String,
    #[serde(rename = "tpr_at_fpr_1e-3_hi")]
    tpr_hi: String,
    depends_on_assumptions: String,
    sources: String,
}

/// One row of `deployment-certificates.csv`: a Census product's level (or all its levels).
#[derive(Serialize)]
struct CertificateRow {
    deployment: String,
    product: String,
    level: String,
    neighbors: String,
    rho: String,
    rho_decimal: String,
    delta: String,
    eps_zcdp_bun_steinke: String,
    eps_zcdp_cks: String,
    eps_exact_lo: String,
    eps_exact_hi: String,
    digits: String,
    note: String,
}

/// One deployment's noise, ready for the accountant: per level and composed.
struct Noise {
    levels: Vec<(String, Composition)>,
    all: Composition,
}

/// What the figure draws of one deployment.
#[derive(Clone, Debug)]
pub struct DeploymentPoint {
    pub label: String,
    pub stated: f64,
    pub exact: Option<f64>,
    pub bun_steinke: Option<f64>,
    pub verdict: String,
}

/// One deployment evaluated: its row of `deployments.csv`, its certificate rows, its figure point.
pub struct Evaluated {
    pub row: Record,
    pub certificates: Vec<Record>,
    pub point: DeploymentPoint,
}

fn noise(d: &Deployment, data: &Path) -> Fallible<Result<Noise, String>> {
    match &d.mechanisms {
        Mechanisms::Missing(why) => Ok(Err(why.clone())),
        Mechanisms::Allocation { name, .. } => {
            let a = Allocation::from_path(&data.join(format!("allocations/{name}.toml")))?;
            if a.neighbors != d.neighbors {
                return fallible!(
                    Input,
                    "deployment '{}': neighbors '{}' but allocation '{name}' states '{}'",
                    d.id,
                    d.neighbors.as_str(),
                    a.neighbors.as_str()
                );
            }
            let levels = a.levels.iter().map(|l| Ok((l.name.clone(), a.level_composition(l)?))).collect::<Fallible<Vec<_>>>()?;
            Ok(Ok(Noise { levels, all: a.composition()? }))
        }
        Mechanisms::Levels(ls) => {
            let mut levels = Vec::new();
            let mut all: Vec<Group> = Vec::new();
            for l in ls {
                let groups: Vec<Group> = l.mech.iter().map(|m| crate::model::spec::parse_mech(m)).collect::<Result<_, _>>()?;
                all.extend(groups.iter().cloned());
                levels.push((l.name.clone(), Composition::new(groups, d.neighbors).map_err(|e| in_file(e, d, &l.name))?));
            }
            Ok(Ok(Noise { levels, all: Composition::new(all, d.neighbors).map_err(|e| in_file(e, d, "all levels"))? }))
        }
    }
}

/// An error of a deployment file's noise, in the words of the file: which file and level, and the file's
/// key where the message names the command line's flag.
fn in_file(e: crate::error::Error, d: &Deployment, level: &str) -> crate::error::Error {
    let msg = e
        .message()
        .replace("give --neighbors replace", "set neighbors = \"replace\" in the file")
        .replace("give --neighbors add-remove", "set neighbors = \"add-remove\" in the file");
    crate::error::Error::new(e.kind(), msg).context(format!("deployment file '{}.toml', level {level}", d.id))
}

/// Decimals of a printed number ("17.14" → 2, "1" → 0, "1e-7" → 0).
fn printed_decimals(s: &str) -> u32 {
    if s.contains(['e', 'E', '/']) {
        return 0;
    }
    s.split_once('.').map(|(_, f)| f.len() as u32).unwrap_or(0)
}

/// The verdict of an exact bracket [lo, hi] against a stated value printed as `printed`: `as stated` when
/// both ends of the bracket, rounded to the stated value's printed decimals (at least 2), equal it; the
/// difference is 100 (stated − exact)/stated, positive when the exact guarantee is tighter.
pub fn judge(lo: &Float, hi: &Float, stated: &Rational, printed: Option<&str>) -> (String, f64) {
    let s = Float::with_val(PREC, stated);
    let mid = Float::with_val(PREC, lo + hi) / 2u32;
    let pct = (Float::with_val(PREC, &s - &mid) / &s * 100u32).to_f64();
    if let Some(p) = printed {
        let k = printed_decimals(p).max(2);
        let scale = Float::with_val(PREC, rug::ops::Pow::pow(Float::with_val(PREC, 10u32), k));
        let round = |x: &Float| Float::with_val(PREC, x * &scale).round();
        if round(lo) == round(&s) && round(hi) == round(&s) {
            return ("as stated".into(), pct);
        }
    }
    if *hi < s {
        (format!("tighter than stated by {pct:.2}%"), pct)
    } else if *lo > s {
        ("stated guarantee too optimistic".into(), pct)
    } else {
        ("as stated".into(), pct)
    }
}

/// The accountant's defaults: 20 digits asked; a bracket with fewer says so in its note.
fn options() -> Options {
    Options::default()
}

fn exact_eps(comp: &Composition, delta: &Rational) -> Fallible<Certified> {
    Accountant::new(comp.clone(), options())?.epsilon(delta)
}

/// Exact pure ε of the noise (Σ nμ/b over the shifts), None when a Gaussian term has none.
fn pure_eps(comp: &Composition) -> Option<Rational> {
    comp.shifts().iter().map(|g| g.pure_epsilon()).try_fold(Rational::from(0), |acc, e| e.map(|e| acc + e))
}

fn join_ids(v: &[String]) -> String {
    v.join(" ")
}

/// Evaluate one deployment (`data`: the data directory, for allocation references).
pub fn evaluate(d: &Deployment, data: &Path) -> Fallible<Evaluated> {
    let st = &d.stated;
    let mut r = identity(d);
    let stated = stated_epsilon(d)?;
    let stated_f = Float::with_val(PREC, &stated.eps);
    r.stated_epsilon = stated.printed.clone().unwrap_or_else(|| fmt_up(&stated_f, 12));
    r.stated_epsilon_from = stated.how.into();
    let mut point =
        DeploymentPoint { label: d.short_name.clone(), stated: stated_f.to_f64(), exact: None, bun_steinke: None, verdict: String::new() };
    let mut certificates = Vec::new();
    let n = match noise(d, data)? {
        Err(why) => {
            let v = format!("stated, not recomputable: {why}");
            r.verdict = v.clone();
            point.verdict = v;
            finish(d, &mut r);
            return Ok(Evaluated { row: row(&r)?, certificates, point });
        }
        Ok(n) => n,
    };
    // the zCDP conversions apply where every mechanism has a ρ and none is discrete Laplace
    let rho_opt = n.all.rho();
    let gaussian_only = !n.all.has_laplace() && rho_opt.is_some();
    let rho = rho_opt.unwrap_or_default();
    r.rho = if gaussian_only { fmt_nearest(&Float::with_val(PREC, &rho), 12) } else { String::new() };
    let acc = Accountant::new(n.all.clone(), options())?;
    let v = if st.kind == StatedKind::PureDp {
        judge_pure(&mut r, &n, &stated)
    } else {
        judge_approx(d, &mut r, &acc, (&rho, gaussian_only), &stated, &mut point)?
    };
    r.difference_percent = v.pct.map(|p| format!("{p:.4}")).unwrap_or_default();
    r.verdict = v.verdict.clone();
    r.explanation = v.explanation;
    point.verdict = v.verdict;
    point.exact = v.exact;
    tpr(&mut r, &acc);
    finish(d, &mut r);
    if d.census && st.kind != StatedKind::PureDp {
        certificates = level_certificates(d, &n, st.delta.as_ref().expect("invariant: approx and zcdp statements carry delta"), v.overall)?;
    }
    Ok(Evaluated { row: row(&r)?, certificates, point })
}

/// The deployment's identity and its statement as published (id … delta_from), the rest of its row empty.
fn identity(d: &Deployment) -> DeploymentRow {
    let st = &d.stated;
    DeploymentRow {
        id: d.id.clone(),
        organisation: d.organisation.clone(),
        product: d.product.clone(),
        year: d.year.to_string(),
        privacy_unit: d.privacy_unit.clone(),
        neighbors: d.neighbors.as_str().into(),
        stated: st.text.clone(),
        stated_kind: st.kind.as_str().into(),
        stated_rho: st.rho.as_ref().map(|q| fmt_nearest(&Float::with_val(PREC, q), 12)).unwrap_or_default(),
        delta: st.delta.as_ref().map(|q| fmt_nearest(&Float::with_val(PREC, q), 6)).unwrap_or_else(|| "0".into()),
        delta_from: if st.delta_assumption.is_some() {
            "assumed"
        } else if st.delta.is_some() {
            "published"
        } else {
            "pure DP"
        }
        .into(),
        ..DeploymentRow::default()
    }
}

/// The ε the exact value is compared with: its value, its text as printed (None: derived here), and where
/// it comes from.
struct StatedEpsilon {
    eps: Rational,
    printed: Option<String>,
    how: &'static str,
}

fn stated_epsilon(d: &Deployment) -> Fallible<StatedEpsilon> {
    let st = &d.stated;
    Ok(match (&st.epsilon, &st.rho, &st.delta) {
        (Some((p, e)), _, _) if st.secondary.is_some() => {
            StatedEpsilon { eps: e.clone(), printed: Some(p.clone()), how: "as reported by a secondary source" }
        }
        (Some((p, e)), _, _) => StatedEpsilon { eps: e.clone(), printed: Some(p.clone()), how: "as published" },
        (None, Some(rho), Some(dl)) => {
            let bs = zcdp::eps_bs(rho, dl, PREC).into_parts().1;
            StatedEpsilon { eps: bs.to_rational().unwrap_or_default(), printed: None, how: "Bun-Steinke epsilon of the stated rho" }
        }
        _ => return fallible!(Input, "deployment '{}': no stated epsilon to compare", d.id),
    })
}

/// A deployment's verdict: the words, the difference in percent, the explanation, the exact ε (its upper
/// end) and the certified bracket it came from.
struct Verdict {
    verdict: String,
    pct: Option<f64>,
    explanation: String,
    exact: Option<f64>,
    overall: Option<Certified>,
}

/// A pure-DP statement against the noise's pure ε (an exact rational; none for Gaussian noise).
fn judge_pure(r: &mut DeploymentRow, n: &Noise, stated: &StatedEpsilon) -> Verdict {
    match pure_eps(&n.all) {
        Some(e) => {
            let ef = Float::with_val(PREC, &e);
            r.eps_exact_lo = fmt_down(&ef, 20);
            r.eps_exact_hi = fmt_up(&ef, 20);
            r.digits = "exact".into();
            r.method = "pure epsilon: sum of n mu / b (exact rational)".into();
            let (verdict, p) = judge(&ef, &ef, &stated.eps, stated.printed.as_deref());
            let explanation = format!("pure epsilon of the noise = {e} (exact)");
            Verdict { verdict, pct: Some(p), explanation, exact: Some(ef.to_f64()), overall: None }
        }
        None => {
            r.eps_exact_lo = "inf".into();
            r.eps_exact_hi = "inf".into();
            r.digits = "exact".into();
            r.method = "Gaussian noise has no pure epsilon".into();
            Verdict {
                verdict: "stated guarantee too optimistic".to_string(),
                pct: None,
                explanation: "Gaussian noise satisfies no pure epsilon-DP guarantee: the exact loss is unbounded".into(),
                exact: None,
                overall: None,
            }
        }
    }
}

/// An (ε, δ) or zCDP statement against the exact ε(δ) of the noise (and, for Gaussian noise, the zCDP
/// conversions of its ρ).
fn judge_approx(
    d: &Deployment,
    r: &mut DeploymentRow,
    acc: &Accountant,
    (rho, gaussian_only): (&Rational, bool),
    stated: &StatedEpsilon,
    point: &mut DeploymentPoint,
) -> Fallible<Verdict> {
    let st = &d.stated;
    let dl = st.delta.clone().expect("invariant: approx and zcdp statements carry delta");
    if gaussian_only {
        let bs = zcdp::eps_bs(rho, &dl, PREC).into_parts().1;
        let cks = zcdp::eps_cks(rho, &dl, PREC).0.into_parts().1;
        r.eps_zcdp_bun_steinke = fmt_up(&bs, 12);
        r.eps_zcdp_cks = fmt_up(&cks, 12);
        point.bun_steinke = Some(bs.to_f64());
    }
    let t0 = std::time::Instant::now();
    let e = acc.epsilon(&dl)?;
    if std::env::var_os("TIGHTDP_DEPLOY_TIMINGS").is_some() {
        eprintln!("{}: epsilon {:.2} s", d.id, t0.elapsed().as_secs_f64());
    }
    let p = e.printed(25);
    r.eps_exact_lo = p.lo.clone();
    r.eps_exact_hi = p.hi.clone();
    r.digits = p.digits_field();
    r.method = e.describe();
    let (verdict, pct) = judge(e.lo(), e.hi(), &stated.eps, stated.printed.as_deref());
    let mut ex = String::new();
    if let Some(srho) = &st.rho {
        if srho != rho && gaussian_only {
            ex = format!(
                "the noise as recorded spends rho = {} where {} is stated; ",
                fmt_nearest(&Float::with_val(PREC, rho), 10),
                fmt_nearest(&Float::with_val(PREC, srho), 10)
            );
        }
    }
    if verdict == "stated guarantee too optimistic" {
        ex.push_str(&format!(
            "the exact epsilon of the published noise at delta = {} is {} > stated {}: the guarantee as published does not hold for this noise",
            fmt_nearest(&Float::with_val(PREC, &dl), 3),
            fmt_up(e.hi(), 8),
            fmt_up(&Float::with_val(PREC, &stated.eps), 8)
        ));
    }
    Ok(Verdict { verdict, pct: Some(pct), explanation: ex, exact: Some(e.hi().to_f64()), overall: Some(e) })
}

/// The attack's TPR at FPR 1e-3 from the certified trade-off function, or why it is not computed.
fn tpr(r: &mut DeploymentRow, acc: &Accountant) {
    let alpha: Rational = crate::num::parse_rational(ATTACK_FPR).expect("invariant: a decimal constant");
    // the certified trade-off function needs a common lattice of the losses, or the conditioning on the
    // coarse groups that gave the exact ε: where the exact ε came from the smoothed inversion there is
    // neither (the lattice search alone costs seconds before it declines)
    let m = &r.method;
    let lattice = m.starts_with("lattice") || m.starts_with("pure") || m.starts_with("conditioned");
    let tpr = if lattice {
        crate::attack::tpr_at_fpr(acc, &alpha)
    } else {
        fallible!(
            Input,
            "no common lattice of the losses (exact epsilon by the smoothed inversion); the certified trade-off function needs one"
        )
    };
    match tpr {
        Ok(t) => {
            r.tpr_lo = fmt_down(t.lo(), 12);
            r.tpr_hi = fmt_up(t.hi(), 12);
        }
        Err(e) => r.tpr_hi = format!("not computed: {e}"),
    }
}

fn finish(d: &Deployment, r: &mut DeploymentRow) {
    let used = d.assumptions_used();
    let texts: Vec<String> =
        used.iter().filter_map(|id| d.assumptions.iter().find(|a| &a.id == id)).map(|a| format!("{}: {}", a.id, a.text)).collect();
    r.depends_on_assumptions = texts.join(" | ");
    let mut srcs: Vec<String> = d.stated.sources.clone();
    match &d.mechanisms {
        Mechanisms::Allocation { sources, .. } => srcs.extend(sources.iter().cloned()),
        Mechanisms::Levels(ls) => ls.iter().for_each(|l| srcs.extend(l.sources.iter().cloned())),
        Mechanisms::Missing(_) => {}
    }
    let mut seen = std::collections::BTreeSet::new();
    srcs.retain(|s| seen.insert(s.clone()));
    let locs: Vec<String> = srcs
        .iter()
        .filter_map(|id| d.sources.iter().find(|s| &s.id == id))
        .map(|s| format!("{}: {} ({})", s.id, s.location, s.at))
        .collect();
    r.sources = join_ids(&locs);
}

/// Per-level certificate rows of a Census product, and the whole release.
/// (`overall`: the release's ε at `delta`, already certified.)
fn level_certificates(d: &Deployment, n: &Noise, delta: &Rational, overall: Option<Certified>) -> Fallible<Vec<Record>> {
    use rayon::prelude::*;
    let mut items: Vec<(String, &Composition, Option<Certified>)> = n.levels.iter().map(|(l, c)| (l.clone(), c, None)).collect();
    items.push(("(all levels)".to_string(), &n.all, overall));
    items
        .par_iter()
        .with_max_len(1)
        .map(|(level, comp, known)| {
            let rho = comp.rho_required()?;
            let t0 = std::time::Instant::now();
            let e = match known {
                Some(e) => e.clone(),
                None => exact_eps(comp, delta)?,
            };
            if std::env::var_os("TIGHTDP_DEPLOY_TIMINGS").is_some() {
                eprintln!("{} {level}: epsilon {:.2} s", d.id, t0.elapsed().as_secs_f64());
            }
            let p = e.printed(22);
            row(&CertificateRow {
                deployment: d.id.clone(),
                product: d.product.clone(),
                level: level.clone(),
                neighbors: d.neighbors.as_str().into(),
                rho: rho.to_string(),
                rho_decimal: fmt_nearest(&Float::with_val(PREC, &rho), 12),
                delta: fmt_nearest(&Float::with_val(PREC, delta), 6),
                eps_zcdp_bun_steinke: fmt_up(zcdp::eps_bs(&rho, delta, PREC).hi(), 12),
                eps_zcdp_cks: fmt_up(zcdp::eps_cks(&rho, delta, PREC).0.hi(), 12),
                eps_exact_lo: p.lo.clone(),
                eps_exact_hi: p.hi.clone(),
                digits: p.digits_field(),
                note: e.describe(),
            })
        })
        .collect()
}

/// Every deployment of the registry, evaluated side by side (rows in the registry's order: Census first).
pub fn evaluate_all(deployments: &[Deployment], data: &Path) -> Fallible<Vec<Evaluated>> {
    use rayon::prelude::*;
    deployments.par_iter().with_max_len(1).map(|d| evaluate(d, data)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Float {
        Float::with_val(PREC, crate::num::parse_rational(s).unwrap())
    }

    #[test]
    fn verdicts() {
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        // exact 0.93 against a stated "1": tighter by 7%
        let (v, p) = judge(&f("0.93"), &f("0.93"), &q("1"), Some("1"));
        assert_eq!(v, "tighter than stated by 7.00%");
        assert!((p - 7.0).abs() < 1e-9);
        // exact 17.1449 against stated 17.14 (two decimals): as stated
        assert_eq!(judge(&f("17.1449"), &f("17.1449"), &q("17.14"), Some("17.14")).0, "as stated");
        // exact above the claim beyond its rounding: too optimistic
        assert_eq!(judge(&f("1.2"), &f("1.2"), &q("1"), Some("1")).0, "stated guarantee too optimistic");
        assert_eq!(judge(&f("1.004"), &f("1.004"), &q("1.0"), Some("1.0")).0, "as stated");
        assert_eq!(judge(&f("0.996"), &f("0.996"), &q("1"), Some("1")).0, "as stated");
        assert_eq!(printed_decimals("1e-7"), 0);
    }
}
