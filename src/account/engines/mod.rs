//! The engines of compositions with laws (`model::Noise::Law`: the continuous Gaussian, subsampled
//! mechanisms, Laplace, randomized response, …, and the lattice laws beside them), one file each, behind one
//! slot: each engine says cheaply whether it takes a query ([`LawEngine::offer`]: declined with its reason,
//! or taken), and answers it ([`LawEngine::answer`]). The planner ([`planner::plan`]) turns the offers into a
//! ladder of rungs (the engines' order, those whose offer is an exact answer moved before the first rung
//! whose answer may not stand and whose estimate is dearer, or unknown where the exact one is estimated
//! cheap), and one loop ([`planner::run`]) climbs it: an engine that declines, before or while
//! answering, hands the query to the next rung; a short answer of an engine whose answer does not stand is
//! kept (the narrower of those met) and the next rung tried, unless that rung expects no more digits than
//! the kept answer has; the first answer that meets the digits, or stands, ends it; any other error
//! surfaces; a forced method is a ladder of one rung. A new engine is one file here and one line in
//! [`law_engines`].
//!
//! * `allocation` — random allocation of the Gaussian mechanism (known otherwise by Rényi bounds only): its
//!   dominating and dominated finite pairs, a bracket of the exact value narrowing like h².
//! * [`gaussian`] — every law a Gaussian loss law: the closed forms of their one Gaussian.
//! * [`single`] — one release of one mechanism: its own distribution functions.
//! * [`atoms`] — laws with finitely many losses (randomized response, stated (ε, δ) pairs), composed
//!   exactly: on one lattice, or by their multinomial sums where the losses share none (a stated pair on a
//!   Poisson subsample: `atoms_listed`).
//! * `laplace_atoms` — Laplace releases (or bounded-range pairs) beside laws with finitely many losses on one
//!   rational lattice, exactly: one Laplace sum conditioned on the atoms.
//! * [`tilted`] — laws with a certified moment generating function (the Poisson-subsampled Gaussian,
//!   Laplace, with Gaussians and discrete Gaussians), by a tilted Fourier inversion whose cost does not
//!   grow with the number of releases.
//! * [`laplace_sum`] — n releases of Laplace mechanisms with one ε₀, as an exact finite sum (and, by its last
//!   row, n exponential mechanisms' bounded-range pairs with one ε).
//! * [`pld_grid`] — any composition of laws, on a grid, dominating and dominated: the last rung, and the
//!   independent cross-check.
//!
//! The lattice engines are here too, not behind this slot yet: [`lattice`] (the exact lattice in its
//! arithmetic tiers), [`lattice_fourier`] (its certified Fourier inversion), [`smoothed`] (the smoothed
//! inversion) and [`conditioned`] (conditioning on the coarse groups). The engine to start from is one pure
//! function of their offers ([`lattice_plan`]), the rungs after it another ([`lattice_ladder`]); the
//! accountant climbs them (`account/choice.rs`).

mod allocation;
pub mod atoms;
mod atoms_binomial;
mod atoms_lattice;
mod atoms_listed;
mod atoms_sparse;
pub(in crate::account) mod conditioned;
pub mod gaussian;
mod laplace_atoms;
pub mod laplace_sum;
pub(in crate::account) mod lattice;
pub(in crate::account) mod lattice_fourier;
pub(in crate::account) mod lattice_ladder;
pub(in crate::account) mod lattice_plan;
pub mod planner;
pub mod pld_grid;
pub mod single;
pub(in crate::account) mod smoothed;
pub mod tilted;

use crate::account::vocabulary::Query;
use crate::account::{Certified, Trust};
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use rug::Rational;
use std::sync::Arc;

pub(in crate::account) use planner::run;

/// The laws of a composition, each with its count.
pub(in crate::account) type Laws = [(Arc<dyn LossLaw>, u64)];

/// A query on a composition with laws, as every law engine sees it.
pub(in crate::account) struct Job<'a> {
    pub laws: &'a Laws,
    pub q: Query<'a>,
    /// correct significant digits asked
    pub digits: u32,
    /// what the laws certify: exact, or a bound (a law that is itself an upper bound)
    pub trust: Trust,
    /// the accountant's working precision (bits)
    pub prec: u32,
    /// the pld grid's work budget (`Options::grid_work`)
    pub grid_work: u64,
    /// the pld grid's step, where the caller fixed it (`--method grid --grid G`)
    pub grid: Option<Rational>,
}

