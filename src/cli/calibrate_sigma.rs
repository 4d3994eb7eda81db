//! `tightdp calibrate --mech …sigma=?…`: the DP-SGD noise multiplier that meets a target ε at δ, or an
//! attack target (`--target-advantage`, `--target-tpr` at `--at-fpr`), certified both ways
//! (`calibrate::sigma`); `…n=?…`: the largest number of steps that meets it (`calibrate::steps`); `…q=?…`:
//! the largest sampling rate (`calibrate::rate`); `expmech:epsilon=?`: the largest ε of an exponential
//! mechanism (`calibrate::mech_epsilon`).

use crate::account::{Certified, Options, Trust};
use crate::calibrate::hole::Hole;
use crate::calibrate::mech_epsilon::{largest_epsilon, EpsilonHole};
use crate::calibrate::rate::{largest_rate, RateHole};
use crate::calibrate::sigma::{smallest_sigma, SigmaHole};
use crate::calibrate::steps::{largest_steps, StepsHole};
use crate::calibrate::target::CalibrationTarget as Target;
use crate::cli::common::parse_delta;
use crate::cli::epsilon::OUT_DIGITS;
use crate::error::Fallible;
use crate::fallible;
use crate::model::Neighbors;
use crate::num::format::{fmt_down, fmt_up};
use crate::num::parse_rational;
use crate::record::{render_rows, Format, Record};
use rug::Rational;

/// The columns of `calibrate --mech`.
pub const COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "delta",
    "target_epsilon",
    "resolution",
    "sigma",
    "epsilon_lo",
    "epsilon_hi",
    "sigma_below",
    "epsilon_below_lo",
    "epsilon_below_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech …,n=?`: the largest number of steps meeting the target.
pub const STEPS_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "delta",
    "target_epsilon",
    "n",
    "epsilon_lo",
    "epsilon_hi",
    "n_above",
    "epsilon_above_lo",
    "epsilon_above_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech …sigma=?` with an attack target: `measure` names it (`advantage`,
/// `tpr_at_fpr_F`), `target_value` is its bound.
pub const ATTACK_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "measure",
    "target_value",
    "resolution",
    "sigma",
    "measure_lo",
    "measure_hi",
    "sigma_below",
    "measure_below_lo",
    "measure_below_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech …,n=?` with an attack target.
pub const ATTACK_STEPS_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "measure",
    "target_value",
    "n",
    "measure_lo",
    "measure_hi",
    "n_above",
    "measure_above_lo",
    "measure_above_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech …,q=?`: the largest sampling rate meeting the target.
pub const RATE_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "delta",
    "target_epsilon",
    "resolution",
    "q",
    "epsilon_lo",
    "epsilon_hi",
    "q_above",
    "epsilon_above_lo",
    "epsilon_above_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech …,q=?` with an attack target.
pub const ATTACK_RATE_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "measure",
    "target_value",
    "resolution",
    "q",
    "measure_lo",
    "measure_hi",
    "q_above",
    "measure_above_lo",
    "measure_above_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech expmech:epsilon=?,…`: the largest ε of the exponential mechanism
/// (`mech_epsilon`) meeting the target.
pub const EXPMECH_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "delta",
    "target_epsilon",
    "resolution",
    "mech_epsilon",
    "epsilon_lo",
    "epsilon_hi",
    "mech_epsilon_above",
    "epsilon_above_lo",
    "epsilon_above_hi",
    "method",
    "trust",
    "probes",
];

/// The columns of `calibrate --mech expmech:epsilon=?,…` with an attack target.
pub const ATTACK_EXPMECH_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "measure",
    "target_value",
    "resolution",
    "mech_epsilon",
    "measure_lo",
    "measure_hi",
    "mech_epsilon_above",
    "measure_above_lo",
    "measure_above_hi",
    "method",
    "trust",
    "probes",
];

/// An exact decimal string of `x`, a multiple of `res` (as many decimals as the resolution has).
fn decimal_of(x: &Rational, res: &str) -> String {
    let places = res.trim().split_once('.').map(|(_, f)| f.trim_end_matches(|c: char| !c.is_ascii_digit()).len()).unwrap_or(0);
    let scaled = Rational::from(x * rug::Integer::from(rug::Integer::u_pow_u(10, places as u32)));
    if *scaled.denom() != 1 {
        return format!("{}/{}", x.numer(), x.denom());
    }
    let digits = scaled.numer().to_string();
    if places == 0 {
        return digits;
    }
    let digits = format!("{digits:0>width$}", width = places + 1);
    format!("{}.{}", &digits[..digits.len() - places], &digits[digits.len() - places..])
}

/// What `calibrate --mech` reads: the terms, their relation, the target (δ and ε, or an attack target),
/// the resolution, the format.
pub struct SigmaArgs<'a> {
    pub mech: &'a [String],
    pub neighbors: Option<&'a str>,
    pub delta: Option<&'a str>,
    pub target_epsilon: Option<&'a str>,
    pub target_advantage: Option<&'a str>,
    pub target_tpr: Option<&'a str>,
    pub at_fpr: Option<&'a str>,
    pub resolution: &'a str,
    pub format: Format,
}

