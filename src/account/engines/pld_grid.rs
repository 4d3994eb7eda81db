//! The pld grid: every law is discretised onto the grid c + hℤ twice, as a dominating law (an upper bound
//! of δ(ε) for every ε and every composition) and a dominated one (a lower bound) (`pld::discretize`), both
//! composed by the certified lattice Fourier inversion (`account::gridprofile`); the true value lies between
//! the two. Their gap is of second order in h: the engine starts at h = 10⁻², predicts from the first
//! bracket the step that meets the digits asked, and refines within `Options::grid_work` (a work budget
//! counted in operations, never seconds, checked before every inversion and every direct convolution, so that it holds within a step
//! too: a step that would overrun it is not finished, and the last bracket stands or the engine declines).
//! With `Method::Grid` the step is the one given. Laws whose losses
//! lie on a lattice (randomized response, the discrete Gaussian and Laplace) are discretised exactly when
//! the step divides theirs: every law on one: that step, once; beside other laws, the refinement's steps
//! are taken as divisors of theirs.
//!
//! It takes every composition of laws: the last rung of the law engines' ladder, and their independent
//! cross-check.

use super::{directions, Job, LawEngine, Laws, Offer};
use crate::account::gridprofile::{DirectTails, FourierGridTails, GridProfile, GridTails};
use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine};
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::format::fmt_rational;
use crate::num::Interval;
use crate::pld::discretize::{has_atoms, lower, lower_rounded, upper, LossGrid};
use crate::pld::gridpair::{compose_within, OVER_LIMIT};
use crate::{err, fallible};
use rug::{Float, Rational};
use std::sync::Arc;

/// First grid step of the pld engine (loss units).
pub const PLD_FIRST_STEP: (u32, u32) = (1, 100);
/// Finest grid step the pld engine refines to on its own.
pub const PLD_FINEST_STEP: f64 = 1e-6;
/// The digits the refinement is expected to certify of continuous laws within the default work budget
/// (measured 2-5: 2-3 on a few subsampled Gaussian steps, 5 on DP-SGD's small-noise setting): the planner
/// skips it where an earlier short answer has as many.
const GRID_DIGITS: u32 = 4;
/// Working precision (bits) of the discretised masses.
const PLD_PREC: u32 = 64;
/// Relative accuracy (bits) asked of the Fourier tails.
const TAIL_BITS: u32 = 40;

/// The pld grid engine (its composed laws are kept in [`PROFILES`], shared by every accountant).
pub(in crate::account) struct PldGrid;

impl LawEngine for PldGrid {
    fn name(&self) -> &'static str {
        "pld-grid"
    }

    fn offer(&self, job: &Job) -> Offer {
        // within its default work budget the grid certifies 2-5 digits of continuous laws (docs/speed.md:
        // DP-SGD settings, Laplace), and every digit of laws on a common lattice (one exact step); a step the
        // caller fixed is run as asked
        let expects = (job.grid.is_none() && exact_step(job.laws).is_none() && job.grid_work <= crate::account::DEFAULT_GRID_WORK)
            .then_some(GRID_DIGITS);
        Offer::Takes { stands: true, expects, seconds: None }
    }

    fn answer(&self, job: &Job) -> Fallible<Option<Certified>> {
        match &job.grid {
            Some(h) => fixed(job, h),
            None => refined(job),
        }
        .map(Some)
    }
}

/// The pld grid at a given step.
fn fixed(job: &Job, h: &Rational) -> Fallible<Certified> {
    let (q, laws, trust) = (job.q, job.laws, job.trust);
    // (a step the caller fixed is run whatever its work: the size limits still hold)
    let (iv, _) = pld_bracket(q, laws, h, u64::MAX)?;
    let c = Certified::new(iv, Engine::Pld, trust, pld_detail(laws, h))?;
    if c.meets(job.digits) {
        return Ok(c);
    }
    Ok(c.with_note(format!("the grid step h = {} bounds it (the bracket narrows like h^2 with a finer --grid)", fmt_rational(h))))
}

