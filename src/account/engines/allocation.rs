//! Random allocation of the Gaussian mechanism (each record in one of t steps per epoch, E epochs), from
//! the finite pairs that dominate it and that it dominates (`noise::allocation::pairs`): a certified
//! bracket of the tight δ(ε) and ε(δ). The pair (1/t) Σ N(μe_i, σ²I) against N(0, σ²I) dominates random
//! allocation [FS25] and is the mechanism's own output where every other record contributes nothing, so
//! its hockey-stick divergences are the mechanism's exact guarantee: the bracket holds the exact value.
//!
//! k of t steps per record are bounded by the composition of one-step allocations of ⌊t/k⌋ and ⌈t/k⌉ steps
//! [FS25] (`noise::allocation::selected`, as its Rényi bound): the same pairs of that composition bracket
//! its exact value, a certified upper bound of the mechanism's (trust `certified-bound`).
//!
//! The bracket narrows like h² in the grid step h. The engine starts at h = 1/100 and halves h while the
//! digits asked are not met and the next step's work (about four times the last's: the atoms double)
//! fits in what is left of `Options::grid_work`, counted in pairs of atoms merged, never in seconds. The
//! builds of one h are kept: a second query on the same composition costs its search only.

use super::{Job, LawEngine, Offer};
use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::noise::allocation::pairs::{self, Lower, Mass, Upper, Work};
use crate::num::format::fmt_rational;
use crate::num::{bisect_decreasing, Interval};
use crate::{err, fallible};
use rug::{Float, Rational};
use std::sync::{Arc, Mutex};

/// The first grid step (loss units).
const FIRST_STEP: u64 = 100;
/// The builds kept (the oldest goes first).
const KEPT: usize = 16;
/// The finest grid step, 1/FINEST (a cap on the halvings whatever the budget).
const FINEST: u64 = 100 << 12;
/// The one-step window, in standard deviations of the loss about its two means (beyond: 10^-23 of mass,
/// split to the ends or grouped, so still inside the bracket).
const WINDOW_SDS: f64 = 10.0;
/// Bisection steps of ε(δ) (f64: each end is checked where it is found, so any step count is valid).
const SEARCH_STEPS: usize = 64;
/// The largest ε searched.
const EPS_MAX: f64 = 1e4;

/// μ²/σ², one epoch's groups of one-step-per-record allocations (t steps, how many), and E.
type Key = (Rational, Vec<(u64, u64)>, u64);

/// The two builds of E epochs at one step, with e^{kh} at the dominating build's atoms.
struct Builds {
    key: Key,
    h: Rational,
    up: Upper,
    lo: Lower,
    grid: Vec<Mass>,
    /// the work done
    work: u64,
    /// the least budget that makes it (the cells, and twice the dearer build: each has half the rest; at
    /// least the check before the cells)
    need: u64,
}

/// The engine. The builds it made are kept for the process ([`KEPT_BUILDS`]: a build is a function of its
/// key and step alone, and a kept one counts its work as if built again, so a kept build only makes the
/// same answer faster; the calibrator's probes and `attack`'s measures reuse them).
pub(in crate::account) struct AllocationPairs;

static KEPT_BUILDS: Mutex<Vec<Arc<Builds>>> = Mutex::new(Vec::new());

/// The key of a composition of one random allocation law, E epochs.
fn allocation(job: &Job) -> Option<Key> {
    match job.laws {
        [(law, n)] => law.allocation().map(|(mu2, groups)| (mu2, groups, *n)),
        _ => None,
    }
}

impl LawEngine for AllocationPairs {
    fn name(&self) -> &'static str {
        "allocation-pairs"
    }

    fn offer(&self, job: &Job) -> Offer {
        match (allocation(job), job.q) {
            (None, _) => Offer::Declined("not one random allocation of the Gaussian mechanism".into()),
            (Some(_), Query::Tradeoff(_)) => Offer::Declined("the trade-off function of random allocation's pairs".into()),
            (Some(_), _) => Offer::Takes { stands: true, expects: Some(4), seconds: None },
        }
    }

    fn answer(&self, job: &Job) -> Fallible<Option<Certified>> {
        let Some(key) = allocation(job) else { return Ok(None) };
        let mut spent = 0u64;
        let mut best: Option<Certified> = None;
        let mut n = FIRST_STEP;
        loop {
            // a kept build counts its work as if built again: the answer never depends on what ran before
            let b = match self.kept(&key, n) {
                Some(b) if b.need <= job.grid_work.saturating_sub(spent) => b,
                Some(_) => break,
                None => {
                    let Some(b) = build(&key, n, job.grid_work.saturating_sub(spent)) else { break };
                    self.keep(b)
                }
            };
            spent += b.work;
            let c = certified(job, &b)?;
            let done = c.meets(job.digits);
            let next_work = b.work.saturating_mul(4);
            best = Some(c);
            if done || n >= FINEST || spent.saturating_add(next_work) > job.grid_work {
                break;
            }
            n *= 2;
        }
        match best {
            Some(c) if c.meets(job.digits) => Ok(Some(c)),
            Some(c) => Ok(Some(
                c.with_note("the grid step bounds it (the bracket narrows like h^2: a larger --grid-budget gives a finer grid)".into()),
            )),
            None => fallible!(Declined, "random allocation's pairs at the grid step 1/{FIRST_STEP} pass the work budget (--grid-budget)"),
        }
    }
}

impl AllocationPairs {
    fn kept(&self, key: &Key, n: u64) -> Option<Arc<Builds>> {
        let kept = KEPT_BUILDS.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().find(|b| b.key == *key && b.h == (1, n)).cloned()
    }

