//! `tightdp epsilon` and `tightdp delta`: parse, ask the accountant, render. The accountant's errors reach
//! `cli::run` typed (their kind sets the exit status); the argument helpers' messages are bad input.

use crate::account::{Certified, Method};
use crate::cli::common::{accountant, parse_delta, parse_epsilon, parse_list, resolve, Target, TargetArgs};
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::{columns, render_blocks, render_csv, render_json_rows, row, Format, Record};
use clap::Args;
use rug::Float;
use serde::Serialize;

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

/// A certified bracket as the rows print it: its ends to `digits` digits (outward), its width, the digits
/// the printed ends support ("exact" for a point, e.g. f(1) = 0), and the engine's detail and note.
pub struct BracketFields {
    pub lo: String,
    pub hi: String,
    pub width: String,
    pub digits: String,
    pub detail: Option<String>,
    pub note: Option<String>,
}

pub fn printed(c: &Certified, digits: usize) -> BracketFields {
    let p = c.printed(digits);
    BracketFields {
        lo: p.lo.clone(),
        hi: p.hi.clone(),
        width: fmt_up(&c.width(), 3),
        digits: p.digits_field(),
        detail: Some(c.detail().to_string()).filter(|d| !d.is_empty()),
        note: c.note().map(str::to_string),
    }
}

/// The composition's exact zCDP ρ as printed; empty where a mechanism of the composition has none.
pub fn rho_text(rho: Option<&rug::Rational>) -> String {
    rho.map(|x| fmt_nearest(&Float::with_val(512, x), OUT_DIGITS)).unwrap_or_default()
}

/// A row of `epsilon` (its fields are the CSV columns, in order).
#[derive(Serialize, Default)]
pub struct EpsilonRow {
    pub target: String,
    pub neighbors: String,
    pub method: String,
    pub trust: String,
    pub rho: String,
    pub delta: String,
    pub epsilon_lo: String,
    pub epsilon_hi: String,
    pub epsilon_width: String,
    pub digits: String,
    pub detail: Option<String>,
    pub note: Option<String>,
}

/// A certified row of `delta`, with δ's two terms where the engine has them.
#[derive(Serialize, Default)]
pub struct DeltaRow {
    pub target: String,
    pub neighbors: String,
    pub method: String,
    pub trust: String,
    pub rho: String,
    pub epsilon: String,
    pub delta_lo: String,
    pub delta_hi: String,
    pub delta_width: String,
    pub digits: String,
    pub detail: Option<String>,
    pub note: Option<String>,
    pub first_term_lo: Option<String>,
    pub first_term_hi: Option<String>,
    pub second_term_lo: Option<String>,
    pub second_term_hi: Option<String>,
}

/// An approximate row of `delta` (the Fourier methods): an estimate and the paper's error bound.
#[derive(Serialize)]
pub struct DeltaEstimateRow {
    pub target: String,
    pub neighbors: String,
    pub method: String,
    pub trust: &'static str,
    pub rho: String,
    pub epsilon: String,
    pub delta: String,
    pub error_bound: String,
    pub detail: String,
    pub note: &'static str,
}

/// The CSV columns of `delta`: the certified rows' and then the estimates' own (an empty cell where a field
/// does not apply).
pub fn delta_columns() -> Vec<String> {
    let mut cols = columns::<DeltaRow>();
    cols.extend(["delta".to_string(), "error_bound".to_string()]);
    cols
}

/// One record per requested value: table blocks separated by a blank line, CSV with the command's fixed
/// columns, JSON an object (one value) or an array (several). One value renders as it always did.
pub fn render_values(rows: &[Record], format: Format, cols: &[String]) -> Fallible<String> {
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
        let p = printed(&e, out_digits(&a.target));
        rows.push(row(&EpsilonRow {
            target: t.label.clone(),
            neighbors: t.comp.neighbors().as_str().into(),
            method: e.engine().as_str().into(),
            trust: e.trust().as_str().into(),
            rho: rho_text(acc.rho().as_ref()),
            delta: text.clone(),
            epsilon_lo: p.lo,
            epsilon_hi: p.hi,
            epsilon_width: p.width,
            digits: p.digits,
            detail: p.detail,
            note: p.note,
        })?);
    }
    render_values(&rows, a.target.format, &columns::<EpsilonRow>())
}

pub fn run_delta(a: DeltaArgs) -> Fallible<String> {
    let epsilons = parse_list(&a.epsilon, "epsilon", parse_epsilon)?;
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let mut rows = Vec::new();
    for (text, eps) in &epsilons {
        rows.push(delta_row(&a, &t, &acc, text, eps)?);
    }
    render_values(&rows, a.target.format, &delta_columns())
}

fn delta_row(a: &DeltaArgs, t: &Target, acc: &crate::account::Accountant, text: &str, eps: &rug::Rational) -> Fallible<Record> {
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
        return row(&DeltaEstimateRow {
            target: t.label.clone(),
            neighbors: t.comp.neighbors().as_str().into(),
            method: d.engine.as_str().into(),
            trust: "approximate",
            rho: rho_text(acc.rho().as_ref()),
            epsilon: text.into(),
            delta: format!("{:.17e}", d.value),
            error_bound: format!("{:.3e}", d.error_bound),
            detail: d.detail,
            note: "approximate: the paper's error terms (under its approximations, docs/fourier-findings.md) plus a bound on the f64 rounding; not a certified bracket",
        });
    }
    let d = acc.delta(eps)?;
    let digits = out_digits(&a.target);
    let p = printed(&d.delta, digits);
    let terms = d.first.as_ref().zip(d.second.as_ref());
    row(&DeltaRow {
        target: t.label.clone(),
        neighbors: t.comp.neighbors().as_str().into(),
        method: d.delta.engine().as_str().into(),
        trust: d.delta.trust().as_str().into(),
        rho: rho_text(acc.rho().as_ref()),
        epsilon: text.into(),
        delta_lo: p.lo,
        delta_hi: p.hi,
        delta_width: p.width,
        digits: p.digits,
        detail: p.detail,
        note: p.note,
        first_term_lo: terms.map(|(f, _)| fmt_down(f.lo(), digits)),
        first_term_hi: terms.map(|(f, _)| fmt_up(f.hi(), digits)),
        second_term_lo: terms.map(|(_, s)| fmt_down(s.lo(), digits)),
        second_term_hi: terms.map(|(_, s)| fmt_up(s.hi(), digits)),
    })
}
