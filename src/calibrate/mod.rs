//! Noise calibration: the noise factor at which a certified guarantee meets a target — one search over
//! any accountant query and any family of compositions (after dp_accounting's
//! `mechanism_calibration.calibrate_dp_mechanism`).
//!
//! [`calibrate`] takes a family `c ↦ composition(c)` (c > 0 the noise factor, e.g. every σ² multiplied
//! by c), a [`Query`] (ε at δ, the first term of δ at ε, or any certified measure of an accountant such
//! as an attack's TPR, each falling as c grows) and the target value. It locates the
//! root on uncertified values ([`Search`]: the query's midpoints at a cheap precision, or a fast
//! estimate with the same root), then *certifies* it: two factors c_lo < c_hi are returned with the
//! certified brackets m(c_lo) > target > m(c_hi) (decreasing m), both proven by the accountant, so the
//! true calibrated factor lies in [c_lo, c_hi]. The result, [`Calibration`], carries the two
//! [`Certified`] values that prove it.
//!
//! The paper's rules are thin callers: [`calibrate_factor`] ([SSW24, §3.2] / Table 1: for each level the
//! reduced σ² such that the exact ε(δ = 1e-11) equals the Bureau's ε = ρ + 2√(ρ log 1/δ)),
//! [`calibrate_uniform`] and [`calibrate_uniform_smoothed`] ([SSW24, §3.3]: one common factor on all
//! variances so that the overall guarantee matches, the paper's 8.59%); `app::attack_calibration` calls
//! [`calibrate`] with an attack measure.

pub mod hole;
pub mod mech_epsilon;
pub mod rate;
mod search;
pub mod sigma;
pub mod steps;
pub mod target;

use crate::account::{epsilon_for_calibration, Accountant, Certified, Method, Options, FAST_WINDOW, MAX_LATTICE_ENTRIES};
use crate::error::Fallible;
use crate::fallible;
use crate::model::{Composition, GaussGroup, Group, Neighbors};
use crate::num::Arith;
use rug::{Float, Rational};
use search::{certify, find_root_from, rat};

/// What a calibration measures at each noise factor: a certified query of the composition's accountant.
pub enum Query<'a> {
    /// ε(δ), by the accountant's engines for a calibration (`account::epsilon_for_calibration`: the
    /// lattice in the arithmetic asked, the smoothed inversion beyond `FAST_WINDOW` entries, the lattice
    /// Fourier inversion for a few groups on a wide lattice)
    Epsilon { delta: Rational },
    /// ε(δ) by the certified smoothed inversion alone, its bracket `width` wide (budgets that share no
    /// practical lattice)
    EpsilonSmoothed { delta: Rational, width: f64 },
    /// the first term P_Q[L > ε] of δ(ε) on the lattice at its default depth (the paper's §A.6 rule)
    FirstTerm { eps: Rational },
    /// any certified measure read from an accountant (an attack measure: `attack::advantage`, …), the
    /// accountant built with the lattice arithmetic of the evaluation
    Measure(&'a (dyn Fn(&Accountant) -> Fallible<Certified> + Sync)),
}

impl Query<'_> {
    /// The certified measure of `comp`, with the lattice arithmetic `arith` (`None`: the accountant's
    /// choice).
    pub fn eval(&self, comp: &Composition, arith: Option<Arith>) -> Fallible<Certified> {
        match self {
            Query::Epsilon { delta } => match arith {
                Some(a) => epsilon_for_calibration(comp, delta, a, 1e-10, Some(FAST_WINDOW)),
                None => Accountant::new(comp.clone(), Options::default())?.epsilon(delta),
            },
            Query::EpsilonSmoothed { delta, width } => {
                Accountant::new(comp.clone(), Options { method: Method::Smoothed, width: Some(*width), ..Options::default() })?
                    .epsilon(delta)
            }
            Query::FirstTerm { eps } => {
                let prof =
                    Accountant::new(comp.clone(), Options::default())?.lattice_profile(arith.unwrap_or(Arith::DoubleDouble), None)?;
                prof.delta(eps)?.first.ok_or_else(|| crate::err!(Internal, "a lattice profile without the first term of delta"))
            }
            Query::Measure(f) => f(&Accountant::new(comp.clone(), Options { arith, ..Options::default() })?),
        }
    }
}

/// How the root is located before it is certified (uncertified values only steer the search).
pub enum Search<'a> {
    /// on the query itself, the midpoint of its bracket, in the lattice arithmetic given (`None`: the
    /// accountant's choice); on a log scale when the target is below 1e-3
    Query(Option<Arith>),
    /// on a fast estimate e(composition) of measure − target (same sign, same root; e.g. the saddle-point
    /// Fourier inversion of δ, or a coarse smoothed ε)
    Estimate(&'a (dyn Fn(&Composition) -> Fallible<f64> + Sync)),
}