pub fn run(a: &SigmaArgs) -> Fallible<String> {
    Ok(render_rows(&[record(a)?], a.format))
}

/// The refusal of no target, or of two.
const ONE_TARGET: &str = "give one target: --target-epsilon, --target-advantage, or --target-tpr with --at-fpr";

/// The target asked, checked: ε at δ, or one attack target (then without --delta, which it does not use).
fn target(a: &SigmaArgs) -> Fallible<Target> {
    let num = |s: &str, what: &str| parse_rational(s).map_err(|e| e.context(what));
    let attack = match (a.target_advantage, a.target_tpr, a.at_fpr) {
        (Some(v), None, None) => Some(Target::Advantage(num(v, "target-advantage")?)),
        (None, Some(t), Some(f)) => Some(Target::Tpr { tpr: num(t, "target-tpr")?, fpr: num(f, "at-fpr")? }),
        (None, Some(_), None) => return fallible!(Input, "--target-tpr needs --at-fpr (the false-positive rate it is measured at)"),
        (None, None, Some(_)) => return fallible!(Input, "--at-fpr goes with --target-tpr"),
        (None, None, None) => None,
        _ => return fallible!(Input, "{ONE_TARGET}"),
    };
    let t = match attack {
        Some(t) => {
            if a.target_epsilon.is_some() {
                return fallible!(Input, "{ONE_TARGET}");
            }
            if a.delta.is_some() {
                return fallible!(
                    Input,
                    "--delta goes with --target-epsilon; an attack target (--target-advantage, --target-tpr) does not use it"
                );
            }
            t
        }
        None => {
            let delta = parse_delta(a.delta.ok_or_else(|| crate::err!(Input, "calibrate --mech needs --delta"))?)?;
            let eps = match a.target_epsilon {
                Some(s) => parse_rational(s).map_err(|e| e.context("target-epsilon"))?,
                None => return fallible!(
                    Input,
                    "calibrate --mech needs a target: --target-epsilon (the epsilon to meet at --delta), --target-advantage, or --target-tpr with --at-fpr"
                ),
            };
            if eps <= 0 {
                return fallible!(Input, "target-epsilon must be positive, got '{}'", a.target_epsilon.unwrap_or(""));
            }
            Target::Epsilon { delta, eps }
        }
    };
    t.check()?;
    Ok(t)
}

/// The calibrated σ (or number of steps) and its certificate, as one row of [`COLUMNS`] ([`STEPS_COLUMNS`];
/// [`ATTACK_COLUMNS`], [`ATTACK_STEPS_COLUMNS`] for an attack target) — also the Python package's answer.
pub fn record(a: &SigmaArgs) -> Fallible<Record> {
    let t = target(a)?;
    let nb = a.neighbors.map(Neighbors::parse).transpose()?.unwrap_or(Neighbors::AddRemove);
    if a.mech.iter().any(|t| Hole::keys(t).contains(&"n=?")) {
        return steps_record(a, nb, &t);
    }
    let res = parse_rational(a.resolution).map_err(|e| e.context("resolution"))?;
    if res <= 0 || res > 1 {
        return fallible!(Input, "--resolution must be in (0, 1], got '{}'", a.resolution);
    }
    if a.mech.iter().any(|t| Hole::keys(t).contains(&"q=?")) {
        return rate_record(a, nb, &t, &res);
    }
    if a.mech.iter().any(|t| Hole::keys(t).contains(&"epsilon=?")) {
        return expmech_record(a, nb, &t, &res);
    }
    let hole = SigmaHole::parse(a.mech, nb)?;
    let fit = smallest_sigma(&hole, &t, &res, &Options::default())?;
    let (name, cols) = if matches!(t, Target::Epsilon { .. }) { ("epsilon", COLUMNS) } else { ("measure", ATTACK_COLUMNS) };
    let mut r = question(a, nb);
    r.push("resolution", a.resolution.trim().to_string());
    r.push("sigma", decimal_of(&fit.sigma, a.resolution));
    push_bracket(&mut r, name, &fit.measure);
    r.push("sigma_below", decimal_of(&fit.below, a.resolution));
    push_bracket(&mut r, &format!("{name}_below"), &fit.measure_below);
    r.push("method", fit.measure.engine().as_str());
    r.push("trust", trust(&fit.measure, &fit.measure_below));
    r.push("probes", fit.probes.to_string());
    r.with_columns(cols)
}

/// The columns both calibrations open with: what was asked.
fn question(a: &SigmaArgs, nb: Neighbors) -> Record {
    let mut r = Record::new();
    r.push("target", a.mech.join(" + "));
    r.push("neighbors", nb.as_str());
    match (a.target_advantage, a.target_tpr, a.at_fpr) {
        (Some(v), _, _) => r.push("measure", "advantage").push("target_value", v.trim().to_string()),
        (_, Some(t), Some(f)) => r.push("measure", format!("tpr_at_fpr_{}", f.trim())).push("target_value", t.trim().to_string()),
        _ => r
            .push("delta", a.delta.unwrap_or("").trim().to_string())
            .push("target_epsilon", a.target_epsilon.unwrap_or("").trim().to_string()),
    };
    r
}

