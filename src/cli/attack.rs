//! `tightdp attack`: what an attacker can do against a composition — certified TPR at given FPRs, the
//! advantage, the Bayes success of the best membership test for given priors, the reconstruction bound for
//! given baseline successes — next to what zCDP
//! (Bun–Steinke) accounting of the same ρ allows: the Bureau's, for its allocation files (src/attack).

use crate::account::Certified;
use crate::attack;
use crate::cli::common::{accountant, resolve, TargetArgs};
use crate::error::Fallible;
use crate::fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::parse_rational;
use crate::record::{render_csv, row, Format, Record};
use clap::Args;
use rug::Rational;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct AttackArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// False positive rates at which to bound the attacker's true positive rate (repeatable or comma list)
    #[arg(long, allow_hyphen_values = true, value_name = "F", value_delimiter = ',', default_values_t = ["1e-4".to_string(), "1e-3".to_string(), "1e-2".to_string()])]
    pub fpr: Vec<String>,
    /// Prior probabilities of membership for the Bayes success of the best test (repeatable or comma list)
    #[arg(long, allow_hyphen_values = true, value_name = "P", value_delimiter = ',', default_values_t = ["0.5".to_string(), "1e-3".to_string()])]
    pub prior: Vec<String>,
    /// Baseline success κ of a reconstruction attack (its best guess without the data: e.g. 1/1000 for a
    /// value drawn from 1,000 equally likely ones): the certified bound 1 − f(κ) on its success with the
    /// output (reconstruction robustness, Kaissis et al. 2023; repeatable or comma list)
    #[arg(long, allow_hyphen_values = true, value_name = "K", value_delimiter = ',')]
    pub reconstruction_prior: Vec<String>,
}

fn parse_in(s: &str, what: &str, open: bool) -> Fallible<Rational> {
    let x = parse_rational(s.trim()).map_err(|e| e.context(what))?;
    let ok = if open { x > 0 && x < 1 } else { (0..=1).contains(&x) };
    if !ok {
        return fallible!(Input, "{what} must be in {}, got '{}'", if open { "(0, 1)" } else { "[0, 1]" }, s.trim());
    }
    Ok(x)
}

fn pct_up(c: &Certified) -> String {
    format!("{}%", fmt_up(&(c.hi().clone() * 100u32), 4))
}

/// A row of `attack`'s CSV, its fields the columns in order: one row per measure (the advantage, the TPR at each FPR, the Bayes success
/// at each prior, the reconstruction success at each baseline κ, in the `prior` column), an empty cell where a field does not apply. `zcdp_bs` is what the Bun–Steinke zCDP
/// accounting of the same ρ allows (double precision, approximate in its favour).
#[derive(Serialize)]
pub struct AttackRow<'a> {
    pub target: &'a str,
    pub neighbors: &'static str,
    pub method: &'static str,
    pub trust: &'static str,
    pub measure: &'a str,
    pub fpr: &'a str,
    pub prior: &'a str,
    pub value_lo: String,
    pub value_hi: String,
    pub zcdp_bs: String,
}

/// A double-precision value in the decimal style of the certified ones (7 significant digits).
/// A zCDP comparison value (empty where the composition has no ρ: NaN).
fn dec(x: f64) -> String {
    if x.is_nan() {
        return String::new();
    }
    fmt_nearest(&rug::Float::with_val(64, x), 7)
}