/// An engine's answer to "do you take this query?", from what it knows without computing the answer.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::account) enum Offer {
    /// not this engine's: why, in words
    Declined(String),
    /// taken; `stands`: its answer stands even short of the digits asked (it is exact up to the precision it
    /// raises, so no later rung would be narrower), else a short answer lets the next rung try; `expects`:
    /// the most digits it expects to certify where that is fewer than asked (None: the digits asked), so
    /// that it is not run where an earlier rung's short answer already has as many; `seconds`: its estimated
    /// time (on this project's 2-core machine, from its own count of its work, never a clock; None: not
    /// estimated). An answer that stands is tried before the rungs in front of it whose answer may not stand
    /// and that are estimated dearer, or not estimated where it is cheap ([`CHEAP_SECONDS`])
    Takes { stands: bool, expects: Option<u32>, seconds: Option<f64> },
}

/// The most an answer that stands may be estimated to take to be tried first (seconds on this project's
/// 2-core machine, from the engine's count of its work, never a clock) before a general engine in front of
/// it whose cost is not estimated (before one estimated dearer, whatever its estimate), which may spend far
/// longer finding the query beyond its reach
/// (a few Laplace releases on the tilted inversion: δ(1) of 60 × Laplace(1) took 71 s there, against 0.02 s
/// for the exact sum).
pub(in crate::account) const CHEAP_SECONDS: f64 = 0.5;

/// One engine of compositions with laws (module doc).
pub(in crate::account) trait LawEngine: Send + Sync {
    /// The engine's name in the planner's ladder and its refusals.
    fn name(&self) -> &'static str;
    /// Whether it takes the job: cheap, from the laws and the query alone.
    fn offer(&self, job: &Job) -> Offer;
    /// Its certified answer; None (or a `Declined` error) where it finds the job beyond its reach after all.
    fn answer(&self, job: &Job) -> Fallible<Option<Certified>>;
}

/// The law engines, in the order of the ladder: exact answers of special forms first (closed forms, one
/// release, finitely many atoms, Laplace releases beside finitely many atoms: the atoms' characteristic
/// function does not decay, so the inversion's lines on such mixes are long), then the inversion whose cost does not grow with the counts, the exact
/// Laplace sum (the few releases the inversion declines), and the grid, which takes everything.
pub(in crate::account) fn law_engines() -> Vec<Box<dyn LawEngine>> {
    vec![
        Box::new(allocation::AllocationPairs),
        Box::new(gaussian::GaussianClosed),
        Box::new(single::SingleRelease),
        Box::new(atoms::AtomsEngine),
        Box::new(laplace_atoms::LaplaceAtomsEngine),
        Box::new(tilted::Tilted::default()),
        Box::new(laplace_sum::LaplaceSumEngine),
        Box::new(pld_grid::PldGrid),
    ]
}

/// The directions of the composition: both if a law is not symmetric.
pub(in crate::account) fn directions(laws: &Laws) -> &'static [Direction] {
    if laws.iter().all(|(l, _)| l.symmetric()) {
        &[Direction::Remove]
    } else {
        &[Direction::Remove, Direction::Add]
    }
}

#[cfg(test)]
use crate::num::Interval;
#[cfg(test)]
use rug::Float;

#[cfg(test)]
/// The bracket meets the reference's rounding interval (± half a unit of its last printed digit).
pub(crate) fn holds(x: &Interval, want: &str) -> bool {
    let p = x.prec();
    let w = Float::with_val(p, Float::parse(want).unwrap());
    let last = want.split(['e', 'E']).next().unwrap().rsplit('.').next().map_or(0, |f| f.len() as i32);
    let exp = want.split(['e', 'E']).nth(1).map_or(0, |e| e.parse::<i32>().unwrap());
    // (in MPFR: 10^(exp − last) of a value near 1e-305 is below f64's range)
    let ulp = Float::with_val(p, rug::ops::Pow::pow(Float::with_val(p, 10), exp - last)) * 0.5000001f64;
    let r = Interval::new(Float::with_val(p, &w - &ulp), Float::with_val(p, &w + &ulp));
    x.overlaps(&r)
}