/// The pld grid, refined from a first step until the digits asked or the work budget: the work of every
/// step (`pld_bracket`), summed (`Options::grid_work`, the job's `grid_work`). Every decision — the next
/// step, the stop — is a function of the laws, the query and the brackets, never of time, so the same
/// query gives the same bracket on any machine and after any other query (the cache of composed laws
/// only makes it faster).
pub(in crate::account) fn refined(job: &Job) -> Fallible<Certified> {
    let (q, laws, trust) = (job.q, job.laws, job.trust);
    let budget = job.grid_work;
    let (mass_bits, _) = bits_for(q, laws);
    let _progress = crate::num::progress::begin("pld grid", estimated_seconds(budget));
    if let Some(exact) = on_common_lattice(job, mass_bits)? {
        return Ok(exact);
    }
    let (h, model_exp) = first_step(laws);
    let mut h = on_lattices(h, laws);
    let mut spent = 0u64;
    // the work's exponent in 1/h: 1.5 until two steps were measured (a cautious first extrapolation: the
    // inversions' nodes grow with 1/h for some laws, Laplace's spiky grid law among them), then from the
    // work of the last two steps (counts: deterministic), between ½ and 3
    let mut cost_exp = 1.5f64.max(model_exp);
    let mut last: Option<(f64, u64)> = None;
    // whether the first step already fell back to the default one
    let mut fell_back = false;
    let first_default = Rational::from(PLD_FIRST_STEP);
    let mut best: Option<(Interval, Rational)> = None;
    let mut limit: Option<String> = None;
    let mut limits = SizeLimits::default();
    loop {
        let t0 = std::time::Instant::now(); // (the trace only)
        let (iv, points) = match pld_bracket(q, laws, &h, budget.saturating_sub(spent)) {
            Ok(r) => r,
            // the budget spent within a finer step: the best bracket so far stands
            Err(e) if best.is_some() && over_budget(&e) => {
                limit = Some(format!(
                    "the work budget ({budget} units, {spent} spent before it; raise --grid-budget for a finer grid) ends within the next finer step, h = {}",
                    fmt_rational(&h)
                ));
                break;
            }
            // a finer grid beyond a limit: a step between it and the last one built (`SizeLimits`), or else
            // the best bracket so far stands
            Err(e) if best.is_some() && refused_by_limits(&e) => {
                if let Some(between) = limits.refused(&h, e.message(), last.map(|(h_last, _)| h_last)) {
                    h = on_lattices(between, laws);
                    continue;
                }
                limit = Some(format!("the next finer step, h = {}, exceeds a size limit ({e})", fmt_rational(&h)));
                break;
            }
            // a first step finer than the default one (fitted to a law's spread) beyond a limit: the default
            // step, as before the fit (a trade-off query of 100 subsampled Gaussians at q = 0.01 met the
            // inversion's node limit at h = 1/1000 and is answered at 1/100)
            Err(e) if best.is_none() && !fell_back && refused_by_limits(&e) && h < first_default => {
                h = on_lattices(first_default.clone(), laws);
                fell_back = true;
                continue;
            }
            // no step within the limits at all: the engine declines, its reason among the other engines'
            // (a subsampled Gaussian of σ = 1e-3, its losses spread over 5e5, needs 51 million grid points at
            // h = 1/100)
            Err(e) if best.is_none() && e.kind() == crate::error::ErrorKind::Resource => return Err(err!(Declined, "{}", e.message())),
            Err(e) => return Err(e),
        };
        spent = spent.saturating_add(points);
        let hf_now = h.to_f64();
        if let Some((h0, w0)) = last {
            let e = (points.max(1) as f64 / w0.max(1) as f64).ln() / (h0 / hf_now).ln();
            if e.is_finite() {
                cost_exp = e.clamp(0.5, 3.0);
            }
        }
        last = Some((hf_now, points));
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!("pld grid: h = {h}: {points} work ({spent} in all), width {:.3e}, {:.2} s", width(&iv), t0.elapsed().as_secs_f64());
        }
        let c = Certified::new(iv.clone(), Engine::Pld, trust, String::new())?;
        if best.as_ref().is_none_or(|(b, _)| width(&iv) <= width(b)) {
            best = Some((iv.clone(), h.clone()));
        }
        if c.meets(job.digits) {
            break;
        }
        let refinement = Refinement { digits: job.digits, budget, spent, points, cost_exp, model_exp };
        // (not at or past a step already beyond a size limit: one between, or none)
        match refinement.next(&h, &iv).and_then(|next| limits.next(h.to_f64(), next)) {
            Ok(next) => h = on_lattices(next, laws),
            Err(why) => {
                limit = Some(why);
                break;
            }
        }
    }
    let (iv, h) = best.ok_or_else(|| err!(Internal, "the pld grid produced no bracket"))?;
    let c = Certified::new(iv, Engine::Pld, trust, pld_detail(laws, &h))?;
    if c.meets(job.digits) {
        return Ok(c);
    }
    let why = limit.unwrap_or_else(|| "the grid refinement stopped".into());
    Ok(c.with_note(format!("the pld grid's step h = {} bounds it: {why}", fmt_rational(&h))))
}

