//! results/attack-risk.csv: what an attacker can do per geolevel and overall (src/attack), the exact
//! certified measures next to those the Bureau's zCDP accounting allows.

use crate::account::{Accountant, Options};
use crate::attack;
use crate::calibrate::Calibration;
use crate::census::Allocation;
use crate::error::Fallible;
use crate::model::Composition;
use crate::num::format::{fmt_down, fmt_up};
use crate::record::Record;
use crate::{err, fallible};
use rug::Rational;

const FPRS: [(&str, (u32, u32)); 3] = [("1e-4", (1, 10000)), ("1e-3", (1, 1000)), ("1e-2", (1, 100))];
const PRIORS: [(&str, (u32, u32)); 2] = [("0.5", (1, 2)), ("1e-3", (1, 1000))];

fn row(name: &str, comp: Composition, reduced: Composition) -> Fallible<Record> {
    let acc = Accountant::new(comp, Options::default())?;
    let rho = acc.rho_required()?.to_f64();
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
    // the same attacker against the reduced noise of the paper's Table 1 (exact ε(1e-11) = the Bureau's ε,
    // per level; the low end of the certified variance factor, so these are upper ends of the risk)
    let acc = Accountant::new(reduced, Options::default())?;
    for (s, (a, b)) in FPRS {
        let c = attack::tpr_at_fpr(&acc, &Rational::from((a, b)))?;
        r.push(&format!("tpr_at_fpr_{s}_reduced_hi"), fmt_up(c.hi(), d));
    }
    r.push("advantage_reduced_hi", fmt_up(attack::advantage(&acc)?.hi(), d));
    r.push("method", adv.engine().as_str());
    Ok(r)
}

/// Working precision of the Table 1 calibrations of the levels.
pub const TABLE1_PREC: u32 = 256;

/// The Table 1 variance factor of a level (the low end of its certified bracket): exact ε(1e-11) equal to
/// the Bureau's ε = ρ + 2√(ρ log 1/δ) at the published noise ([SSW24, §3.2]).
fn table1_groups(alloc: &Allocation, l: &crate::census::Level) -> Fallible<Vec<crate::model::GaussGroup>> {
    let groups = alloc.level_mechanisms(l);
    let delta = Rational::from((1, 100_000_000_000u64));
    let target = crate::budget::zcdp::eps_bs(&l.rho, &delta, TABLE1_PREC).mid();
    let br = crate::calibrate::calibrate_factor(&groups, &delta, &target, 128, TABLE1_PREC, crate::app::calibration::REL_WIDTH)?;
    Ok(crate::calibrate::scale_groups(&groups, &br.lo))
}

fn shifts(groups: &[crate::model::GaussGroup]) -> Fallible<Composition> {
    Composition::new(groups.iter().map(crate::model::Group::from).collect(), crate::model::Neighbors::AddRemove)
}

/// One row per level of the allocation and one for all levels together, with the levels' Table 1 factor
/// brackets when they are at hand: those of
/// `app::calibration::level_brackets` at δ = 1e-11, the Bureau's ε (`Conversion::ZcdpBs`) and
/// [`TABLE1_PREC`] bits, one per level in order — the calibrations [`table1_groups`] would repeat (`reproduce`
/// computes them for table1-calibration.csv).
pub fn attack_risk_with(alloc: &Allocation, table1: Option<&[Calibration]>) -> Fallible<Vec<Record>> {
    if table1.is_some_and(|t| t.len() != alloc.levels.len()) {
        return fallible!(Internal, "one Table 1 bracket per level expected");
    }
    let mut rows = Vec::new();
    for (i, l) in alloc.levels.iter().enumerate() {
        let reduced = match table1 {
            Some(t) => crate::calibrate::scale_groups(&alloc.level_mechanisms(l), &t[i].lo),
            None => table1_groups(alloc, l)?,
        };
        rows.push(row(&l.name, alloc.level_composition(l)?, shifts(&reduced)?)?);
    }
    // overall: the per-level Table 1 variances share no practical lattice, so the overall row takes the
    // paper's other rule (§3.3): one factor on all variances keeping the overall Bureau ε at 1e-11
    let all = alloc.all_mechanisms();
    let delta = Rational::from((1, 100_000_000_000u64));
    let target =
        crate::budget::zcdp::eps_bs(&alloc.total_rho(), &delta, 256).mid().to_rational().ok_or_else(|| err!(Input, "non-finite target"))?;
    let br = crate::calibrate::calibrate_uniform(&all, &delta, &target, false, 256, crate::app::calibration::REL_WIDTH)?;
    rows.push(row("all levels (overall)", alloc.composition()?, shifts(&crate::calibrate::scale_groups(&all, &br.lo))?)?);
    Ok(rows)
}