/// The trust of the two certified measures of a calibration: `certified-bound` when either bounds the
/// guarantee from above (fixed-size batches: the returned value meets the target, and the next one's
/// *bound* misses it, which does not show that the mechanism misses it), `certified` otherwise.
fn trust(a: &Certified, b: &Certified) -> &'static str {
    if a.trust() == Trust::Bound || b.trust() == Trust::Bound {
        Trust::Bound.as_str()
    } else {
        Trust::Exact.as_str()
    }
}

/// `{name}_lo` and `{name}_hi`: a certified ε bracket, rounded outward.
fn push_bracket(r: &mut Record, name: &str, c: &Certified) {
    r.push(&format!("{name}_lo"), fmt_down(c.lo(), OUT_DIGITS));
    r.push(&format!("{name}_hi"), fmt_up(c.hi(), OUT_DIGITS));
}

/// The largest number of steps meeting the target, and its certificate, as one row of [`STEPS_COLUMNS`]
/// ([`ATTACK_STEPS_COLUMNS`] for an attack target).
fn steps_record(a: &SigmaArgs, nb: Neighbors, t: &Target) -> Fallible<Record> {
    let hole = StepsHole::parse(a.mech, nb)?;
    let fit = largest_steps(&hole, t, &Options::default())?;
    let (name, cols) = if matches!(t, Target::Epsilon { .. }) { ("epsilon", STEPS_COLUMNS) } else { ("measure", ATTACK_STEPS_COLUMNS) };
    let mut r = question(a, nb);
    r.push("n", fit.n.to_string());
    push_bracket(&mut r, name, &fit.measure);
    r.push("n_above", (fit.n + 1).to_string());
    push_bracket(&mut r, &format!("{name}_above"), &fit.measure_above);
    r.push("method", fit.measure.engine().as_str());
    r.push("trust", trust(&fit.measure, &fit.measure_above));
    r.push("probes", fit.probes.to_string());
    r.with_columns(cols)
}

/// The largest sampling rate meeting the target, and its certificate, as one row of [`RATE_COLUMNS`]
/// ([`ATTACK_RATE_COLUMNS`] for an attack target).
fn rate_record(a: &SigmaArgs, nb: Neighbors, t: &Target, res: &Rational) -> Fallible<Record> {
    let hole = RateHole::parse(a.mech, nb)?;
    let fit = largest_rate(&hole, t, res, &Options::default())?;
    let cols = if matches!(t, Target::Epsilon { .. }) { RATE_COLUMNS } else { ATTACK_RATE_COLUMNS };
    let found = Found { key: "q", value: &fit.q, above: &fit.above, measure: &fit.measure, measure_above: &fit.measure_above };
    lattice_record(a, nb, t, &found, fit.probes, cols)
}

/// The largest ε of the exponential mechanism meeting the target, and its certificate, as one row of
/// [`EXPMECH_COLUMNS`] ([`ATTACK_EXPMECH_COLUMNS`] for an attack target).
fn expmech_record(a: &SigmaArgs, nb: Neighbors, t: &Target, res: &Rational) -> Fallible<Record> {
    let hole = EpsilonHole::parse(a.mech, nb)?;
    let fit = largest_epsilon(&hole, t, res, &Options::default())?;
    let cols = if matches!(t, Target::Epsilon { .. }) { EXPMECH_COLUMNS } else { ATTACK_EXPMECH_COLUMNS };
    let found =
        Found { key: "mech_epsilon", value: &fit.epsilon, above: &fit.above, measure: &fit.measure, measure_above: &fit.measure_above };
    lattice_record(a, nb, t, &found, fit.probes, cols)
}

/// The answer of a search for the largest value on a resolution: the value (column `key`) and one step above
/// it (`key_above`), with their certified measures.
struct Found<'a> {
    key: &'a str,
    value: &'a Rational,
    above: &'a Rational,
    measure: &'a Certified,
    measure_above: &'a Certified,
}

/// One row of a search for the largest value on a resolution (the sampling rate, the exponential
/// mechanism's ε): what was asked, the value and its measure, one step above and its measure, the method,
/// trust and probes.
fn lattice_record(a: &SigmaArgs, nb: Neighbors, t: &Target, f: &Found, probes: usize, cols: &[&str]) -> Fallible<Record> {
    let name = if matches!(t, Target::Epsilon { .. }) { "epsilon" } else { "measure" };
    let mut r = question(a, nb);
    r.push("resolution", a.resolution.trim().to_string());
    r.push(f.key, decimal_of(f.value, a.resolution));
    push_bracket(&mut r, name, f.measure);
    r.push(&format!("{}_above", f.key), decimal_of(f.above, a.resolution));
    push_bracket(&mut r, &format!("{name}_above"), f.measure_above);
    r.push("method", f.measure.engine().as_str());
    r.push("trust", trust(f.measure, f.measure_above));
    r.push("probes", probes.to_string());
    r.with_columns(cols)
}