    fn keep(&self, b: Builds) -> Arc<Builds> {
        let b = Arc::new(b);
        let mut kept = KEPT_BUILDS.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push(b.clone());
        b
    }
}

/// The two builds at h = 1/n within `budget`, side by side; None past it.
fn build(key: &Key, n: u64, budget: u64) -> Option<Builds> {
    let (mu2, groups, e) = key;
    let h = Rational::from((1, n));
    let eta = Rational::from(mu2 / 2u32);
    let (k0, k1) = pairs::window(&eta, &h, WINDOW_SDS);
    // each build within half the budget, so that the two together stay within it
    let points = (k1 - k0 + 1) as u64;
    let cells_work = points.saturating_mul(pairs::CELL_WORK);
    // the first merge's pairs at most points², counted before the cells are made (small noise: a window of
    // 30,000 points at σ = 0.1 declines at once); `need` says the same, so a kept build answers alike
    let first = if groups.iter().any(|(t, _)| *t >= 2) { points.saturating_mul(points) } else { 0 };
    let floor = cells_work.saturating_add(first.saturating_mul(2));
    if floor > budget {
        return None;
    }
    let half = (budget - cells_work) / 2;
    let cells = pairs::cells(&eta, &h, k0, k1);
    let (up, lo) = rayon::join(
        || {
            let mut w = Work::new(half);
            Some((pairs::epochs(&Upper::step(&cells, &h), groups, *e, &h, &mut w)?, w.spent))
        },
        || {
            let mut w = Work::new(half);
            Some((pairs::epochs(&Lower::step(&cells), groups, *e, &h, &mut w)?, w.spent))
        },
    );
    let ((up, wu), (lo, wl)) = (up?, lo?);
    let grid = up.grid(&h);
    Some(Builds { key: key.clone(), h, up, lo, grid, work: cells_work + wu + wl, need: (cells_work + 2 * wu.max(wl)).max(floor) })
}

/// e^ε enclosed.
fn exp_of(eps: &Rational) -> Mass {
    Mass::of(&Interval::from_rational(eps, 64).exp())
}

fn exp_f64(eps: f64) -> Mass {
    exp_of(&Rational::from_f64(eps).expect("invariant: a finite ε"))
}

/// δ(ε) from above: the larger direction's, from the dominating build.
fn delta_above(b: &Builds, x: Mass) -> f64 {
    let (remove, add) = b.up.delta(&b.grid, x);
    remove.max(add)
}

/// δ(ε) from below: the larger direction's, from the dominated build.
fn delta_below(b: &Builds, x: Mass) -> f64 {
    let (remove, add) = b.lo.delta(x);
    remove.max(add)
}

/// The certified answer of the job from one pair of builds.
fn certified(job: &Job, b: &Builds) -> Fallible<Certified> {
    let (lo, hi) = match job.q {
        Query::Delta(eps) => {
            let x = exp_of(eps);
            (delta_below(b, x), delta_above(b, x))
        }
        Query::Epsilon(delta) => epsilon_bracket(b, delta.to_f64())?,
        Query::Tradeoff(_) => return fallible!(Declined, "the trade-off function of random allocation's pairs"),
    };
    let p = job.prec;
    let iv = Interval::new(Float::with_val(p, lo), Float::with_val(p, hi));
    let (mu2, groups, e) = &b.key;
    let (what, trust) = match groups.as_slice() {
        [(t, 1)] => (format!("{t} steps per epoch"), Trust::Exact),
        _ => {
            let g: Vec<String> = groups.iter().map(|(t, n)| format!("{n} of {t} steps")).collect();
            (format!("each epoch bounded by the one-step allocations {} [FS25]", g.join(" and ")), Trust::Bound)
        }
    };
    let detail = format!(
        "random allocation's dominating and dominated pairs [FS25] (mu^2/sigma^2 = {}, {what}, {e} epochs) split and grouped on the loss grid h = {}",
        fmt_rational(mu2),
        fmt_rational(&b.h)
    );
    Certified::new(iv, Engine::AllocationPairs, trust, detail)
}

/// ε(δ) bracketed: the upper end is an ε where the dominating build's δ is at most δ in both directions
/// (so the exact ε is at most it), the lower end one where the dominated build's exceeds δ in one (so the
/// exact ε is above it), or 0.
fn epsilon_bracket(b: &Builds, delta: f64) -> Fallible<(f64, f64)> {
    if !(delta > 0.0) {
        return fallible!(Declined, "random allocation's pairs: delta must be positive");
    }
    let up_at = |eps: f64| delta_above(b, exp_f64(eps));
    let lo_at = |eps: f64| delta_below(b, exp_f64(eps));
    let mut top = 1.0;
    while up_at(top) > delta {
        top *= 2.0;
        if top > EPS_MAX {
            return Err(err!(Declined, "random allocation's pairs: epsilon above {EPS_MAX} at this delta"));
        }
    }
    // the upper end: the least ε found with δ⁺(ε) ≤ δ
    let hi = if up_at(0.0) <= delta { 0.0 } else { bisect_decreasing(0.0, top, SEARCH_STEPS, |e| up_at(e) > delta).1 };
    // the lower end: the largest ε found with δ⁻(ε) > δ
    if lo_at(0.0) <= delta {
        return Ok((0.0, hi));
    }
    Ok((bisect_decreasing(0.0, hi, SEARCH_STEPS, |e| lo_at(e) > delta).0, hi))
}

#[cfg(test)]
#[path = "allocation_tests.rs"]
mod tests;