pub fn run(a: AttackArgs) -> Fallible<String> {
    let fprs = a.fpr.iter().map(|s| Ok((s.trim().to_string(), parse_in(s, "--fpr", false)?))).collect::<Fallible<Vec<_>>>()?;
    let priors = a.prior.iter().map(|s| Ok((s.trim().to_string(), parse_in(s, "--prior", true)?))).collect::<Fallible<Vec<_>>>()?;
    let kappas = a
        .reconstruction_prior
        .iter()
        .map(|s| Ok((s.trim().to_string(), parse_in(s, "--reconstruction-prior", true)?)))
        .collect::<Fallible<Vec<_>>>()?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    // the zCDP comparison needs a ρ (NaN, printed empty, where a mechanism has none)
    let rho = acc.rho().map_or(f64::NAN, |r| r.to_f64());
    let adv = attack::advantage(&acc)?;
    let tprs = fprs.iter().map(|(_, f)| attack::tpr_at_fpr(&acc, f)).collect::<Result<Vec<_>, _>>()?;
    let bayes = priors.iter().map(|(_, p)| attack::bayes_success(&acc, p)).collect::<Result<Vec<_>, _>>()?;
    let rero = kappas.iter().map(|(_, k)| attack::reconstruction_success(&acc, k)).collect::<Result<Vec<_>, _>>()?;
    // (the curve functions do not carry a NaN through: no ρ, no comparison)
    let has_rho = !rho.is_nan();
    let tpr_bs: Vec<f64> =
        fprs.iter().map(|(_, f)| if has_rho { 1.0 - attack::bureau_tradeoff(rho, f.to_f64()) } else { f64::NAN }).collect();
    let bayes_bs: Vec<f64> =
        priors.iter().map(|(_, p)| if has_rho { attack::bureau_bayes_success(rho, p.to_f64()) } else { f64::NAN }).collect();
    let adv_bs = if has_rho { attack::bureau_advantage(rho) } else { f64::NAN };
    let rero_bs: Vec<f64> =
        kappas.iter().map(|(_, k)| if has_rho { 1.0 - attack::bureau_tradeoff(rho, k.to_f64()) } else { f64::NAN }).collect();
    // whose accounting the zCDP side is: the Bureau's for its own allocation files, else the conversion's
    let whose = if t.bureau { "the Bureau's zCDP accounting" } else { "zCDP (Bun–Steinke) accounting" };
    let m = Measures { t: &t, fprs, priors, adv, tprs, bayes, tpr_bs, bayes_bs, adv_bs, whose, kappas, rero, rero_bs };
    match a.target.format {
        Format::Csv => render_attack_csv(&m),
        Format::Json => Ok(render_attack_json(&m)),
        Format::Table => Ok(render_attack_table(&m)),
    }
}

/// The attack measures of one target, certified, beside the zCDP accounting's (NaN where there is no ρ).
struct Measures<'a> {
    t: &'a crate::cli::common::Target,
    fprs: Vec<(String, Rational)>,
    priors: Vec<(String, Rational)>,
    adv: Certified,
    tprs: Vec<Certified>,
    bayes: Vec<Certified>,
    tpr_bs: Vec<f64>,
    bayes_bs: Vec<f64>,
    adv_bs: f64,
    whose: &'static str,
    /// the reconstruction baselines κ, the certified bounds 1 − f(κ) and the zCDP accounting's
    kappas: Vec<(String, Rational)>,
    rero: Vec<Certified>,
    rero_bs: Vec<f64>,
}

fn render_attack_csv(m: &Measures) -> Fallible<String> {
    let (t, fprs, priors, adv, tprs, bayes, tpr_bs, bayes_bs, adv_bs) =
        (m.t, &m.fprs, &m.priors, &m.adv, &m.tprs, &m.bayes, &m.tpr_bs, &m.bayes_bs, m.adv_bs);
    let d = 25;
    let row = |measure: &str, fpr: &str, prior: &str, c: &Certified, bs: f64| -> Fallible<Record> {
        row(&AttackRow {
            target: &t.label,
            neighbors: t.comp.neighbors().as_str(),
            method: c.engine().as_str(),
            trust: c.trust().as_str(),
            measure,
            fpr,
            prior,
            value_lo: fmt_down(c.lo(), d),
            value_hi: fmt_up(c.hi(), d),
            zcdp_bs: dec(bs),
        })
    };
    let mut rows = vec![row("advantage", "", "", adv, adv_bs)?];
    for (((fs, _), c), bs) in fprs.iter().zip(tprs).zip(tpr_bs) {
        rows.push(row("tpr_at_fpr", fs, "", c, *bs)?);
    }
    for (((ps, _), c), bs) in priors.iter().zip(bayes).zip(bayes_bs) {
        rows.push(row("bayes_success", "", ps, c, *bs)?);
    }
    for (((ks, _), c), bs) in m.kappas.iter().zip(&m.rero).zip(&m.rero_bs) {
        rows.push(row("reconstruction_success", "", ks, c, *bs)?);
    }
    Ok(render_csv(&rows))
}

