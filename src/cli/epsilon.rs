//! `tightdp epsilon` and `tightdp delta`: parse, ask the accountant, render. The accountant's errors reach
//! `cli::run` typed (their kind sets the exit status); the argument helpers' messages are bad input.

use crate::account::{Certified, Method};
use crate::cli::common::{accountant, parse_delta, parse_epsilon, parse_list, resolve, Target, TargetArgs};
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::{render_blocks, render_csv, render_json_rows, Format, Record};
use clap::Args;
use rug::Float;

/// Significant digits of certified values in command output (the contract asks for ≥ 25).
pub const OUT_DIGITS: usize = 40;

#[derive(Args, Debug)]
pub struct EpsilonArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// δ in (0, 1), decimal or fraction; a comma list gives one result per value
    #[arg(long, value_name = "D[,D…]", allow_hyphen_values = true)]
    pub delta: String,
}

#[derive(Args, Debug)]
pub struct DeltaArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// ε ≥ 0, decimal or fraction; a comma list gives one result per value
    #[arg(long, value_name = "E[,E…]", allow_hyphen_values = true)]
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
pub fn push_certified(r: &mut Record, name: &str, c: &Certified, digits: usize, rho: Option<&rug::Rational>) {
    r.push("method", c.engine().as_str());
    r.push("trust", c.trust().as_str());
    // empty where a mechanism of the composition has no zCDP ρ
    r.push("rho", rho.map(|x| fmt_nearest(&Float::with_val(512, x), OUT_DIGITS)).unwrap_or_default());
    push_bracket(r, name, c, digits);
}

/// `name_lo`, `name_hi`, `name_width`, `digits`, `detail`, `note` of a certified bracket.
pub fn push_bracket(r: &mut Record, name: &str, c: &Certified, digits: usize) {
    let p = c.printed(digits);
    r.push(&format!("{name}_lo"), p.lo.clone());
    r.push(&format!("{name}_hi"), p.hi.clone());
    r.push(&format!("{name}_width"), fmt_up(&c.width(), 3));
    // the digits the printed ends support; "exact" for a point (e.g. f(1) = 0)
    r.push("digits", p.digits_field());
    if !c.detail().is_empty() {
        r.push("detail", c.detail());
    }
    if let Some(n) = c.note() {
        r.push("note", n);
    }
}

/// The CSV columns of `epsilon`, whatever the method (an empty cell where a field does not apply).
pub const EPSILON_COLUMNS: &[&str] =
    &["target", "neighbors", "method", "trust", "rho", "delta", "epsilon_lo", "epsilon_hi", "epsilon_width", "digits", "detail", "note"];

/// The CSV columns of `delta`: the certified bracket and its two terms, or an approximate estimate
/// (`delta`, `error_bound`) of the Fourier methods.
pub const DELTA_COLUMNS: &[&str] = &[
    "target",
    "neighbors",
    "method",
    "trust",
    "rho",
    "epsilon",
    "delta_lo",
    "delta_hi",
    "delta_width",
    "digits",
    "detail",
    "note",
    "first_term_lo",
    "first_term_hi",
    "second_term_lo",
    "second_term_hi",
    "delta",
    "error_bound",
];

/// One record per requested value: table blocks separated by a blank line, CSV with the command's fixed
/// columns, JSON an object (one value) or an array (several). One value renders as it always did.
pub fn render_values(rows: &[Record], format: Format, cols: &[&str]) -> Fallible<String> {
    Ok(match (format, rows) {
        (Format::Csv, _) => render_csv(&rows.iter().map(|r| r.with_columns(cols)).collect::<Result<Vec<_>, _>>()?),
        (Format::Table, _) => render_blocks(rows),
        (Format::Json, [one]) => one.render(Format::Json),
        (Format::Json, _) => render_json_rows(rows),
    })
}

pub fn run_epsilon(a: EpsilonArgs) -> Fallible<String> {
    let deltas = parse_list(&a.delta, "delta", parse_delta)?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let mut rows = Vec::new();
    for (text, delta) in &deltas {
        let e = acc.epsilon(delta)?;
        let mut r = header(&t);
        push_certified(&mut r, "epsilon", &e, out_digits(&a.target), acc.rho().as_ref());
        // keep the contract's order: δ before the bracket
        r.fields.insert(5, ("delta".into(), text.clone()));
        rows.push(r);
    }
    render_values(&rows, a.target.format, EPSILON_COLUMNS)
}

pub fn run_delta(a: DeltaArgs) -> Fallible<String> {
    let epsilons = parse_list(&a.epsilon, "epsilon", parse_epsilon)?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let mut rows = Vec::new();
    for (text, eps) in &epsilons {
        rows.push(delta_row(&a, &t, &acc, text, eps)?);
    }
    render_values(&rows, a.target.format, DELTA_COLUMNS)
}

fn delta_row(a: &DeltaArgs, t: &Target, acc: &crate::account::Accountant, text: &str, eps: &rug::Rational) -> Fallible<Record> {
    let mut r = header(t);
    if acc.options().method.is_approximate() {
        let pb = indicatif::ProgressBar::new(0);
        if acc.options().method == Method::Fourier {
            pb.set_style(
                indicatif::ProgressStyle::with_template("Boole rule [{bar:30}] {percent}% {elapsed_precise}")
                    .expect("invariant: static template"),
            );
        }
        let progress = |done: u64, total: u64| {
            pb.set_length(total);
            pb.set_position(done);
        };
        let d = acc.delta_estimate(eps, &progress);
        pb.finish_and_clear();
        let d = d?;
        r.push("method", d.engine.as_str());
        r.push("trust", "approximate");
        r.push("rho", acc.rho().map(|x| fmt_nearest(&Float::with_val(512, &x), OUT_DIGITS)).unwrap_or_default());
        r.push("epsilon", text);
        r.push("delta", format!("{:.17e}", d.value));
        r.push("error_bound", format!("{:.3e}", d.error_bound));
        r.push("detail", d.detail);
        r.push(
            "note",
            "approximate: the paper's error terms (under its approximations, docs/fourier-findings.md) plus a bound on the f64 rounding; not a certified bracket",
        );
        return Ok(r);
    }
    let d = acc.delta(eps)?;
    let digits = out_digits(&a.target);
    push_certified(&mut r, "delta", &d.delta, digits, acc.rho().as_ref());
    r.fields.insert(5, ("epsilon".into(), text.to_string()));
    if let (Some(f), Some(s)) = (&d.first, &d.second) {
        r.push("first_term_lo", fmt_down(f.lo(), digits));
        r.push("first_term_hi", fmt_up(f.hi(), digits));
        r.push("second_term_lo", fmt_down(s.lo(), digits));
        r.push("second_term_hi", fmt_up(s.hi(), digits));
    }
    Ok(r)
}