/// The calibration's settings.
#[derive(Clone, Debug)]
pub struct CalibrationOptions {
    /// lattice arithmetic of the certifying evaluations (`None`: the accountant's choice)
    pub arith: Option<Arith>,
    /// relative width of the certified factor bracket asked for (it is widened until it certifies)
    pub rel_width: f64,
    /// an estimate of the factor: the search brackets the root from [start/2, start] (dp_accounting's
    /// `LowerEndpointAndGuess`)
    pub start: f64,
}

/// A certified bracket [lo, hi] of the calibrated noise factor, with the certified measure at both ends
/// that proves it: at `lo` the measure is certainly on the wrong side of the target (above it for a
/// decreasing measure), at `hi` certainly on the right side.
#[derive(Clone, Debug)]
pub struct Calibration {
    pub lo: Rational,
    pub hi: Rational,
    pub at_lo: Certified,
    pub at_hi: Certified,
}

/// The noise factor c at which `query` of `make(c)` meets `target`, certified (see the module
/// documentation). `make` may refuse a factor (an error ends the calibration with it).
pub fn calibrate(
    make: &(dyn Fn(&Rational) -> Fallible<Composition> + Sync),
    query: &Query,
    target: &Float,
    search: &Search,
    opts: &CalibrationOptions,
) -> Fallible<Calibration> {
    let logscale = target.to_f64() < 1e-3;
    let tr = |x: f64| if logscale { x.max(1e-300).ln() } else { x };
    let t = tr(target.to_f64());
    let gap = |c: f64| -> Fallible<f64> {
        let comp = make(&rat(c)?)?;
        let v = match search {
            Search::Query(arith) => tr(query.eval(&comp, *arith)?.mid().to_f64()) - t,
            Search::Estimate(f) => f(&comp)?,
        };
        Ok(v)
    };
    let c = find_root_from(&gap, opts.rel_width, opts.start)?;
    let measure = |c: &Rational| query.eval(&make(c)?, opts.arith);
    let (lo, hi, at_lo, at_hi) = certify(&measure, target, c, opts.rel_width)?;
    Ok(Calibration { lo, hi, at_lo, at_hi })
}

/// Every σ² of the groups multiplied by c (exact rationals).
pub fn scale_groups(groups: &[GaussGroup], c: &Rational) -> Vec<GaussGroup> {
    groups.iter().map(|g| GaussGroup { sigma2: Rational::from(&g.sigma2 * c), count: g.count, mu: g.mu }).collect()
}

/// The composition of discrete Gaussian add/remove shifts (one group per distinct σ²) with every σ²
/// multiplied by c: the family the paper's rules calibrate.
pub fn scaled_composition(groups: &[GaussGroup], c: &Rational) -> Fallible<Composition> {
    Composition::new(scale_groups(groups, c).iter().map(Group::from).collect(), Neighbors::AddRemove)
}

/// Largest lattice (entries) a per-level calibration evaluates (~1 s per evaluation at 20 digits).
pub const CALIBRATION_WINDOW: u64 = 1_000_000;

/// Largest variance factor a calibration searches: 1e12 (σ grows by 1e6; the lattice and smoothed
/// engines stay within their ranges).
pub const MAX_FACTOR: f64 = 1e12;

