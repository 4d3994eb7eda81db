//! `tightdp epsilon` and `tightdp delta`: parse, ask the accountant, render.

use crate::account::{Certified, Method};
use crate::cli::common::{accountant, parse_delta, parse_epsilon, resolve, Target, TargetArgs};
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::Record;
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

/// Digits printed for the ends of a bracket: at least OUT_DIGITS, more when more were asked.
pub fn out_digits(a: &TargetArgs) -> usize {
    OUT_DIGITS.max(a.digits as usize + 5)
}

/// The fields every epsilon/delta record starts with: what is accounted and its exact ρ.
pub fn header(t: &Target) -> Record {
    let mut r = Record::new();
    r.push("target", t.label.clone());
    r.push("neighbors", t.comp.neighbors().as_str());
    r
}

/// method, trust, ρ; then the bracket `name_lo`, `name_hi`, its width and digits; then detail and note.
pub fn push_certified(r: &mut Record, name: &str, c: &Certified, digits: usize, rho: &rug::Rational) {
    r.push("method", c.engine().as_str());
    r.push("trust", c.trust().as_str());
    r.push("rho", fmt_nearest(&Float::with_val(512, rho), OUT_DIGITS));
    push_bracket(r, name, c, digits);
}

/// `name_lo`, `name_hi`, `name_width`, `digits`, `detail`, `note` of a certified bracket.
pub fn push_bracket(r: &mut Record, name: &str, c: &Certified, digits: usize) {
    r.push(&format!("{name}_lo"), fmt_down(c.lo(), digits));
    r.push(&format!("{name}_hi"), fmt_up(c.hi(), digits));
    r.push(&format!("{name}_width"), fmt_up(&c.width(), 3));
    // a zero-width bracket is the exact value (e.g. f(1) = 0)
    r.push("digits", if c.lo() == c.hi() { "exact".to_string() } else { c.digits().to_string() });
    if !c.detail().is_empty() {
        r.push("detail", c.detail());
    }
    if let Some(n) = c.note() {
        r.push("note", n);
    }
}

pub fn run_epsilon(a: EpsilonArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let e = acc.epsilon(&delta)?;
    let mut r = header(&t);
    push_certified(&mut r, "epsilon", &e, out_digits(&a.target), &acc.rho());
    // keep the contract's order: δ before the bracket
    r.fields.insert(5, ("delta".into(), a.delta.trim().to_string()));
    Ok(r.render(a.target.format))
}

pub fn run_delta(a: DeltaArgs) -> Result<String, String> {
    let eps = parse_epsilon(&a.epsilon)?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let mut r = header(&t);
    if acc.options().method.is_approximate() {
        let pb = indicatif::ProgressBar::new(0);
        if acc.options().method == Method::Fourier {
            pb.set_style(
                indicatif::ProgressStyle::with_template("Boole rule [{bar:30}] {percent}% {elapsed_precise}").expect("static template"),
            );
        }
        let progress = |done: u64, total: u64| {
            pb.set_length(total);
            pb.set_position(done);
        };
        let d = acc.delta_estimate(&eps, &progress);
        pb.finish_and_clear();
        let d = d?;
        r.push("method", d.engine.as_str());
        r.push("trust", "approximate");
        r.push("rho", fmt_nearest(&Float::with_val(512, &acc.rho()), OUT_DIGITS));
        r.push("epsilon", a.epsilon.trim());
        r.push("delta", format!("{:.17e}", d.value));
        r.push("error_bound", format!("{:.3e}", d.error_bound));
        r.push("detail", d.detail);
        r.push("note", "not certified: f64 quadrature whose error terms exclude floating-point rounding (docs/fourier-findings.md)");
        return Ok(r.render(a.target.format));
    }
    let d = acc.delta(&eps)?;
    let digits = out_digits(&a.target);
    push_certified(&mut r, "delta", &d.delta, digits, &acc.rho());
    r.fields.insert(5, ("epsilon".into(), a.epsilon.trim().to_string()));
    if let (Some(f), Some(s)) = (&d.first, &d.second) {
        r.push("first_term_lo", fmt_down(&f.lo, digits));
        r.push("first_term_hi", fmt_up(&f.hi, digits));
        r.push("second_term_lo", fmt_down(&s.lo, digits));
        r.push("second_term_hi", fmt_up(&s.hi, digits));
    }
    Ok(r.render(a.target.format))
}
