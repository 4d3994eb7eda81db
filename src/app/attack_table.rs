//! results/attack-risk.csv: what an attacker can do per geolevel and overall (src/attack), the exact
//! certified measures next to those the Bureau's zCDP accounting allows.

use crate::account::{Accountant, Options};
use crate::attack;
use crate::census::Allocation;
use crate::model::Composition;
use crate::num::format::{fmt_down, fmt_up};
use crate::record::Record;
use rug::Rational;

const FPRS: [(&str, (u32, u32)); 3] = [("1e-4", (1, 10000)), ("1e-3", (1, 1000)), ("1e-2", (1, 100))];
const PRIORS: [(&str, (u32, u32)); 2] = [("0.5", (1, 2)), ("1e-3", (1, 1000))];

fn row(name: &str, comp: Composition) -> Result<Record, String> {
    let acc = Accountant::new(comp, Options::default())?;
    let rho = acc.rho().to_f64();
    let mut r = Record::new();
    r.push("level", name);
    r.push("rho", format!("{rho:.6}"));
    let d = 12;
    for (s, (a, b)) in FPRS {
        let c = attack::tpr_at_fpr(&acc, &Rational::from((a, b)))?;
        r.push(&format!("tpr_at_fpr_{s}_lo"), fmt_down(c.lo(), d));
        r.push(&format!("tpr_at_fpr_{s}_hi"), fmt_up(c.hi(), d));
        r.push(&format!("tpr_at_fpr_{s}_bureau"), format!("{:.8}", 1.0 - attack::bureau_tradeoff(rho, a as f64 / b as f64)));
    }
    let adv = attack::advantage(&acc)?;
    r.push("advantage_lo", fmt_down(adv.lo(), d));
    r.push("advantage_hi", fmt_up(adv.hi(), d));
    r.push("advantage_bureau", format!("{:.8}", attack::bureau_advantage(rho)));
    for (s, (a, b)) in PRIORS {
        let c = attack::bayes_success(&acc, &Rational::from((a, b)))?;
        r.push(&format!("bayes_success_p{s}_lo"), fmt_down(c.lo(), d));
        r.push(&format!("bayes_success_p{s}_hi"), fmt_up(c.hi(), d));
        r.push(&format!("bayes_success_p{s}_bureau"), format!("{:.8}", attack::bureau_bayes_success(rho, a as f64 / b as f64)));
    }
    r.push("method", adv.engine().as_str());
    Ok(r)
}

/// One row per level of the allocation and one for all levels together.
pub fn attack_risk(alloc: &Allocation) -> Result<Vec<Record>, String> {
    let mut rows = Vec::new();
    for l in &alloc.levels {
        rows.push(row(&l.name, alloc.level_composition(l)?)?);
    }
    rows.push(row("all levels (overall)", alloc.composition()?)?);
    Ok(rows)
}