/// Per-level rule ([SSW24, §3.2]): the factor c with exact ε(δ; c) = target, searched at `search_prec`
/// bits (a bare precision: 53 the f64 lattice, 106 the double-double one, else MPFR bits) and certified at
/// `prec`, the factor bracket about `rel_width` wide.
pub fn calibrate_factor(
    groups: &[GaussGroup],
    delta: &Rational,
    target: &Float,
    search_prec: u32,
    prec: u32,
    rel_width: f64,
) -> Fallible<Calibration> {
    // Start the search at the factor where the Bun–Steinke bound meets the target: the exact ε lies
    // below that bound, so the root is at or below c_BS and usually within a factor 4 of it — a few
    // evaluations instead of doubling from 1 (a target of ε = 1e-3 needs c ≈ 1e7).
    let rho = crate::model::gauss_rho(groups).to_f64();
    let l = (1.0 / delta.to_f64()).ln();
    let e = target.to_f64();
    let rho_t = ((l + e).sqrt() - l.sqrt()).powi(2);
    let c_bs = rho / rho_t;
    // (near 1 the doubling from 1 takes as few steps; keeping it there keeps earlier results identical)
    let start = if c_bs.is_finite() && !(1.0 / 16.0..=16.0).contains(&c_bs) { c_bs } else { 1.0 };
    if start > MAX_FACTOR {
        return fallible!(
            Input,
            "calibration: epsilon = {e} needs the variances multiplied by about {start:.3e} (beyond the supported {MAX_FACTOR:e})"
        );
    }
    // each of the ~30 certified evaluations of a 1e-12-wide factor bracket needs a lattice (the smoothed
    // inversion cannot resolve ε to ε·1e-12): refuse up front when that lattice is impractically large
    let at_start = Accountant::of_gauss(&scale_groups(groups, &rat(c_bs.max(1.0))?))?;
    let window = at_start.lattice_entries(Arith::from_legacy_prec(prec));
    if window > CALIBRATION_WINDOW && at_start.flat_cost_engine() {
        // a lattice too large to evaluate ~30 times, but the lattice Fourier inversion takes the family (a
        // few groups, any counts: 10^6 queries of N_Z(0, 10^4)): every evaluation is the accountant's
        // choice, whose cost does not grow with n, and 25+ digits resolve the 1e-12-wide factor bracket
        let make = |c: &Rational| scaled_composition(groups, c);
        let opts = CalibrationOptions { arith: None, rel_width, start };
        return calibrate(&make, &Query::Epsilon { delta: delta.clone() }, target, &Search::Query(None), &opts);
    }
    if window > CALIBRATION_WINDOW {
        return fallible!(
            Resource,
            "calibration: epsilon = {e} needs the variances multiplied by about {c_bs:.3e}, where each certified evaluation \
             needs a lattice of about {window:.2e} entries (limit {CALIBRATION_WINDOW:e}); ask for a larger target"
        );
    }
    let make = |c: &Rational| scaled_composition(groups, c);
    let opts = CalibrationOptions { arith: Some(Arith::from_legacy_prec(prec)), rel_width, start };
    let search = Search::Query(Some(Arith::from_legacy_prec(search_prec)));
    calibrate(&make, &Query::Epsilon { delta: delta.clone() }, target, &search, &opts)
}

/// Uniform rule ([SSW24, §3.3]): one factor on all variances of many groups. The search runs on the
/// saddle-point Fourier inversion of δ_c(ε_target) (f64, relative accuracy ~1e-13), the bracket is
/// certified by the lattice accountant at `prec`; budgets with no practical common lattice go to
/// [`calibrate_uniform_smoothed`]. With `first_only`, only the first term of (A.9) is matched to δ (the
/// paper's §A.6 procedure), at the given ε.
pub fn calibrate_uniform(
    groups: &[GaussGroup],
    delta: &Rational,
    eps_target: &Rational,
    first_only: bool,
    prec: u32,
    rel_width: f64,
) -> Fallible<Calibration> {
    if !first_only && Accountant::of_gauss(groups)?.lattice_entries(Arith::from_legacy_prec(prec)) > MAX_LATTICE_ENTRIES {
        return calibrate_uniform_smoothed(groups, delta, eps_target, prec, rel_width);
    }
    let ld = delta.to_f64().ln();
    let estimate = |comp: &Composition| -> Fallible<f64> {
        let (d, first) = Accountant::new(comp.clone(), Options::default())?.delta_search_estimate(eps_target)?;
        let v = if first_only { first } else { d };
        Ok(v.max(1e-300).ln() - ld)
    };
    let make = |c: &Rational| scaled_composition(groups, c);
    let opts = CalibrationOptions { arith: Some(Arith::from_legacy_prec(prec)), rel_width, start: 1.0 };
    let (query, target) = if first_only {
        (Query::FirstTerm { eps: eps_target.clone() }, Float::with_val(prec, delta))
    } else {
        (Query::Epsilon { delta: delta.clone() }, Float::with_val(prec, eps_target))
    };
    calibrate(&make, &query, &target, &Search::Estimate(&estimate), &opts)
}

/// Uniform factor for budgets without a practical common lattice (e.g. the 2021 redistricting file):
/// search on the smoothed Fourier inversion at a coarse width (1e-7), certify with its 1e-9-wide ε
/// brackets. The certified factor bracket is as narrow as those brackets allow.
pub fn calibrate_uniform_smoothed(
    groups: &[GaussGroup],
    delta: &Rational,
    eps_target: &Rational,
    prec: u32,
    rel_width: f64,
) -> Fallible<Calibration> {
    let t = eps_target.to_f64();
    let estimate = |comp: &Composition| -> Fallible<f64> {
        let e = Query::EpsilonSmoothed { delta: delta.clone(), width: 1e-7 }.eval(comp, None)?;
        Ok(0.5 * (e.lo().to_f64() + e.hi().to_f64()) - t)
    };
    let make = |c: &Rational| scaled_composition(groups, c);
    let opts = CalibrationOptions { arith: None, rel_width: rel_width.max(1e-10), start: 1.0 };
    let query = Query::EpsilonSmoothed { delta: delta.clone(), width: 1e-9 };
    calibrate(&make, &query, &Float::with_val(prec, eps_target), &Search::Estimate(&estimate), &opts)
}

#[cfg(test)]
mod tests;
