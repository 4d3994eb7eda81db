//! `tightdp attack`: what an attacker can do against a composition — certified TPR at given FPRs, the
//! advantage, the Bayes success of the best membership test for given priors — next to what the Bureau's
//! zCDP accounting allows (src/attack).

use crate::account::Certified;
use crate::attack;
use crate::cli::common::{accountant, resolve, TargetArgs};
use crate::num::format::{fmt_down, fmt_up};
use crate::num::parse_rational;
use crate::record::Format;
use clap::Args;
use rug::Rational;

#[derive(Args, Debug)]
pub struct AttackArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// False positive rates at which to bound the attacker's true positive rate (repeatable or comma list)
    #[arg(long, value_name = "F", value_delimiter = ',', default_values_t = ["1e-4".to_string(), "1e-3".to_string(), "1e-2".to_string()])]
    pub fpr: Vec<String>,
    /// Prior probabilities of membership for the Bayes success of the best test (repeatable or comma list)
    #[arg(long, value_name = "P", value_delimiter = ',', default_values_t = ["0.5".to_string(), "1e-3".to_string()])]
    pub prior: Vec<String>,
}

fn parse_in(s: &str, what: &str, open: bool) -> Result<Rational, String> {
    let x = parse_rational(s.trim()).map_err(|e| format!("{what}: {e}"))?;
    let ok = if open { x > 0 && x < 1 } else { (0..=1).contains(&x) };
    if !ok {
        return Err(format!("{what} must be in {}, got '{}'", if open { "(0, 1)" } else { "[0, 1]" }, s.trim()));
    }
    Ok(x)
}

fn pct_up(c: &Certified) -> String {
    format!("{}%", fmt_up(&(c.hi().clone() * 100u32), 4))
}

pub fn run(a: AttackArgs) -> Result<String, String> {
    let fprs = a.fpr.iter().map(|s| Ok((s.trim().to_string(), parse_in(s, "--fpr", false)?))).collect::<Result<Vec<_>, String>>()?;
    let priors = a.prior.iter().map(|s| Ok((s.trim().to_string(), parse_in(s, "--prior", true)?))).collect::<Result<Vec<_>, String>>()?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let rho = acc.rho().to_f64();
    let adv = attack::advantage(&acc)?;
    let tprs = fprs.iter().map(|(_, f)| attack::tpr_at_fpr(&acc, f)).collect::<Result<Vec<_>, _>>()?;
    let bayes = priors.iter().map(|(_, p)| attack::bayes_success(&acc, p)).collect::<Result<Vec<_>, _>>()?;
    let d = 25;
    match a.target.format {
        Format::Json | Format::Csv => {
            let mut root = serde_json::Map::new();
            let s = |x: String| serde_json::Value::String(x);
            root.insert("target".into(), s(t.label.clone()));
            root.insert("neighbors".into(), s(t.comp.neighbors().as_str().into()));
            root.insert("method".into(), s(adv.engine().as_str().into()));
            root.insert("trust".into(), s(adv.trust().as_str().into()));
            root.insert("advantage_lo".into(), s(fmt_down(adv.lo(), d)));
            root.insert("advantage_hi".into(), s(fmt_up(adv.hi(), d)));
            root.insert("advantage_bureau".into(), s(format!("{:.6e}", attack::bureau_advantage(rho))));
            let per_fpr = fprs
                .iter()
                .zip(&tprs)
                .map(|((fs, f), c)| {
                    let mut m = serde_json::Map::new();
                    m.insert("fpr".into(), s(fs.clone()));
                    m.insert("tpr_lo".into(), s(fmt_down(c.lo(), d)));
                    m.insert("tpr_hi".into(), s(fmt_up(c.hi(), d)));
                    m.insert("tpr_bureau".into(), s(format!("{:.6e}", 1.0 - attack::bureau_tradeoff(rho, f.to_f64()))));
                    serde_json::Value::Object(m)
                })
                .collect();
            root.insert("per_fpr".into(), serde_json::Value::Array(per_fpr));
            let per_prior = priors
                .iter()
                .zip(&bayes)
                .map(|((ps, p), c)| {
                    let mut m = serde_json::Map::new();
                    m.insert("prior".into(), s(ps.clone()));
                    m.insert("bayes_success_lo".into(), s(fmt_down(c.lo(), d)));
                    m.insert("bayes_success_hi".into(), s(fmt_up(c.hi(), d)));
                    m.insert("bayes_success_bureau".into(), s(format!("{:.6e}", attack::bureau_bayes_success(rho, p.to_f64()))));
                    serde_json::Value::Object(m)
                })
                .collect();
            root.insert("per_prior".into(), serde_json::Value::Array(per_prior));
            root.insert(
                "bureau_note".into(),
                s("the *_bureau values are what the Bureau's zCDP accounting allows, evaluated in double precision on a grid (approximate, in the Bureau's favour)".into()),
            );
            if a.target.format == Format::Csv {
                return Err("attack prints a table or JSON (--format table|json)".into());
            }
            Ok(serde_json::to_string_pretty(&serde_json::Value::Object(root)).unwrap() + "\n")
        }
        Format::Table => {
            let mut s =
                format!("{} ({} neighbours), {} ({})\n", t.label, t.comp.neighbors().as_str(), adv.engine().as_str(), adv.trust().as_str());
            for ((fs, f), c) in fprs.iter().zip(&tprs) {
                let inv = f.to_f64();
                let alarm = if inv > 0.0 { format!("1 false alarm in {:.0}", 1.0 / inv) } else { "no false alarm".to_string() };
                s += &format!(
                    "an attacker who accepts {alarm} catches at most {} of records (FPR {fs}: TPR in [{}, {}]; the Bureau's accounting allows {:.4}%)\n",
                    pct_up(c),
                    fmt_down(c.lo(), 6),
                    fmt_up(c.hi(), 6),
                    100.0 * (1.0 - attack::bureau_tradeoff(rho, inv))
                );
            }
            s += &format!(
                "no test does better than TPR − FPR = {} (advantage in [{}, {}]; Bureau: {:.6})\n",
                fmt_up(adv.hi(), 6),
                fmt_down(adv.lo(), 6),
                fmt_up(adv.hi(), 6),
                attack::bureau_advantage(rho)
            );
            for ((ps, p), c) in priors.iter().zip(&bayes) {
                let trivial = p.to_f64().max(1.0 - p.to_f64());
                s += &format!(
                    "with a prior of {ps} the best membership guess is right with probability at most {} (bracket [{}, {}]; guessing without the data: {trivial}; Bureau: {:.6})\n",
                    fmt_up(c.hi(), 8),
                    fmt_down(c.lo(), 8),
                    fmt_up(c.hi(), 8),
                    attack::bureau_bayes_success(rho, p.to_f64())
                );
            }
            Ok(s)
        }
    }
}
