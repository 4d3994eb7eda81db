//! `tightdp epsilon` and `tightdp delta`.

use crate::budget::zcdp;
use crate::cli::common::{parse_delta, parse_epsilon, resolve, Method, Target, TargetArgs};
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

/// The fields every epsilon/delta record starts with: what is accounted, how, and its exact ρ.
fn header(t: &Target, a: &TargetArgs) -> Record {
    let mut r = Record::new();
    r.push("target", t.label.clone());
    r.push("neighbors", t.neighbors.as_str());
    r.push("method", a.method.as_str());
    r.push("rho", fmt_nearest(&Float::with_val(a.prec.max(512), &t.rho()), OUT_DIGITS));
    r
}

/// Parameters of the smoothed inversion from the command line (--width).
fn smooth_params(a: &TargetArgs) -> Result<crate::fourier::smooth::SmoothParams, String> {
    let w = crate::cli::common::parse_width(&a.width)?;
    Ok(crate::fourier::smooth::SmoothParams { width: w, ..Default::default() })
}

pub fn run_epsilon(a: EpsilonArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let t = resolve(&a.target)?;
    let prec = a.target.prec;
    let rho = t.rho();
    let mut r = header(&t, &a.target);
    r.push("delta", a.delta.trim());
    if let Some(gs) = &a.target.grid {
        let g = crate::num::parse_positive_rational(gs, "grid")?;
        let e = crate::pld::grid::epsilon_by_grid(&t.groups, &g, &delta)?;
        r.fields[2].1 = "lattice-grid".into();
        r.push("grid", gs.trim());
        r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
        r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
        r.push("epsilon_width", fmt_up(&e.width(), 3));
        return Ok(r.render(a.target.format));
    }
    match a.target.method {
        Method::Lattice => {
            let prof = compose_groups(&t.groups, prec)?;
            let e = prof.epsilon(&delta)?;
            r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
            r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
            r.push("epsilon_width", fmt_up(&e.width(), 3));
            if e.width() > Float::with_val(64, &e.hi * 1e-9f64) {
                r.push("note", "certified but wide: the lattice window is too shallow for this delta/epsilon; raise --prec");
            }
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
        Method::Smoothed => {
            let p = smooth_params(&a.target)?;
            let e = crate::fourier::smooth::epsilon_smooth(&t.groups, &delta, &p)?;
            r.push("epsilon_lo", fmt_down(&e.lo, OUT_DIGITS));
            r.push("epsilon_hi", fmt_up(&e.hi, OUT_DIGITS));
            r.push("epsilon_width", format!("{:.3e}", e.width()));
            r.push("smoothing_w", format!("{:.3e}", e.w));
            r.push("tilt_c", format!("{:.6}", e.c));
            r.push("nodes", format!("{} ({} live)", e.nodes, e.live));
        }
        Method::Fourier | Method::FourierFast => {
            return Err(
                "the Fourier methods evaluate delta(epsilon); use `tightdp delta --method fourier`, or --method lattice for epsilon".into(),
            )
        }
    }
    Ok(r.render(a.target.format))
}

pub fn run_delta(a: DeltaArgs) -> Result<String, String> {
    let eps = parse_epsilon(&a.epsilon)?;
    if a.target.grid.is_some() {
        return Err("--grid applies to `tightdp epsilon` (a certified epsilon bracket)".into());
    }
    let t = resolve(&a.target)?;
    let prec = a.target.prec;
    let rho = t.rho();
    let mut r = header(&t, &a.target);
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
        Method::Fourier => {
            use crate::fourier::boole::{delta_fourier, BooleParams};
            let p = BooleParams::default();
            let pb = indicatif::ProgressBar::new(0);
            pb.set_style(indicatif::ProgressStyle::with_template("Boole rule [{bar:30}] {percent}% {elapsed_precise}").unwrap());
            let progress = |done: u64, total: u64| {
                pb.set_length(total);
                pb.set_position(done);
            };
            let d = delta_fourier(&t.groups, &eps, &p, &progress)?;
            pb.finish_and_clear();
            r.push("delta", format!("{:.17e}", d.delta));
            r.push("first_term", format!("{:.17e}", d.first.value));
            r.push("second_term", format!("{:.17e}", d.second));
            r.push("error_bound_paper", format!("{:.3e}", d.bound));
            r.push("error_terms_first", format!("{:?}", d.first.error_terms));
            r.push("n_points", d.first.n_points.to_string());
            r.push("note", "f64 quadrature; the paper's error terms exclude floating-point rounding (see docs/fourier-findings.md)");
        }
        Method::FourierFast => {
            use crate::fourier::fast::{delta_fast, FastParams};
            let p = FastParams { prec: Some(prec.min(256)), ..FastParams::default() };
            let d = delta_fast(&t.groups, &eps, &p)?;
            let (f, s2, dl) = d.mpfr.clone().unwrap();
            r.push("delta", fmt_nearest(&dl, 30));
            r.push("first_term", fmt_nearest(&f, 30));
            r.push("second_term", fmt_nearest(&s2, 30));
            r.push("error_bound", format!("{:.3e}", d.bound));
        }
        Method::Smoothed => {
            let mut p = smooth_params(&a.target)?;
            p.w.get_or_insert(1e-4);
            let d = crate::fourier::smooth::delta_smooth(&t.groups, &eps, &p)?;
            r.push("delta_lo", fmt_down(&d.lo, OUT_DIGITS));
            r.push("delta_hi", fmt_up(&d.hi, OUT_DIGITS));
            r.push("smoothing_w", format!("{:.3e}", d.w));
            r.push("tilt_c", format!("{:.6}", d.c));
            r.push("nodes", format!("{} ({} live)", d.nodes, d.live));
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