fn render_attack_json(m: &Measures) -> String {
    let (t, fprs, priors, adv, tprs, bayes, tpr_bs, bayes_bs, adv_bs, whose) =
        (m.t, &m.fprs, &m.priors, &m.adv, &m.tprs, &m.bayes, &m.tpr_bs, &m.bayes_bs, m.adv_bs, m.whose);
    let d = 25;
    let mut root = serde_json::Map::new();
    let s = |x: String| serde_json::Value::String(x);
    root.insert("target".into(), s(t.label.clone()));
    root.insert("neighbors".into(), s(t.comp.neighbors().as_str().into()));
    root.insert("method".into(), s(adv.engine().as_str().into()));
    root.insert("trust".into(), s(adv.trust().as_str().into()));
    root.insert("advantage_lo".into(), s(fmt_down(adv.lo(), d)));
    root.insert("advantage_hi".into(), s(fmt_up(adv.hi(), d)));
    root.insert("advantage_bureau".into(), s(dec(adv_bs)));
    root.insert("per_fpr".into(), per_row("fpr", "tpr", fprs, tprs, tpr_bs));
    root.insert("per_prior".into(), per_row("prior", "bayes_success", priors, bayes, bayes_bs));
    if !m.kappas.is_empty() {
        root.insert(
            "per_reconstruction_prior".into(),
            per_row("reconstruction_prior", "reconstruction_success", &m.kappas, &m.rero, &m.rero_bs),
        );
    }
    root.insert(
        "bureau_note".into(),
        s(format!(
            "the *_bureau values are what {whose} of the same rho allows (epsilon = rho + 2 sqrt(rho log 1/delta) for every delta), \
             evaluated in double precision on a grid (approximate, in the accounting's favour)"
        )),
    );
    serde_json::to_string_pretty(&serde_json::Value::Object(root)).expect("invariant: JSON of strings") + "\n"
}

/// One JSON object per argument of a measure: the argument as given under `arg`, the certified bracket as
/// `{measure}_lo` / `{measure}_hi` and the zCDP accounting's value as `{measure}_bureau`.
fn per_row(arg: &str, measure: &str, args: &[(String, Rational)], cs: &[Certified], bs: &[f64]) -> serde_json::Value {
    let d = 25;
    let s = |x: String| serde_json::Value::String(x);
    let rows = args
        .iter()
        .zip(cs)
        .zip(bs)
        .map(|(((a, _), c), b)| {
            let mut m = serde_json::Map::new();
            m.insert(arg.into(), s(a.clone()));
            m.insert(format!("{measure}_lo"), s(fmt_down(c.lo(), d)));
            m.insert(format!("{measure}_hi"), s(fmt_up(c.hi(), d)));
            m.insert(format!("{measure}_bureau"), s(dec(*b)));
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::Value::Array(rows)
}

fn render_attack_table(m: &Measures) -> String {
    let (t, fprs, priors, adv, tprs, bayes, tpr_bs, bayes_bs, adv_bs, whose) =
        (m.t, &m.fprs, &m.priors, &m.adv, &m.tprs, &m.bayes, &m.tpr_bs, &m.bayes_bs, m.adv_bs, m.whose);
    let mut s = format!("{} ({} neighbours), {} ({})\n", t.label, t.comp.neighbors().as_str(), adv.engine().as_str(), adv.trust().as_str());
    let short = if t.bureau { "Bureau" } else { "zCDP (Bun–Steinke)" };
    for (((fs, f), c), bs) in fprs.iter().zip(tprs).zip(tpr_bs) {
        let inv = f.to_f64();
        let alarm = if inv > 0.0 { format!("1 false alarm in {:.0}", 1.0 / inv) } else { "no false alarm".to_string() };
        // the zCDP comparison only where the composition has a ρ (not subsampled laws, stated (ε, δ))
        let zc = if bs.is_nan() { String::new() } else { format!("; {whose} allows {:.4}%", 100.0 * bs) };
        s += &format!(
            "an attacker who accepts {alarm} catches at most {} of records (FPR {fs}: TPR in [{}, {}]{zc})\n",
            pct_up(c),
            fmt_down(c.lo(), 6),
            fmt_up(c.hi(), 6),
        );
    }
    let zc = |bs: f64| if bs.is_nan() { String::new() } else { format!("; {short}: {bs:.6}") };
    s += &format!(
        "no test does better than TPR − FPR = {} (advantage in [{}, {}]{})\n",
        fmt_up(adv.hi(), 6),
        fmt_down(adv.lo(), 6),
        fmt_up(adv.hi(), 6),
        zc(adv_bs)
    );
    for (((ps, p), c), bs) in priors.iter().zip(bayes).zip(bayes_bs) {
        let trivial = p.to_f64().max(1.0 - p.to_f64());
        s += &format!(
            "with a prior of {ps} the best membership guess is right with probability at most {} (bracket [{}, {}]; guessing without the data: {trivial}{})\n",
            fmt_up(c.hi(), 8),
            fmt_down(c.lo(), 8),
            fmt_up(c.hi(), 8),
            zc(*bs)
        );
    }
    for (((ks, _), c), bs) in m.kappas.iter().zip(&m.rero).zip(&m.rero_bs) {
        s += &format!(
            "a reconstruction attack whose best guess without the data succeeds with probability {ks} succeeds with probability at most {} (bracket [{}, {}]{})\n",
            fmt_up(c.hi(), 8),
            fmt_down(c.lo(), 8),
            fmt_up(c.hi(), 8),
            zc(*bs)
        );
    }
    s
}