/// Losses on a common lattice (randomized response, the discrete Gaussian and Laplace): one exact step,
/// unless it is finer than the engine refines to, beyond the budget or over a limit (None: then
/// [`refined`]'s refinement).
fn on_common_lattice(job: &Job, mass_bits: u32) -> Fallible<Option<Certified>> {
    let (q, laws, budget) = (job.q, job.laws, job.grid_work);
    let Some(step) = exact_step(laws) else { return Ok(None) };
    // (a hundred nodes per atom: the work of a smooth law's inversion)
    if 100.0 * estimated_points(laws, &step, mass_bits) > budget as f64 {
        return Ok(None);
    }
    match pld_bracket(q, laws, &step, budget) {
        Ok((iv, _)) => {
            let detail = pld_detail(laws, &step) + " (every loss on this grid: exact up to rounding)";
            Certified::new(iv, Engine::Pld, job.trust, detail).map(Some)
        }
        Err(e) if refused_by_limits(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Where the refinement stands after a step: the digits asked, the work budget and the work spent, the last
/// step's work, and the exponents of the work in 1/h (measured, and the model's).
struct Refinement {
    digits: u32,
    budget: u64,
    spent: u64,
    points: u64,
    cost_exp: f64,
    model_exp: f64,
}

impl Refinement {
    /// The next step after `h`, whose bracket was `iv`, or why there is none. The gap is ~ C h²: the step
    /// that meets the digits, and the finest step the budget left buys (the work grows like h^-e, e from the
    /// last two steps: next ≈ work·(h/h')^e), whichever is coarser, at least 1.5x finer.
    fn next(&self, h: &Rational, iv: &Interval) -> Result<f64, String> {
        let (budget, spent) = (self.budget, self.spent);
        let hf = h.to_f64();
        let (w, mag) = (width(iv), iv.hi().to_f64().abs().max(iv.lo().to_f64().abs()));
        let target = 0.5 * mag * 10f64.powi(-(self.digits as i32));
        let h_digits = if w > 0.0 { hf * (target / w).sqrt() } else { hf };
        let left = budget.saturating_sub(spent) as f64;
        let h_work = if left > 0.0 { hf * (self.points.max(1) as f64 / left).powf(1.0 / self.cost_exp) } else { f64::INFINITY };
        // at most 4x (direct convolution, quadratic) or 10x finer per step: the extrapolation from one
        // bracket is rough, and a size limit met half-way leaves the best bracket so far
        let cap = hf / if self.model_exp > 1.0 { 4.0 } else { 10.0 };
        // (the budget's step rounded up to a short decimal, so that the next step stays within it)
        let h_work = step_rational_up(h_work);
        let next = h_digits.max(h_work).max(PLD_FINEST_STEP).max(cap);
        if next.is_finite() && next < hf / 1.5 {
            return Ok(next);
        }
        Err(if h_work >= hf / 1.5 {
            format!(
                "the work budget ({budget} units, {spent} spent; raise --grid-budget for a finer grid: the bracket narrows ~h^2, the work grows ~1/h) allows no finer step"
            )
        } else {
            format!("the finest step the engine refines to is {PLD_FINEST_STEP:e}")
        })
    }
}

/// An engine's refusal or a size/cost limit (a grid too fine or a law the inversion declines): the pld grid
/// then keeps what it has; any other error surfaces.
fn refused_by_limits(e: &crate::error::Error) -> bool {
    e.is_declined() || e.kind() == crate::error::ErrorKind::Resource
}

/// The opening of a step's refusal when its work would exceed what is left of the budget.
const OVER_BUDGET: &str = "the work budget is spent within the step";

fn over_budget(e: &crate::error::Error) -> bool {
    e.kind() == crate::error::ErrorKind::Resource && e.message().starts_with(OVER_BUDGET)
}

fn width(iv: &Interval) -> f64 {
    (iv.hi().clone() - iv.lo()).to_f64()
}

/// A grid step near `h` with a short decimal spelling: 1, 2 or 5 times a power of ten, at most h.
fn step_rational(h: f64) -> Rational {
    let e = h.log10().floor() as i32;
    let base = 10f64.powi(e);
    let m = [5.0, 2.0, 1.0].into_iter().find(|m| m * base <= h * (1.0 + 1e-12)).unwrap_or(1.0);
    let (m, e) = (m as u32, e);
    if e >= 0 {
        Rational::from(m) * Rational::from(rug::Integer::from(rug::Integer::u_pow_u(10, e as u32)))
    } else {
        Rational::from((rug::Integer::from(m), rug::Integer::from(rug::Integer::u_pow_u(10, (-e) as u32))))
    }
}

/// Most steps the refinement tries between a step it built and a finer one beyond a size limit.
const MAX_BETWEENS: u32 = 3;

/// The steps beyond a size limit the refinement met: the coarsest, with the limit's words, and the steps it
/// tried between one of them and a step it built. (The refinement's stride is extrapolated from the last step's
/// work, and a cheap direct convolution there does not say what the Fourier tails cost a step finer: 16 stated
/// guarantees beside a subsampled Gaussian went from h = 1/200 to 1/5000, past the inversion's node limit, where
/// 1/1000 and 1/2000 give two digits more.)
#[derive(Default)]
struct SizeLimits {
    too_fine: Option<(Rational, String)>,
    betweens: u32,
}

impl SizeLimits {
    /// After the step `h` was refused by a size limit (`why`): a step between it and the last step built, if any.
    fn refused(&mut self, h: &Rational, why: &str, last_built: Option<f64>) -> Option<Rational> {
        if self.too_fine.as_ref().is_none_or(|(f, _)| h > f) {
            self.too_fine = Some((h.clone(), why.to_string()));
        }
        let between = self.between(last_built?, h)?;
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!("pld grid: h = {h} exceeds a size limit ({why}); h = {between} between");
        }
        Some(between)
    }

    /// The refinement's next step after `h`: `next` as a short decimal, or, where it is at or past a refused step,
    /// a step between, or why there is none.
    fn next(&mut self, h: f64, next: f64) -> Result<Rational, String> {
        match self.too_fine.clone() {
            Some((f, why)) if next <= f.to_f64() * (1.0 + 1e-12) => {
                self.between(h, &f).ok_or_else(|| format!("the next finer step, h = {}, exceeds a size limit ({why})", fmt_rational(&f)))
            }
            _ => Ok(step_rational(next)),
        }
    }

    fn between(&mut self, h_last: f64, h: &Rational) -> Option<Rational> {
        if self.betweens >= MAX_BETWEENS {
            return None;
        }
        let b = step_between(h_last, h)?;
        self.betweens += 1;
        Some(b)
    }
}

/// A short decimal step near the geometric mean of the last step built, `h_last`, and a finer one beyond a
/// limit, `h`, if the two are at least 2x apart and such a step lies strictly between them.
fn step_between(h_last: f64, h: &Rational) -> Option<Rational> {
    let hf = h.to_f64();
    if h_last < 2.0 * hf {
        return None;
    }
    // (the short step at or above the mean, or else at or below it: the coarser one of the two that is between)
    let mean = (h_last * hf).sqrt();
    let between = |m: f64| m > hf * (1.0 + 1e-12) && m < h_last / 1.2;
    let up = step_rational_up(mean);
    if between(up) {
        return Some(step_rational(up));
    }
    let down = step_rational(mean);
    between(down.to_f64()).then_some(down)
}

/// The short decimal step (1, 2 or 5 times a power of ten) at or above h, as an f64 (∞ stays ∞).
fn step_rational_up(h: f64) -> f64 {
    if !h.is_finite() || h <= 0.0 {
        return h;
    }
    let e = h.log10().floor() as i32;
    let base = 10f64.powi(e);
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * base).find(|x| *x >= h * (1.0 - 1e-12)).unwrap_or(10.0 * base)
}

fn pld_detail(laws: &Laws, h: &Rational) -> String {
    let both = laws.iter().any(|(l, _)| !l.symmetric());
    format!(
        "pld grid, step h = {}: dominating (connect-the-dots) and dominated (balanced merge) laws{}",
        fmt_rational(h),
        if both { ", remove and add pairs" } else { "" }
    )
}

/// Fewest compositions the Fourier tails take: below, the composed law is not smooth enough for the
/// inversion to certify deep tails (4 x N(0, 16) at h = 1/500: no digit of ε(1e-10), where 16 copies
/// give 7), and the grids are convolved directly.
const FOURIER_MIN_N: u64 = 16;

/// Most products (pairs of nonzero masses, about 0.6 ns each in f64) a composition of `FOURIER_MIN_N` or more
/// releases is convolved directly within, by their a-priori bound (`pld::gridpair::direct_size`), whatever the
/// budget (a step the caller fixes has no budget).
const DIRECT_PRODUCTS: u64 = 4_000_000_000;

/// True if the composition has few releases (convolved directly at every step).
fn few(laws: &Laws) -> bool {
    laws.iter().map(|(_, n)| *n).sum::<u64>() < FOURIER_MIN_N
}

/// True if the grids are convolved directly: few releases, or more whose direct composition is bounded a
/// priori within `MAX_DIRECT` points and `DIRECT_PRODUCTS` products and the work `allow` leaves — sparse
/// grids (stated guarantees, the exponential mechanism) or coarse ones. The direct composition is exact up
/// to rounding, where the Fourier tails add their truncation and aliasing and cost nodes times atoms per
/// query: 6 + 5 stated guarantees beside 5 discrete Gaussians (16 releases) took 40 s for 3 digits of f(α)
/// on the Fourier tails, 2.0 s for 4 convolved directly (`docs/speed.md`). A function of the grids, counts and budget only.
fn direct(laws: &Laws, grids: &[(LossGrid, u64)], allow: u64) -> bool {
    if few(laws) {
        return true;
    }
    let (points, products) = crate::pld::gridpair::direct_size(grids);
    if std::env::var_os("TIGHTDP_TRACE").is_some() {
        eprintln!("pld grid: a direct composition holds at most {points} points and {products} products");
    }
    points <= crate::pld::gridpair::MAX_DIRECT as u64 && products <= DIRECT_PRODUCTS.min(allow)
}

/// The largest step g such that every law's losses lie on its lattice offset + gℤ, if every law has a
/// lattice (gcd of the steps, rationals: gcd(a/b, c/d) = gcd(ad, cb)/(bd); the offsets need not agree,
/// each law's grid sits on its own).
fn common_lattice(laws: &Laws) -> Option<Rational> {
    let mut g: Option<Rational> = None;
    for (l, _) in laws {
        let s = l.lattice()?;
        g = Some(match g {
            None => s,
            Some(g) => crate::num::rational_gcd(&g, &s),
        });
    }
    g
}

/// The step on which every law's losses lie, where the engine takes it (not finer than it refines to): one
/// exact step.
fn exact_step(laws: &Laws) -> Option<Rational> {
    common_lattice(laws).filter(|s| s.to_f64() >= PLD_FINEST_STEP)
}

/// The step h, or the largest step at most h that divides the step g common to the laws whose losses lie
/// on a lattice (the discrete Gaussian and Laplace beside continuous laws) when g ≥ h: g/⌈g/h⌉, within a
/// factor 2 of h. Each such law's grid sits on its lattice offset (`pld::discretize`), so its losses are on
/// the grid and only the other laws' discretisation widens the bracket.
fn on_lattices(h: Rational, laws: &Laws) -> Rational {
    let partial: Vec<_> = laws.iter().filter(|(l, _)| l.lattice().is_some()).cloned().collect();
    match common_lattice(&partial) {
        Some(g) if g >= h => {
            let k = rug::Integer::from((g.clone() / h).ceil_ref());
            g / Rational::from(k)
        }
        _ => h,
    }
}

/// First step, and the exponent of the cost in 1/h (a direct convolution of two grids is quadratic).
fn first_step(laws: &Laws) -> (Rational, f64) {
    let n: u64 = laws.iter().map(|(_, n)| *n).sum();
    // a coarse first step: its time predicts the next one's (a step of 1e-3 took 113 s on the
    // subsampled Gaussian with sigma = 0.8, q = 0.005, where 1e-2 takes 4 s) — but fine enough to resolve
    // the law whose losses spread least: a step wider than the spread merges the dominated law into one
    // or two grid points, whose composition says nothing (ε ≥ 0) after the whole step's cost was spent
    // (the DP-SGD MNIST setting, q = 256/60000: 1 s at h = 1/100 and 0.4 s at 1/300 for no lower bound)
    let first = PLD_FIRST_STEP.0 as f64 / PLD_FIRST_STEP.1 as f64;
    let spread = laws.iter().map(|(l, _)| loss_spread(l.as_ref())).fold(f64::INFINITY, f64::min);
    let step = if spread.is_finite() && spread / FIRST_STEP_BINS < first {
        step_rational((spread / FIRST_STEP_BINS).max(FIRST_STEP_MIN))
    } else {
        Rational::from(PLD_FIRST_STEP)
    };
    if few(laws) && n > 1 {
        (step, 2.0)
    } else {
        (step, 1.0)
    }
}

/// Planning only: grid points the discretised laws of one step hold, from each law's quantiles at the
/// mass the discretisation keeps (2^-mass_bits on each side), both kinds (dominating and dominated) and
/// every direction; what the work budget is checked against before a step is built.
fn estimated_points(laws: &Laws, h: &Rational, mass_bits: u32) -> f64 {
    let ln_p = -(mass_bits as f64) * std::f64::consts::LN_2;
    let hf = h.to_f64();
    let dirs = directions(laws).len() as f64;
    let per_kind: f64 = laws
        .iter()
        .map(|(l, _)| {
            let d = crate::noise::loss::directions(l.as_ref())[0];
            let span = l.quantile(d, ln_p, true) - l.quantile(d, ln_p, false);
            if span.is_finite() && span >= 0.0 {
                span / hf + 2.0
            } else {
                f64::INFINITY
            }
        })
        .sum();
    2.0 * dirs * per_kind
}

/// Planning only (the progress bar's estimate): seconds of a refinement within `budget` work units, at
/// the rate measured on the development machine (~2·10⁸ units a second for the subsampled Gaussian).
fn estimated_seconds(budget: u64) -> f64 {
    (budget as f64 / 2e8).min(1e6)
}

/// Grid points the first step puts across the central 80% of the least spread law's losses.
const FIRST_STEP_BINS: f64 = 8.0;
/// The finest first step (a law with a smaller spread refines from there).
const FIRST_STEP_MIN: f64 = 1e-4;

/// Planning only: the spread of a law's finite losses, the distance between the 10% and 90% quantiles
/// under A, the smaller over its directions (0 for a law with one loss value).
fn loss_spread(law: &dyn LossLaw) -> f64 {
    let ln_tenth = 0.1f64.ln();
    crate::noise::loss::directions(law)
        .iter()
        .map(|&d| law.quantile(d, ln_tenth, true) - law.quantile(d, ln_tenth, false))
        .filter(|s| s.is_finite() && *s > 0.0)
        .fold(f64::INFINITY, f64::min)
}

/// Bits of mass each discretised law keeps inside its window, and bits of relative accuracy of the
/// Fourier tails, for a query (the mass left out moves δ by at most n 2^-bits).
fn bits_for(q: Query, laws: &Laws) -> (u32, u32) {
    let n: f64 = laws.iter().map(|(_, n)| *n as f64).sum();
    let small = match q {
        Query::Epsilon(d) => (-crate::num::log2_of(d)).max(0.0),
        _ => 40.0,
    };
    let mass = (n.max(1.0).log2() + small + 30.0).ceil().clamp(70.0, 4000.0) as u32;
    // the tails are asked to a relative accuracy, which the difference δ = A[V ≥ k] − e^ε B[V ≥ k] loses
    // only a few digits of (the two terms are within a factor of a few where δ is asked)
    (mass, TAIL_BITS)
}

/// True if rounding the losses down to the grid (`pld::discretize::lower_rounded`) may beat the balanced
/// merge: a law with atoms at the ends of its support (aligned with the grid), or with every loss on a
/// lattice (the discrete Gaussian: on a grid whose step divides the lattice's, rounding down moves no
/// loss, where the merge of its many atoms and empty cells is weak — at h = 1/500, σ² = 4, n = 10 beside
/// a continuous Gaussian the merge alone gave ε(1e-6) ≥ 11.5 for 12.595).
fn rounds_well(law: &dyn LossLaw, dir: Direction) -> bool {
    has_atoms(law, dir) || law.lattice().is_some()
}

/// The composed grid profiles kept for the next query (each a few MB at most at the finest steps).
const PROFILE_CACHE: usize = 6;

/// A composed grid law and its work (counted the same whether it was built now or kept).
type Built = (Arc<GridProfile>, u64);

static PROFILES: std::sync::Mutex<Vec<(String, Built)>> = std::sync::Mutex::new(Vec::new());

/// Every law with its count, in order: with the direction, step and bits, what a profile depends on (a
/// law's `spec` names every parameter).
fn profile_key(laws: &Laws) -> String {
    laws.iter().map(|(l, n)| format!("{}*{n}", l.spec())).collect::<Vec<_>>().join(" + ")
}

/// The profile under `key`, built (and kept, the oldest of [`PROFILE_CACHE`] dropped) if not kept yet. A
/// kept profile is the one the same key builds: the cache makes the same answer faster, never another.
fn cached_profile(key: String, build: impl FnOnce() -> Fallible<(GridProfile, u64)>) -> Fallible<Built> {
    let lock = || PROFILES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = lock().iter().find(|(k, _)| *k == key).map(|(_, p)| p.clone()) {
        return Ok(p);
    }
    let (prof, points) = build()?;
    let p = (Arc::new(prof), points);
    let mut c = lock();
    c.retain(|(k, _)| *k != key);
    c.push((key, p.clone()));
    if c.len() > PROFILE_CACHE {
        c.remove(0);
    }
    Ok(p)
}

/// One direction's ends of [`pld_bracket`] (lower, upper) and its work.
fn one_direction(q: Query, laws: &Laws, h: &Rational, dir: Direction, allow: u64) -> Fallible<(Float, Float, u64)> {
    let (mass_bits, tail_bits) = bits_for(q, laws);
    let tradeoff = matches!(q, Query::Tradeoff(_));
    // kind 0: dominating; 1: dominated by balanced merging; 2: dominated with the laws that have atoms
    // rounded down instead (exact on atoms on the grid)
    let grids = |kind: u8| -> Fallible<Vec<(LossGrid, u64)>> {
        laws.iter()
            .map(|(l, n)| {
                let d = if l.symmetric() { Direction::Remove } else { dir };
                let g = match kind {
                    0 => upper(l.as_ref(), d, h, mass_bits, PLD_PREC)?,
                    2 if rounds_well(l.as_ref(), d) => lower_rounded(l.as_ref(), d, h, mass_bits, PLD_PREC)?,
                    _ => lower(l.as_ref(), d, h, mass_bits, PLD_PREC)?,
                };
                Ok((g, *n))
            })
            .collect()
    };
    let atoms = laws.iter().any(|(l, _)| rounds_well(l.as_ref(), if l.symmetric() { Direction::Remove } else { dir }));
    // the composed law and its building work: the products of the direct convolutions (one unit each: a
    // pair of f64 products, `num::convolve_f64`, costs about one of the inversion's ball operations; ten
    // while they were MPFR interval products), or the atoms; counts, functions of the laws and the step,
    // never time. (The inversions' own work is counted per query, below.)
    let tails = |g: Vec<(LossGrid, u64)>| -> Fallible<(GridProfile, u64)> {
        let atoms: u64 = g.iter().map(|(l, _)| l.masses.len() as u64).sum();
        let (t, work): (Box<dyn GridTails>, u64) = if direct(laws, &g, allow) {
            // (the products within what `allow` leaves: a first step of 13 stated
            // guarantees beside a subsampled Gaussian convolved 8e10 dense products for a minute)
            let (composed, ops) = compose_within(&g, mass_bits, allow).map_err(|e| match e.message().starts_with(OVER_LIMIT) {
                true => err!(Resource, "{OVER_BUDGET} h = {h} (its direct convolution: {}; raise --grid-budget)", e.message()),
                false => e,
            })?;
            (Box::new(DirectTails::new(&composed)), ops.saturating_add(atoms))
        } else {
            (Box::new(FourierGridTails::new(&g, tail_bits)?), atoms)
        };
        Ok((GridProfile::new(t, PLD_PREC), work))
    };
    // the composed law of one kind, built once per (laws, direction, step, bits): the queries of one
    // attack (δ(0), f(α) at three α, δ at two priors' ε) share it
    let work = std::sync::atomic::AtomicU64::new(0);
    let profile = |kind: u8| -> Fallible<Arc<GridProfile>> {
        let key = format!("{}|{}|{}|{}|{}|{}", profile_key(laws), dir.as_str(), h, mass_bits, tail_bits, kind);
        let (p, points) = cached_profile(key, || tails(grids(kind)?))?;
        work.fetch_add(points, std::sync::atomic::Ordering::Relaxed);
        Ok(p)
    };
    let (pu, pl) = rayon::join(|| profile(0), || profile(1));
    // a query's inversions: their nodes (a tail kept from an earlier query counts again, so the count is
    // the same whatever ran before) times the atoms each node evaluates; no tail is asked once they reach
    // what `allow` leaves (the budget holds within a step: a first step of 10^12 subsampled Gaussians, its
    // ε search four hundred inversions of 55,000 nodes, took seven minutes for no digit)
    let ask = |p: &GridProfile| -> Fallible<Interval> {
        use crate::fourier::lattice::{with_work_limit, work_meter};
        let before = work_meter();
        let room = allow.saturating_sub(work.load(std::sync::atomic::Ordering::Relaxed)) / p.atoms().max(1);
        let (r, refused) = with_work_limit(before.saturating_add(room), || match q {
            Query::Epsilon(d) => p.epsilon(d),
            Query::Delta(e) => p.delta(e),
            Query::Tradeoff(a) => p.tradeoff(a),
        });
        let nodes = work_meter().saturating_sub(before);
        work.fetch_add(nodes.saturating_mul(p.atoms()), std::sync::atomic::Ordering::Relaxed);
        // (a refused tail ends the step even where the search read it as undecided and went on)
        if refused {
            return fallible!(Resource, "{OVER_BUDGET} h = {h} ({allow} work units were left for it; raise --grid-budget)");
        }
        r
    };
    let u = ask(&*pu?)?;
    // a dominated law the inversion declines (e.g. all its mass merged into one grid point: no
    // variance) gives the trivial bound for this direction — δ, ε ≥ 0, f ≤ 1 — (the other direction's,
    // or a finer grid's, may give more); any other error surfaces
    let lower_of = |p: Fallible<Arc<GridProfile>>| -> Fallible<Interval> {
        match p.and_then(|p| ask(&p)) {
            Ok(l) => Ok(l),
            Err(e) if refused_by_limits(&e) && !over_budget(&e) => {
                if std::env::var_os("TIGHTDP_TRACE").is_some() {
                    eprintln!("pld grid: the dominated law at h = {h} declined ({e}): the trivial bound for this direction");
                }
                Ok(if tradeoff { Interval::one(PLD_PREC) } else { Interval::zero(PLD_PREC) })
            }
            Err(e) => Err(e),
        }
    };
    let mut l = lower_of(pl)?;
    if atoms {
        // the better of the two dominated laws (both bound the same side)
        let r = lower_of(profile(2))?;
        if (!tradeoff && r.lo() > l.lo()) || (tradeoff && r.hi() < l.hi()) {
            l = r;
        }
    }
    // δ and ε: the dominated law bounds from below, the dominating one from above, the worse direction
    // counts (max); f(α): the dominating law bounds from below, the dominated one from above, the worse
    // direction counts (min)
    let (dlo, dhi) = if tradeoff { (u.into_parts().0, l.into_parts().1) } else { (l.into_parts().0, u.into_parts().1) };
    Ok((dlo, dhi, work.into_inner()))
}

/// The certified bracket of the query from the dominated (lower) and dominating (upper) laws at step h,
/// the larger over the directions, and its work: per composed law, the atoms of its discretised factors
/// times the nodes of one inversion, or ten per interval product of the direct convolution (counts that
/// depend on the laws and h only).
fn pld_bracket(q: Query, laws: &Laws, h: &Rational, allow: u64) -> Fallible<(Interval, u64)> {
    let tradeoff = matches!(q, Query::Tradeoff(_));
    let mut lo: Option<Float> = None;
    let mut hi: Option<Float> = None;
    let mut spent = 0u64;
    for &dir in directions(laws) {
        let (dlo, dhi, work) = one_direction(q, laws, h, dir, allow.saturating_sub(spent))?;
        let pick = |acc: Option<Float>, v: Float| -> Float {
            match acc {
                Some(x) if (x >= v) != tradeoff => x,
                Some(x) if x == v => x,
                _ => v,
            }
        };
        lo = Some(pick(lo, dlo));
        hi = Some(pick(hi, dhi));
        spent += work;
    }
    let (lo, hi) = (lo.ok_or_else(|| err!(Internal, "no direction"))?, hi.ok_or_else(|| err!(Internal, "no direction"))?);
    if lo > hi {
        return fallible!(Internal, "the pld grid's lower bound {lo} exceeds its upper bound {hi}");
    }
    Ok((Interval::new(lo, hi), spent))
}

#[cfg(test)]
mod tests {
    use super::{direct, step_between, step_rational, upper, Direction, Laws, PLD_PREC};
    use rug::Rational;

    fn laws(specs: &[&str]) -> Vec<(std::sync::Arc<dyn crate::noise::loss::LossLaw>, u64)> {
        let groups = specs.iter().map(|s| crate::model::spec::parse_mech(s).unwrap()).collect();
        crate::model::Composition::new(groups, crate::model::Neighbors::AddRemove).unwrap().law_shifts().unwrap()
    }

    /// Sixteen releases or more are convolved directly where the a-priori bound of the direct composition
    /// fits (sparse grids: stated guarantees and discrete Gaussians, the sweep's case that took 42 s on the
    /// Fourier tails and takes 3 s convolved), and not where it does not (a thousand subsampled Gaussians:
    /// millions of points) or beyond the work left; fewer than sixteen always.
    #[test]
    fn many_releases_are_convolved_directly_where_their_bound_fits() {
        let grids = |laws: &Laws, h: &str| -> Vec<_> {
            let h = crate::num::parse_rational(h).unwrap();
            laws.iter().map(|(l, n)| (upper(l.as_ref(), Direction::Remove, &h, 90, PLD_PREC).unwrap(), *n)).collect()
        };
        let sparse = laws(&["dp:epsilon=1.207,delta=3.693e-05,n=6", "dp:epsilon=0.7401,delta=5.091e-06,n=5", "dgauss:sigma2=92.83,n=5"]);
        let g = grids(&sparse, "1/1000");
        // (at most 44,427 points and 4.9e8 products where the masses are kept to 2^-90)
        assert!(direct(&sparse, &g, u64::MAX) && direct(&sparse, &g, 1_000_000_000));
        assert!(!direct(&sparse, &g, 100_000_000));
        let dense = laws(&["gauss:sigma=1.1,q=0.0042667,n=1000"]);
        assert!(!direct(&dense, &grids(&dense, "1/100"), u64::MAX));
        let few = laws(&["gauss:sigma=1.1,q=0.0042667,n=15"]);
        assert!(direct(&few, &grids(&few, "1/100"), 0));
    }

    #[test]
    fn steps_are_short_decimals_at_most_h() {
        assert_eq!(step_rational(3.3e-4), Rational::from((2, 10000)));
        assert_eq!(step_rational(1e-3), Rational::from((1, 1000)));
        assert_eq!(step_rational(0.07), Rational::from((5, 100)));
        assert_eq!(step_rational(12.0), Rational::from(10));
    }

    #[test]
    fn a_step_between_lies_strictly_between_or_there_is_none() {
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        assert_eq!(step_between(783.0 / 157000.0, &q("1/5000")), Some(Rational::from((1, 1000))));
        assert_eq!(step_between(1e-3, &q("1/2000")), None);
        assert_eq!(step_between(1e-3, &q("1/1500")), None);
        assert_eq!(step_between(1e-2, &q("1/1000")), Some(Rational::from((5, 1000))));
    }
}
