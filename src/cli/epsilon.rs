//! `tightdp epsilon` and `tightdp delta`.

use crate::budget::zcdp;
use crate::cli::common::{parse_delta, parse_epsilon, resolve, Method, TargetArgs};
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::pld::compose_groups;
use crate::report::Record;
use clap::Args;
use rug::Float;

/// Significant digits of certified values in command output (the contract asks for ≥ 25).
pub const OUT_DIGITS: usize = 40;

#[derive(Args, Debug)]
pub struct EpsilonArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// δ in (0, 1), decimal or fraction
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
}

#[derive(Args, Debug)]
pub struct DeltaArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// ε ≥ 0, decimal or fraction
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub epsilon: String,
}

pub fn run_epsilon(a: EpsilonArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let t = resolve(&a.target)?;
    let prec = a.target.prec;
    let rho = t.rho();
    let mut r = Record::new();
    r.push("target", t.label.clone());
    r.push("neighbors", t.neighbors.as_str());
    r.push("method", a.target.method.as_str());
    r.push("rho", fmt_nearest(&Float::with_val(prec, &rho), OUT_DIGITS));
    r.push("delta", a.delta.trim());
    match a.target.method {
        Method::Lattice => {
            let prof = compose_groups(&t.groups, prec)?;
            let e = prof.epsilon(&delta)?;
            r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
            r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
            r.push("epsilon_width", fmt_up(&e.width(), 3));
        }
        Method::ZcdpBs => {
            let e = zcdp::eps_bs(&rho, &delta, prec);
            r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
            r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
        }
        Method::ZcdpCks => {
            let (e, alpha) = zcdp::eps_cks(&rho, &delta, prec);
            r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
            r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
            r.push("alpha", fmt_nearest(&alpha, 20));
        }
    }
    Ok(r.render(a.target.format))
}

pub fn run_delta(a: DeltaArgs) -> Result<String, String> {
    let eps = parse_epsilon(&a.epsilon)?;
    let t = resolve(&a.target)?;
    let prec = a.target.prec;
    let rho = t.rho();
    let mut r = Record::new();
    r.push("target", t.label.clone());
    r.push("neighbors", t.neighbors.as_str());
    r.push("method", a.target.method.as_str());
    r.push("rho", fmt_nearest(&Float::with_val(prec, &rho), OUT_DIGITS));
    r.push("epsilon", a.epsilon.trim());
    match a.target.method {
        Method::Lattice => {
            let prof = compose_groups(&t.groups, prec)?;
            let d = prof.delta(&eps);
            let lo = if d.delta.lo < 0 { Float::with_val(prec, 0) } else { d.delta.lo.clone() };
            r.push("delta_lo", fmt_down(&lo, OUT_DIGITS));
            r.push("delta_hi", fmt_up(&d.delta.hi, OUT_DIGITS));
            r.push("first_term_lo", fmt_down(&d.first.lo, OUT_DIGITS));
            r.push("first_term_hi", fmt_up(&d.first.hi, OUT_DIGITS));
            r.push("second_term_lo", fmt_down(&d.second.lo, OUT_DIGITS));
            r.push("second_term_hi", fmt_up(&d.second.hi, OUT_DIGITS));
        }
        Method::ZcdpBs => {
            let d = zcdp::delta_bs(&rho, &eps, prec);
            r.push("delta_lo", fmt_down(&d.lo, OUT_DIGITS));
            r.push("delta_hi", fmt_up(&d.hi, OUT_DIGITS));
        }
        Method::ZcdpCks => {
            let (d, alpha) = zcdp::delta_cks(&rho, &eps, prec);
            r.push("delta_lo", fmt_down(&d.lo, OUT_DIGITS));
            r.push("delta_hi", fmt_up(&d.hi, OUT_DIGITS));
            r.push("alpha", fmt_nearest(&alpha, 20));
        }
    }
    Ok(r.render(a.target.format))
}
