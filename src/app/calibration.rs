//! Per-level and uniform calibration rows (`tightdp calibrate`, the paper's Table 1): the certified
//! largest variance reduction whose exact ε matches the zCDP-implied target.

use crate::budget::zcdp;
use crate::calibrate::{calibrate_factor, Calibration};
use crate::census::Allocation;
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::Record;
use rug::{Float, Rational};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Conversion {
    /// ε = ρ + 2√(ρ log 1/δ) (the Bureau's)
    ZcdpBs,
    /// Canonne–Kamath–Steinke optimal conversion
    ZcdpCks,
}

pub const REL_WIDTH: f64 = 1e-12;

fn target_for(rho: &Rational, delta: &Rational, conv: Conversion, explicit: &Option<Rational>, prec: u32) -> Float {
    if let Some(t) = explicit {
        return Float::with_val(prec, t);
    }
    match conv {
        Conversion::ZcdpBs => zcdp::eps_bs(rho, delta, prec).mid(),
        Conversion::ZcdpCks => zcdp::eps_cks(rho, delta, prec).0.mid(),
    }
}

/// The published variance of a calibrated set of queries, for the σ² columns of a row.
#[derive(Clone, Copy, Debug)]
pub enum Sigma2<'a> {
    /// one variance for all queries: published and reduced σ² printed
    One(&'a Rational),
    /// several variances (a level with `query_shares` or `query_rho`): the factor applies to each;
    /// `sigma2_published` says "heterogeneous", the reduced σ² cells that the factor applies to each
    Heterogeneous,
    /// all levels together (the uniform factor): the σ² cells point to the per-level rows that follow
    Overall,
}

impl<'a> Sigma2<'a> {
    /// The σ² columns of the groups of one level.
    pub fn of(groups: &'a [crate::model::GaussGroup]) -> Sigma2<'a> {
        if groups.len() == 1 {
            Sigma2::One(&groups[0].sigma2)
        } else {
            Sigma2::Heterogeneous
        }
    }

    /// `{prefix}_published`, `{prefix}_{reduced}_lo`, `{prefix}_{reduced}_hi`: always these three cells, in
    /// this order (empty where they do not apply), so every row of a table has the same columns.
    pub fn push(&self, r: &mut Record, reduced: &str, br: &Calibration, digits: usize) {
        let (p, lo, hi) = match self {
            Sigma2::One(s2) => (
                fmt_nearest(&Float::with_val(256, *s2), 12),
                fmt_down(&Float::with_val(256, Rational::from(*s2 * &br.lo)), digits),
                fmt_up(&Float::with_val(256, Rational::from(*s2 * &br.hi)), digits),
            ),
            Sigma2::Heterogeneous => ("heterogeneous".to_string(), "each query's x factor".into(), "each query's x factor".into()),
            Sigma2::Overall => ("per level (rows below)".to_string(), "per level (rows below)".into(), "per level (rows below)".into()),
        };
        r.push("sigma2_published", p);
        r.push(&format!("sigma2_{reduced}_lo"), lo);
        r.push(&format!("sigma2_{reduced}_hi"), hi);
    }
}

/// The columns of `calibrate` (ε target), per level or uniform.
pub const COLUMNS: &[&str] = &[
    "level",
    "target_epsilon",
    "sigma2_published",
    "sigma2_reduced_lo",
    "sigma2_reduced_hi",
    "factor_lo",
    "factor_hi",
    "reduction_percent_lo",
    "reduction_percent_hi",
];

/// The factor bracket's columns, after the σ² columns when `base` is given (one published variance).
pub fn push_bracket(r: &mut Record, base: Option<&Rational>, br: &Calibration) {
    if let Some(s2) = base {
        Sigma2::One(s2).push(r, "reduced", br, 20);
    }
    push_factor(r, br);
}

/// factor_lo/hi and reduction_percent_lo/hi of a factor bracket.
fn push_factor(r: &mut Record, br: &Calibration) {
    r.push("factor_lo", fmt_down(&Float::with_val(256, &br.lo), 20));
    r.push("factor_hi", fmt_up(&Float::with_val(256, &br.hi), 20));
    // reduction = 1 − factor (in percent): the hi factor gives the low reduction.
    let red_lo = Float::with_val(256, 1 - Rational::from(&br.hi)) * 100u32;
    let red_hi = Float::with_val(256, 1 - Rational::from(&br.lo)) * 100u32;
    r.push("reduction_percent_lo", fmt_down(&red_lo, 16));
    r.push("reduction_percent_hi", fmt_up(&red_hi, 16));
}

/// Per-level calibration rows (Table 1 of [SSW24] for the 2022-08-25 file).
pub fn level_rows(alloc: &Allocation, delta: &Rational, conv: Conversion, explicit: &Option<Rational>, prec: u32) -> Fallible<Vec<Record>> {
    Ok(rows_of_brackets(alloc, &level_brackets(alloc, delta, conv, explicit, prec)?))
}

/// The per-level calibrations behind [`level_rows`]: (target ε, certified factor bracket) per level.
pub fn level_brackets(
    alloc: &Allocation,
    delta: &Rational,
    conv: Conversion,
    explicit: &Option<Rational>,
    prec: u32,
) -> Fallible<Vec<(Float, Calibration)>> {
    alloc
        .levels
        .iter()
        .map(|level| {
            let groups = alloc.level_mechanisms(level);
            let target = target_for(&level.rho, delta, conv, explicit, prec);
            let br = calibrate_factor(&groups, delta, &target, 128, prec, REL_WIDTH)?;
            Ok((target, br))
        })
        .collect()
}

/// The rows of [`level_rows`] from its brackets.
pub fn rows_of_brackets(alloc: &Allocation, brackets: &[(Float, Calibration)]) -> Vec<Record> {
    let mut rows = Vec::new();
    for (level, (target, br)) in alloc.levels.iter().zip(brackets) {
        let groups = alloc.level_mechanisms(level);
        let mut r = Record::new();
        r.push("level", level.name.clone());
        r.push("target_epsilon", fmt_nearest(target, 20));
        Sigma2::of(&groups).push(&mut r, "reduced", br, 20);
        push_factor(&mut r, br);
        rows.push(r);
    }
    rows
}

/// The calibration of one common variance factor for every level: (overall target ε, certified common
/// factor bracket).
pub fn uniform_bracket(
    alloc: &Allocation,
    delta: &Rational,
    conv: Conversion,
    explicit: &Option<Rational>,
    prec: u32,
) -> Fallible<(Float, Calibration)> {
    let groups = alloc.all_mechanisms();
    let rho = alloc.total_rho();
    let target = target_for(&rho, delta, conv, explicit, prec);
    let br = crate::calibrate::calibrate_uniform(
        &groups,
        delta,
        &target.to_rational().expect("invariant: a finite target"),
        false,
        prec,
        REL_WIDTH,
    )?;
    Ok((target, br))
}

/// The output row of a common-factor calibration from its bracket.
pub fn uniform_row_of(target: &Float, br: &Calibration) -> Record {
    let mut r = Record::new();
    r.push("level", "overall (uniform factor)");
    r.push("target_epsilon", fmt_nearest(target, 20));
    Sigma2::Overall.push(&mut r, "reduced", br, 20);
    push_factor(&mut r, br);
    r
}

/// The rows under a uniform factor's overall row: each level with its σ² published and reduced by the
/// same factor (the target is the overall one).
pub fn uniform_level_rows(alloc: &Allocation, target: &Float, br: &Calibration) -> Vec<Record> {
    alloc
        .levels
        .iter()
        .map(|level| {
            let mut r = Record::new();
            r.push("level", format!("{} (uniform factor)", level.name));
            r.push("target_epsilon", fmt_nearest(target, 20));
            Sigma2::of(&alloc.level_mechanisms(level)).push(&mut r, "reduced", br, 20);
            push_factor(&mut r, br);
            r
        })
        .collect()
}

/// The calibrated allocation as a TOML file loadable by every command: the same levels (and query names,
/// neighbour relation, name) with every query's variance multiplied by its level's factor — the upper end
/// of the certified bracket, whose ε is certified at or below the target — i.e. each budget ρ_q divided by
/// it (σ² ∝ 1/ρ_q under both relations), as exact `query_rho` fractions. `factors` has one entry per level.
pub fn calibrated_toml(alloc: &Allocation, factors: &[Rational], provenance: &[String]) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = String::new();
    for line in provenance {
        out += &format!("# {}\n", crate::record::one_line(line));
    }
    out += &format!("name = {}\n", q(&format!("{} (calibrated)", alloc.name)));
    if let Some(s) = &alloc.source {
        out += &format!("source = {}\n", q(s));
    }
    out += &format!("neighbors = {}\n", q(alloc.neighbors.as_str()));
    if let Some(d) = &alloc.delta_reported {
        out += &format!("delta_reported = {}\n", q(&d.to_string()));
    }
    for (level, f) in alloc.levels.iter().zip(factors) {
        out += &format!("\n[[level]]\nname = {}\n", q(&level.name));
        let rhos: Vec<String> = level.query_rho.iter().map(|r| q(&Rational::from(r / f).to_string())).collect();
        out += &format!("query_rho = [{}]\n", rhos.join(", "));
        if !level.query_names.is_empty() {
            let names: Vec<String> = level.query_names.iter().map(|n| q(n)).collect();
            out += &format!("query_names = [{}]\n", names.join(", "));
        }
    }
    out
}
