//! Compositions of laws whose moment generating function is known on vertical lines — the
//! Poisson-subsampled Gaussian of DP-SGD, the Laplace mechanism, Gaussians beside them (`noise::mgf`) — by a tilted Fourier
//! inversion whose cost does not grow with the number of compositions.
//!
//! For the composed loss L of one direction, M(s) = Π_i M_i(s)^{n_i}, and for any tilt c > 0
//!
//!   δ(ε) = E[(1 − e^{ε − L})_+] = (1/2π) ∫ M(c + it) e^{−(c + it)ε} H(t) dt,   H(t) = 1/((c + it)(c + 1 + it)),
//!
//! H being the Fourier transform of ψ(y) = (1 − e^{−y})_+ e^{−cy} (the characteristic-function accounting of [ZDW22], tilted). The trapezoidal sum with
//! step h, S(ε) = e^{−cε} (h/2π) Σ_k M(c + ikh) e^{−ikhε} H(kh), is by Poisson's summation formula [AW92]
//! δ(ε) plus the aliased copies Σ_{m ≠ 0} e^{−2πcm/h} E[(1 − e^{−(L − ε + 2πm/h)})_+], every one
//! non-negative: those with m > 0 sum to at most e^{−2πc/h}/(1 − e^{−2πc/h}), those with m < 0 to at most
//! M(λ) e^{−λε} e^{−2π(λ−c)/h}/(1 − e^{−2π(λ−c)/h}) for any λ > c (Chernoff: (1 − e^{−y})_+ ≤ e^{λy}). So
//! δ ∈ [S − A, S]. The sum runs over |k| ≤ K (the terms k < 0 are the conjugates of k > 0); the rest is at
//! most e^{−cε} ρ/(π h K) with ρ ≥ sup_{t ≥ hK} |M(c + it)| (`noise::mgf::Decay`; |H(t)| ≤ 1/t²).
//!
//! The tilt c minimises the Chernoff bound M(c) e^{−cε}/(c(c + 1)), so the sum cancels a few digits at
//! most; h puts the aliasing, and K the rest, below the digits asked. Every M_i(c + ikh) is a certified
//! enclosure; the composition is exp(Σ n_i ln M_i), so its cost is one logarithm per law and node
//! whatever the n_i. ε(δ) is found by a safeguarded Newton iteration on the sum's midpoints, then certified
//! by two evaluations of δ's bracket around it (δ decreases in ε). The trade-off function f(α) =
//! sup_ε [1 − δ(ε) − e^ε α] comes from the same sums: the threshold where −δ'(ε) e^{−ε} = α (U' is summed
//! beside U), then δ at four points around it, whose concavity in e^ε bounds the supremum from above.
//!
//! One state per composition ([`Lines`], the accountant's): a line serves every query near the point it was
//! planned at. So that a cached line gives the bracket a fresh one would, every planning point is a function
//! of the query alone, snapped to a cell: the Chernoff level (or the level of the query's own estimate) is
//! rounded down to a multiple of two decades and the line planned where the estimate meets it. Queries
//! whose levels share a cell share their lines, and a second query costs the sums only; where a cell's line
//! falls short of the digits, a line at the query's own point follows, also a function of the query.

use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine, Trust};
use crate::err;
use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::noise::mgf::{Decay, Mgf};
use crate::noise::mgf_plan::{planning_decay, PlanDecay};
use crate::noise::mgf_quad::{fixed_expected, FIXED_COST};
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rayon::prelude::*;
use rug::{Float, Rational};
use std::collections::HashMap;
use std::f64::consts::{LN_10, PI};
use std::sync::{Arc, Mutex};

/// Largest quadrature work taken: nodes × line points in MPFR node evaluations (a fixed-point one counts
/// `FIXED_COST`), summed over laws and directions (~5 s; the pld grid, the alternative, takes its ~10 s budget for
/// a few digits where this cap binds: δ of 1e-30 and below).
const MAX_WORK: f64 = 1.5e7;
/// Largest ε (or ε's cell) the planning searches for: 10^12 subsampled Gaussians of DP-SGD (q = 256/60000,
/// σ = 1.1) have ε ≈ 1.2·10^7 at δ = 10^-5, past the former 10^6, where the engine declined and the pld grid
/// spent minutes for no digit. (Sixty doublings at most where the estimate never comes down.)
const MAX_CROSSING: f64 = 1e18;

/// Largest reach of the line t* = hK before the engine declines.
const MAX_REACH: f64 = 2e4;

/// Width of a planning cell, in nepers of the estimate's level (two decades).
const CELL: f64 = 2.0 * LN_10;

/// A line's key: direction, working precision, digits and the bits of its planning point.
type LineKey = (Direction, u32, u32, u64);
/// A cell's key: direction, the estimate it is of (`Estimate`), the cell's index and the digits.
type CellKey = (Direction, Estimate, i64, u32);

/// The planning estimates whose levels are snapped to cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Estimate {
    /// the Chernoff bound of δ(ε)
    Chernoff,
    /// the Chernoff bound times e^{−ε} (the alternative's mass above the threshold, for f(α))
    Tradeoff,
    /// the swapped pair's Chernoff bound times 1 + c (f(α) with its threshold below 0)
    Swapped,
}

/// The state of one composition (the accountant holds it): the lines computed so far, and the planning
/// points of the cells met so far (None: the estimate does not come down to the cell's level). Both are
/// functions of their keys, so the cache only makes a second query faster (module doc).
#[derive(Default)]
pub(super) struct Lines {
    lines: Mutex<HashMap<LineKey, Option<Arc<Line>>>>,
    cells: Mutex<HashMap<CellKey, Option<f64>>>,
    /// planning values ln M(λ) of the composition, by direction and λ's bits: the tilt searches of nearby
    /// points (a crossing's bisection, the next query's) walk mostly the same λ
    ln_mgf: Mutex<HashMap<(Direction, u64), f64>>,
    /// the plans of the lines, by direction, digits and the planning point's bits (the offer's estimate
    /// plans the line the answer then computes)
    plans: Mutex<HashMap<(Direction, u32, u64), Option<Plan>>>,
}

/// Planning values kept at most (past it the map starts afresh: the same values, computed again).
const LN_MGF_KEPT: usize = 1 << 16;

/// The value of `key` in `map`, computed by `f` and kept there the first time (the lock is not held while
/// `f` runs: two threads may both compute a key, and both get the same value, a function of the key).
fn memo<K: std::hash::Hash + Eq, V: Clone>(map: &Mutex<HashMap<K, V>>, key: K, f: impl FnOnce() -> Fallible<V>) -> Fallible<V> {
    let poisoned = |_| err!(Internal, "the tilted engine's cache is poisoned");
    if let Some(v) = map.lock().map_err(poisoned)?.get(&key) {
        return Ok(v.clone());
    }
    let v = f()?;
    map.lock().map_err(poisoned)?.insert(key, v.clone());
    Ok(v)
}

/// The engine, with the state of the composition it serves (an accountant holds one per composition).
#[derive(Default)]
pub(in crate::account) struct Tilted {
    lines: Lines,
}

impl super::LawEngine for Tilted {
    fn name(&self) -> &'static str {
        "tilted-fourier"
    }

    fn offer(&self, job: &super::Job) -> super::Offer {
        let Some((laws, _)) = finite_laws(job.laws) else {
            return super::Offer::Declined(
                "the stated (epsilon, delta) guarantees' chance of no infinite loss is beyond its exact rational's size cap".into(),
            );
        };
        match mgfs(&laws) {
            // (short of the digits where its work cap binds: the next rung may do better)
            Ok(mgfs) => super::Offer::Takes { stands: false, expects: None, seconds: estimate(&self.lines, &mgfs, job.q, job.digits) },
            Err(why) => super::Offer::Declined(why.into()),
        }
    }

    fn answer(&self, job: &super::Job) -> Fallible<Option<Certified>> {
        if let Some(c) = answer(&self.lines, job.laws, job.q, job.digits, job.trust)? {
            return Ok(Some(c));
        }
        // beyond the work cap at the digits asked (a few subsampled steps, whose moment generating function
        // decays slowly on its vertical lines: 30 steps at q = 0.01 need 6,500 points of the line for 20
        // digits): the most digits within it, a short answer the ladder keeps unless a later rung is narrower
        // (30 such steps: 11 digits in 4 s, where the pld grid certifies 2 in 19 s)
        for d in fewer_digits(job.digits) {
            if let Some(c) = answer(&self.lines, job.laws, job.q, d, job.trust)? {
                let why = format!(
                    "the tilted Fourier inversion's work cap ({MAX_WORK:.1e} MPFR node evaluations) allows no more here (few releases, \
                     whose moment generating function decays slowly on its vertical lines)"
                );
                return Ok(Some(c.with_note(why)));
            }
        }
        Ok(None)
    }
}

/// The directions computed: one where every law is symmetric (one law in both directions), else both.
fn directions(mgfs: &[(Mgf, u64)]) -> &'static [Direction] {
    if mgfs.iter().all(|(m, _)| m.symmetric()) {
        &[Direction::Remove]
    } else {
        &[Direction::Remove, Direction::Add]
    }
}

/// The working precision of the engine's lines at the digits asked (guard bits, and the bits of the count).
fn working_prec(digits: u32, n_total: u64) -> u32 {
    96 + (3.33 * f64::from(digits + 2)).ceil() as u32 + (64 - n_total.leading_zeros())
}

/// Each law's moment generating function with its count, or why the engine does not take the composition.
fn mgfs(laws: &[(Arc<dyn LossLaw>, u64)]) -> Result<Vec<(Mgf, u64)>, &'static str> {
    let Some(mgfs) = laws.iter().map(|(l, n)| l.mgf().map(|m| (m, *n))).collect::<Option<Vec<_>>>() else {
        return Err("a law has no certified moment generating function on vertical lines");
    };
    if mgfs.is_empty() || mgfs.iter().all(|(m, _)| m.is_gaussian()) {
        return Err("every law is a Gaussian (the closed forms answer)");
    }
    if mgfs.iter().all(|(m, _)| m.is_lattice()) {
        return Err("every law lives on a lattice, whose characteristic function does not decay (the lattice engines' exact sums answer)");
    }
    Ok(mgfs)
}

/// The fewer digits the engine tries where the digits asked are beyond its work cap, most first.
fn fewer_digits(digits: u32) -> Vec<u32> {
    // (the work grows quickly with the digits there; the phase sums in fixed point are priced at a fourteenth
    // of MPFR's (`FIXED_COST`), `docs/speed.md`)
    [16, 13, 10, 6, 3].into_iter().filter(|&d| d < digits).collect()
}

/// [`answer`] on laws with no infinite loss.
fn answer_finite(lines: &Lines, laws: &[(Arc<dyn LossLaw>, u64)], q: Query, digits: u32, trust: Trust) -> Fallible<Option<Certified>> {
    let Ok(mgfs) = mgfs(laws) else { return Ok(None) };
    let n_total: u64 = mgfs.iter().map(|(_, n)| *n).sum();
    let prec = working_prec(digits, n_total);
    // the two directions are independent: one on each core
    // (the planning sums' fixed values, once for both directions)
    let grids = planning_grids(&mgfs);
    let comp = |dir| Composition { laws: &mgfs, grids: &grids, dir, prec, digits, lines };
    let run = |dir: Direction| -> Fallible<Option<(Interval, String)>> {
        let comp = comp(dir);
        match q {
            Query::Delta(e) if *e >= 0 => comp.delta(&Interval::from_rational(e, prec)),
            Query::Epsilon(d) => comp.epsilon(d),
            Query::Tradeoff(a) => comp.tradeoff(a),
            Query::Delta(_) => Ok(None),
        }
    };
    // (a composition of symmetric laws has one law in both directions: one direction is computed)
    let symmetric = directions(&mgfs).len() == 1;
    let both = !symmetric && !likely_below(&comp(Direction::Remove), &comp(Direction::Add), q);
    // a direction the answer needs whose first line is beyond the work cap makes the answer None: known from
    // the plans alone, before the other direction's line is computed (16 MNIST steps at 13 digits computed
    // the added record's line, then found the removed record's beyond the cap)
    if comp(Direction::Remove).beyond_cap(q)? || (both && comp(Direction::Add).beyond_cap(q)?) {
        return Ok(None);
    }
    let (remove, add) = if symmetric {
        let r = run(Direction::Remove)?;
        let a = r.as_ref().map(|(iv, _)| (iv.clone(), "add: the same law".to_string()));
        (Ok(r), Ok(a))
    } else if both {
        rayon::join(|| run(Direction::Remove), || run(Direction::Add))
    } else {
        // δ and ε where planning expects the added record's direction below the removed one's: that one
        // first; the added record's is not computed where a bound without a line puts it below that answer
        // (its δ at the answer's lower end below the δ asked, or below the answer's δ)
        let r = run(Direction::Remove)?;
        let add = comp(Direction::Add);
        let why = r.as_ref().and_then(|(iv, _)| match q {
            Query::Epsilon(d) => add.below(iv.lo(), Interval::from_rational(d, prec).lo()),
            Query::Delta(e) if *e >= 0 => add.below(Interval::from_rational(e, prec).lo(), iv.lo()),
            _ => None,
        });
        let a = match why {
            Some(why) => Ok(r.as_ref().map(|(iv, _)| (iv.clone(), why))),
            None => run(Direction::Add),
        };
        (Ok(r), a)
    };
    let (Some((r, r_line)), Some((a, a_line))) = (remove?, add?) else { return Ok(None) };
    let detail = format!(
        "{n_total} releases of laws with a certified moment generating function ({}), tilted Fourier inversion, {prec} bits; {r_line}; {a_line}",
        kinds(&mgfs)
    );
    // δ and ε: the worse direction is the larger; f(α): the smaller
    let iv = if matches!(q, Query::Tradeoff(_)) { r.min(&a) } else { r.max(&a) };
    Certified::new(iv, Engine::Tilted, trust, detail).map(Some)
}

/// Planning, for the order of the two directions: whether the added record's direction is expected below
/// the removed one's by a margin of [`MARGIN`] — its bound without a line ([`Composition::below`]) at the
/// removed direction's Chernoff estimate of ε (ε(δ)), or below that direction's Chernoff estimate of δ (δ(ε)). Then the removed
/// record's direction is computed first and the other only where the certified bound fails; otherwise both
/// at once, one on each core. (Only the order and the work depend on it, not the bracket's validity.)
fn likely_below(rem: &Composition, add: &Composition, q: Query) -> bool {
    match q {
        Query::Epsilon(d) if *d > 0 && *d < 1 => {
            let level = d.to_f64().ln();
            crossing(|e| rem.tilt(e).1, level).is_some_and(|g| add.bound_f64(g) <= level - MARGIN)
        }
        Query::Delta(e) if *e >= 0 => {
            let e = e.to_f64();
            add.bound_f64(e) <= rem.tilt(e).1 - MARGIN
        }
        _ => false,
    }
}

/// How far below (in ln δ) planning must expect the added record's direction to compute the removed
/// one's first ([`likely_below`]): the Chernoff estimates sit above the true δ by a few nepers.
const MARGIN: f64 = 4.0 * LN_10;

/// Each law's [`Mgf::planning_grid`], in the order of the laws.
fn planning_grids(mgfs: &[(Mgf, u64)]) -> Vec<Option<Vec<f64>>> {
    mgfs.iter().map(|(m, _)| m.planning_grid()).collect()
}

/// The kinds of law in the composition, in words ("Poisson-subsampled Gaussian, Laplace").
fn kinds(mgfs: &[(Mgf, u64)]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (m, _) in mgfs {
        let k = match m {
            Mgf::Gaussian { .. } => "Gaussian",
            Mgf::PoissonGaussian { .. } => "Poisson-subsampled Gaussian",
            Mgf::PoissonReplace { .. } => "Poisson-subsampled Gaussian (replace-one pair)",
            Mgf::Mixture { .. } => "mixture of Gaussians",
            Mgf::Laplace { .. } => "Laplace",
            Mgf::PoissonLaplace { .. } => "Poisson-subsampled Laplace",
            Mgf::PoissonReplaceLaplace { .. } => "Poisson-subsampled Laplace (replace-one pair)",
            Mgf::WorGaussian { .. } => "Gaussian on fixed-size batches",
            Mgf::WorLaplace { .. } => "Laplace on fixed-size batches",
            Mgf::Branches { .. } => "truncated Poisson-subsampled Gaussian",
            Mgf::DiscreteGaussian { .. } => "discrete Gaussian",
            Mgf::RandomizedResponse(_) => "randomized response",
            Mgf::BoundedRange { .. } => "exponential mechanism (bounded range)",
            Mgf::PoissonBoundedRange { .. } => "Poisson-subsampled exponential mechanism (bounded range)",
        };
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out.join(", ")
}

/// One direction of the composition.
#[derive(Clone, Copy)]
struct Composition<'a> {
    laws: &'a [(Mgf, u64)],
    /// each law's [`Mgf::planning_grid`]
    grids: &'a [Option<Vec<f64>>],
    dir: Direction,
    prec: u32,
    digits: u32,
    lines: &'a Lines,
}

/// The planned tilt c, step h, λ of the aliased copies below, line points k_max + 1, the quadrature's
/// absolute tolerance and its work.
#[derive(Clone, Copy)]
struct Plan {
    c: f64,
    h: f64,
    lambda: f64,
    k_max: usize,
    tol_q: f64,
    work: f64,
    /// where the rest is bounded point by point: its far end F (`tilted_rest`; 0: the sup bound from k_max)
    far: usize,
    /// the tolerance of the rest (ln)
    ln_tol: f64,
}

/// The dyadic grid's step of tilts and steps, 2^-30 (also the smallest tilt taken).
const DYADIC: f64 = 1.0 / 1073741824.0;

/// Round x down to a multiple of [`DYADIC`] (tilts and steps are dyadic: c + 1 and kh are exact).
fn dyadic(x: f64) -> f64 {
    (x / DYADIC).floor() * DYADIC
}

impl Composition<'_> {
    /// An upper bound of the composed loss, Σ n_i sup L_i, enclosed (None: unbounded).
    fn loss_sup(&self) -> Option<Interval> {
        let mut s = Interval::zero(self.prec);
        for (m, n) in self.laws {
            s = s.add(&m.loss_sup(self.dir, self.prec)?.mul(&Interval::from_i64(*n as i64, self.prec)));
        }
        Some(s)
    }

    /// Where this direction's δ at `x` is certainly at most `level` without a line, why (None: not shown).
    /// δ(x) = E[(1 − e^{x−L})₊] is 0 for x at or above the loss's supremum; and since
    /// (1 − e^{−y})₊ ≤ C_λ e^{λy} with C_λ = sup_{y>0} (1 − e^{−y}) e^{−λy} = λ^λ/(λ + 1)^{λ+1}, every λ > 0 gives
    /// δ(x) ≤ C_λ M(λ) e^{−λx} (Chernoff's bound for the hockey-stick divergence), with M(λ) = Π M_i(λ)^{n_i}
    /// from each law's certified upper bound at real λ. λ is chosen in f64 (planning), the bound is certified.
    fn below(&self, x: &Float, level: &Float) -> Option<String> {
        let p = self.prec;
        if self.loss_sup().is_some_and(|s| s.hi() <= x) {
            return Some(format!("{}: δ = 0 there (the loss is at most the answer)", self.dir.as_str()));
        }
        if *level <= 0 {
            return None;
        }
        let (xf, ln_level) = (x.to_f64(), level.to_f64().ln());
        let lam = self.bound_lambda(xf)?;
        // a margin of 1/1000 in the planning value before the certified bound is taken
        if self.bound_at(lam, xf) > ln_level - 1e-3 {
            return None;
        }
        let ln_lvl = Interval::from_float(level, p).ln();
        (self.ln_bound(lam, x).hi() <= ln_lvl.lo())
            .then(|| format!("{}: below the other direction's answer (Chernoff's bound at λ = {lam:.4}, not inverted)", self.dir.as_str()))
    }

    /// ln of [`Self::below`]'s bound C_λ M(λ) e^{−λx} at λ > 0, enclosed from above (each M_i(λ) by its
    /// certified upper bound at real λ).
    fn ln_bound(&self, lam: f64, x: &Float) -> Interval {
        let p = self.prec;
        let lf = Float::with_val(p, lam);
        let li = Interval::from_float(&lf, p);
        let l1 = li.add(&Interval::one(p));
        let mut ln_m = Interval::zero(p);
        for (m, n) in self.laws {
            let up = m.ln_real_upper(self.dir, &lf, p);
            ln_m = ln_m.add(&Interval::from_float(&up, p).mul(&Interval::from_i64(*n as i64, p)));
        }
        ln_m.add(&li.mul(&li.ln())).sub(&l1.mul(&l1.ln())).sub(&li.mul(&Interval::from_float(x, p)))
    }

    /// Planning: ln of [`Self::below`]'s bound C_λ M(λ) e^{−λx} in f64.
    fn bound_at(&self, lam: f64, x: f64) -> f64 {
        self.ln_mgf(lam) + lam * lam.ln() - (lam + 1.0) * (lam + 1.0).ln() - lam * x
    }

    /// Planning: the λ (dyadic, on a geometric grid from 1/8) with the least bound at x.
    fn bound_lambda(&self, x: f64) -> Option<f64> {
        (0..=60)
            .map(|j| dyadic(0.125 * 1.15f64.powi(j)))
            .filter(|l| self.bound_at(*l, x).is_finite())
            .min_by(|a, b| self.bound_at(*a, x).total_cmp(&self.bound_at(*b, x)))
    }

    /// Planning: [`Self::below`]'s least bound at x in f64 (+∞ where none is finite), or −∞ at or above
    /// the loss's supremum.
    fn bound_f64(&self, x: f64) -> f64 {
        if self.loss_sup().is_some_and(|s| s.hi().to_f64() <= x) {
            return f64::NEG_INFINITY;
        }
        self.bound_lambda(x).map_or(f64::INFINITY, |l| self.bound_at(l, x))
    }

    /// Planning: ln M(λ) of the composition.
    fn ln_mgf(&self, lam: f64) -> f64 {
        let key = (self.dir, lam.to_bits());
        // (a poisoned map only loses its speed: the value is computed afresh)
        if let Some(v) = self.lines.ln_mgf.lock().ok().and_then(|m| m.get(&key).copied()) {
            return v;
        }
        let v = self.laws.iter().zip(self.grids).map(|((m, n), g)| *n as f64 * m.ln_real_f64_on(self.dir, lam, g.as_deref())).sum();
        if let Ok(mut m) = self.lines.ln_mgf.lock() {
            if m.len() >= LN_MGF_KEPT {
                m.clear();
            }
            m.insert(key, v);
        }
        v
    }

    /// Planning: the tilt minimising the Chernoff bound at ε (the objective is convex in c), and the bound's log.
    fn tilt(&self, eps: f64) -> (f64, f64) {
        let g = |c: f64| self.ln_mgf(c) - c * eps - (c * (c + 1.0)).ln();
        // (to 64 × 0.618^40 ≈ 3e-7: the bound is flat there, and c is a planning choice — any c > 0 is sound)
        let c = dyadic(golden(&g, 1e-4, 64.0)).max(DYADIC);
        // the optimum at the search's end, on laws whose ln M is a closed form or a direct sum in double
        // precision (not the subsampled Gaussian's quadrature, whose fixed window misses the mass that large
        // tilts weigh): on to 1e5, by golden section on ln c (g is convex in c, so unimodal in ln c). Large
        // tilts are the compositions with much noise, where ε is small against the loss's spread: at 10
        // Gaussian and 10 discrete Gaussian releases of σ² = 10⁶, c ≈ 1,150
        // the optimum at the search's lower end (to its resolution): on down to 2^-30, the dyadic grid's
        // step, by golden section on ln c. Tiny tilts are the compositions whose loss spreads far wider than
        // its distance to ε: 10^12 Laplace releases of scale 1 (c ≈ 5e-6, where the bound at 1e-4 is 3,000
        // nepers too high and the engine declined)
        if c < 1e-4 + 1e-6 {
            let c = dyadic(golden(&|u: f64| g(u.exp()), DYADIC.ln(), 2e-4f64.ln()).exp()).max(DYADIC);
            return (c, g(c));
        }
        if c < 63.0 || !self.exact_real() {
            return (c, g(c));
        }
        let c = dyadic(golden(&|u: f64| g(u.exp()), 64f64.ln(), 1e5f64.ln()).exp());
        (c, g(c))
    }

    /// Planning: every law's planning values are closed forms or direct sums at every tilt ([`Mgf::exact_real`]).
    fn exact_real(&self) -> bool {
        self.laws.iter().all(|(m, _)| m.exact_real())
    }

    /// Planning: true where this direction's answer to `q` is certainly None because the first line it takes
    /// is beyond the work cap (the first plans of [`Composition::epsilon`] and [`Composition::delta`], from the
    /// same steps, kept in the composition's state for them); false where that is not known without a line
    /// (f(α)).
    fn beyond_cap(&self, q: Query) -> Fallible<bool> {
        match q {
            Query::Epsilon(d) if *d > 0 && *d < 1 => match self.epsilon_guess(d)? {
                Some(guess) => Ok(self.planned_line(guess)?.is_none()),
                None => Ok(false),
            },
            Query::Delta(e) if *e >= 0 => {
                let e = Interval::from_rational(e, self.prec);
                if self.loss_below(&e) {
                    return Ok(false);
                }
                let at = e.to_f64();
                let cell = match self.delta_cell(at)? {
                    Some(cell) => self.planned_line(cell)?.is_some(),
                    None => false,
                };
                Ok(!cell && self.planned_line(at)?.is_none())
            }
            _ => Ok(false),
        }
    }

    /// Planning, ε(δ)'s first step: where the Chernoff bound meets δ (an upper estimate of ε), in δ's cell.
    fn epsilon_guess(&self, delta: &Rational) -> Fallible<Option<f64>> {
        self.planned(Estimate::Chernoff, |e| self.tilt(e).1, delta.to_f64().ln())
    }

    /// Planning, δ(ε)'s first step: the point of the Chernoff bound's cell at ε, whose line serves every ε of
    /// the cell.
    fn delta_cell(&self, at: f64) -> Fallible<Option<f64>> {
        let chernoff = |x: f64| self.tilt(x).1;
        self.planned(Estimate::Chernoff, chernoff, chernoff(at))
    }

    /// True where the loss is certainly at most ε, so δ(ε) = E[(1 − e^{ε − L})_+] = 0 exactly.
    fn loss_below(&self, e: &Interval) -> bool {
        self.loss_sup().is_some_and(|s| s.hi() <= e.lo())
    }

    /// The line planned at `eps`, from the composition's state or computed and kept there.
    fn line(&self, eps: f64) -> Fallible<Option<Arc<Line>>> {
        let key = (self.dir, self.prec, self.digits, eps.to_bits());
        memo(&self.lines.lines, key, || Ok(self.fresh_line(eps)?.map(Arc::new)))
    }

    /// Planning: where the decreasing estimate `est` of kind `kind` comes down to `level` rounded down to
    /// its cell (a multiple of [`CELL`]), from the composition's state or found and kept there. The point
    /// is at or beyond the one where `est` meets `level` itself (None past the search's reach).
    fn planned(&self, kind: Estimate, est: impl Fn(f64) -> f64, level: f64) -> Fallible<Option<f64>> {
        if !level.is_finite() {
            return Ok(None);
        }
        let j = (-level / CELL).ceil() as i64;
        memo(&self.lines.cells, (self.dir, kind, j, self.digits), || Ok(crossing(est, -(j as f64) * CELL)))
    }

    /// δ(ε) in this direction, certified, and the line's description: from the line of ε's cell, or, where
    /// that one falls short of the digits, from a line planned at ε itself (None: beyond the work cap).
    fn delta(&self, e: &Interval) -> Fallible<Option<(Interval, String)>> {
        if self.loss_below(e) {
            return Ok(Some((Interval::zero(self.prec), format!("{}: the loss is at most ε, δ = 0", self.dir.as_str()))));
        }
        let at = e.to_f64();
        let mut short = None;
        if let Some(cell) = self.delta_cell(at)? {
            if let Some(line) = self.line(cell)? {
                let d = line.delta(e);
                if d.meets(self.digits) {
                    return Ok(Some((d, line.describe())));
                }
                short = Some((d, line.describe()));
            }
        }
        // (a line at ε itself beyond the work cap: the cell's short bracket, if any)
        Ok(self.line(at)?.map(|line| (line.delta(e), line.describe())).or(short))
    }

    /// The sum for ε near `eps` (planning value), certified; None beyond the work cap.
    fn fresh_line(&self, eps: f64) -> Fallible<Option<Line>> {
        let p = self.prec;
        let Some(Plan { c, h, lambda, k_max, tol_q, work, far, .. }) = self.planned_line(eps)? else { return Ok(None) };
        crate::num::cancel::check()?;
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!(
                "tilted line: {} at {eps:.6}, {} digits: c = {c}, h = {h}, {} points, work {work:.3e}",
                self.dir.as_str(),
                self.digits,
                k_max + 1
            );
        }
        let cf = Float::with_val(p, c);
        let hf = Float::with_val(p, h);
        let values: Vec<Vec<CInterval>> = self.laws.iter().map(|(m, _)| m.line(self.dir, &cf, &hf, k_max, tol_q, p)).collect();
        // the certified rest: each law's decay from its certified M_i(c), beyond the line's end or, where the
        // rest is bounded point by point to F, beyond F (`tilted_rest`)
        let decays: Vec<Decay> = self.laws.iter().zip(&values).map(|((m, _), v)| m.decay(self.dir, &cf, v[0].re().hi(), p)).collect();
        let sup_from = if far > 0 { far } else { k_max };
        let mut ln_rest = Interval::zero(64);
        for ((_, n), d) in self.laws.iter().zip(&decays) {
            ln_rest = ln_rest.add(&Interval::from_float(&d.ln_upper(h * sup_from as f64), 64).mul(&Interval::from_i64(*n as i64, 64)));
        }
        let ln_rest = ln_rest.hi().clone();
        let near = (far > 0).then(|| {
            let scale = values.iter().zip(self.laws).map(|(v, (_, n))| v[0].re().hi().to_f64().ln() * *n as f64).sum::<f64>();
            let factors = self.rest_factors(c, Some(&decays));
            (tilted_rest::ln_near_float(&factors, h, k_max, far, scale), far)
        });
        let g = self.compose(&values, &cf, &hf);
        let lf = Float::with_val(p, lambda);
        let mut ln_m_lambda = Interval::zero(p);
        for (m, n) in self.laws {
            ln_m_lambda =
                ln_m_lambda.add(&Interval::from_float(&m.ln_real_upper(self.dir, &lf, p), p).mul(&Interval::from_i64(*n as i64, p)));
        }
        let ln_m_lambda = ln_m_lambda.hi().clone();
        Ok(Some(Line { dir: self.dir, c: cf, h: hf, g, lambda: lf, ln_m_lambda, ln_rest, near, g64: Default::default() }))
    }

    /// [`Composition::plan`] at `eps`, from the composition's state or planned and kept there.
    fn planned_line(&self, eps: f64) -> Fallible<Option<Plan>> {
        memo(&self.lines.plans, (self.dir, self.digits, eps.to_bits()), || Ok(self.plan(eps)))
    }

    /// Planning: the cheapest tilt, step and reach for ε near `eps`. The Chernoff-optimal tilt c₀ makes the
    /// sum cancel least, but the aliased copies below grow like e^{2πc/h}: other tilts (up to a sum 20 nepers
    /// above the bound at c₀, which the working precision's guard bits absorb) allow another step, and the
    /// one with the least quadrature work is taken. Smaller tilts allow a larger step where the sum's terms
    /// decay slowly; larger ones where c₀ is small, near the bulk of the loss (f(α) of 10⁴ Laplace releases
    /// at α = 1/10: c₀ = 0.0068, h = 0.0007), on laws whose planning values hold at every tilt.
    fn plan(&self, eps: f64) -> Option<Plan> {
        let (c0, ln_chern) = self.tilt(eps);
        let mut best: Option<Plan> = None;
        // from c₀ down, then up; the work is unimodal in c in practice: two worse in a row end each way. Up
        // to 2.4 c₀ only where a law's planning values are a quadrature (the subsampled Gaussian's fixed
        // window misses the mass that much larger tilts weigh, as in `tilt`: unbounded, the planning once led
        // a line's quadrature to a NaN node at q = 1e-300; three steps up halve the line of f(1/2) at
        // q = 0.1, σ = 0.6, T = 100, 1,105 → 601 points)
        let ratios: &[f64] = &[0.75, 1.0 / 0.75];
        for &ratio in ratios {
            let mut worse = 0;
            let last = if ratio > 1.0 && !self.exact_real() { 4 } else { 16 };
            for j in u8::from(ratio > 1.0)..last {
                let c = dyadic(c0 * ratio.powi(j.into()));
                let Some(ln_s) = self.tilted_sum(c, eps, ln_chern) else { break };
                let Some(plan) = self.plan_at(c, eps, ln_chern, ln_s) else { continue };
                match &best {
                    Some(b) if plan.work >= b.work => {
                        worse += 1;
                        if worse == 2 {
                            break;
                        }
                    }
                    _ if plan.work <= MAX_WORK => {
                        best = Some(plan);
                        worse = 0;
                    }
                    _ => {}
                }
            }
        }
        best.map(|b| self.shortened(b, eps))
    }

    /// Planning: the plan's line cut where the rest, bounded point by point by the laws' moduli
    /// (`tilted_rest`), is below the tolerance, where that is shorter than the sup bound's reach; the plan as
    /// it is otherwise.
    fn shortened(&self, plan: Plan, eps: f64) -> Plan {
        if plan.k_max <= tilted_rest::FROM_POINTS || !tilted_rest::applies(self.laws, plan.c) {
            return plan;
        }
        let factors = self.rest_factors(plan.c, None);
        // (the sup bound beyond the far point, from the factors' own planning decays)
        let far_t = plan.h * (plan.k_max * tilted_rest::FAR_FACTOR) as f64;
        let ln_sup_far: f64 = factors.iter().map(|f| f.decay.ln_upper(far_t) * f.n as f64).sum();
        let Some((k_max, far)) = tilted_rest::shorter(&factors, plan.h, plan.c * eps, plan.k_max, ln_sup_far, plan.ln_tol) else {
            return plan;
        };
        let work = self.work(plan.c, plan.h, k_max, plan.tol_q);
        Plan { k_max, far, work, ..plan }
    }

    /// The laws as the point-by-point rest takes them at tilt `c`: each law's modulus where it has one, else
    /// its decay bound (certified from `decays`, else the planning one).
    fn rest_factors<'d>(&self, c: f64, decays: Option<&'d [Decay]>) -> Vec<tilted_rest::Factor<'d>> {
        self.laws
            .iter()
            .zip(self.grids)
            .enumerate()
            .map(|(i, ((m, n), g))| {
                let decay = match decays {
                    Some(d) => tilted_rest::Bound::Certified(&d[i]),
                    None => tilted_rest::Bound::Plan(planning_decay(
                        m,
                        self.dir,
                        c,
                        m.ln_real_f64_on(self.dir, c, g.as_deref()).exp() * (1.0 + 1e-9),
                    )),
                };
                tilted_rest::Factor { n: *n, modulus: m.modulus(c), decay }
            })
            .collect()
    }

    /// Planning: ln of the line's sum at tilt `c` for ε near `eps`, ln M(c) − cε, where `c` is among the tilts
    /// [`Composition::plan`] takes (None past them: the sum more than 20 nepers above the bound at c₀, or no
    /// moment there).
    fn tilted_sum(&self, c: f64, eps: f64, ln_chern: f64) -> Option<f64> {
        let ln_s = self.ln_mgf(c) - c * eps;
        let past = c <= 0.0 || !ln_s.is_finite() || ln_s - (c * (c + 1.0)).ln() - ln_chern > 20.0;
        (!past).then_some(ln_s)
    }

    /// Planning: the step, reach and work of the line at tilt `c` for ε near `eps`, its sum e^`ln_s`
    /// ([`Composition::tilted_sum`]); None where no step or reach fits.
    fn plan_at(&self, c: f64, eps: f64, ln_chern: f64, ln_s: f64) -> Option<Plan> {
        let ln_tol = ln_chern - f64::from(self.digits + 4) * LN_10 - 4f64.ln();
        let n_total: f64 = self.laws.iter().map(|(_, n)| *n as f64).sum();
        let (h, lambda) = self.step(c, eps, ln_tol)?;
        // the quadrature's share: n tol_q e^{ln M(c) − cε} (h/(2πc(c + 1)) + 1/(2c)) ≤ tol/4
        let spread = (h / (2.0 * PI * c * (c + 1.0)) + 0.5 / c).ln();
        let tol_q = (ln_tol - 4f64.ln() - ln_s - n_total.ln() - spread).exp();
        let planned: Vec<PlanDecay> = self
            .laws
            .iter()
            .zip(self.grids)
            .map(|((m, _), g)| planning_decay(m, self.dir, c, m.ln_real_f64_on(self.dir, c, g.as_deref()).exp() * (1.0 + 1e-9)))
            .collect();
        let reach = self.reach(&planned, c, eps, h, ln_tol)?;
        let k_max = (reach / h).ceil() as usize;
        let work = self.work(c, h, k_max, tol_q);
        Some(Plan { c, h, lambda, k_max, tol_q, work, far: 0, ln_tol })
    }

    /// Planning: the quadrature work of a line, in MPFR node evaluations (nodes × points, summed over the
    /// laws), a law whose phase sums are expected in fixed point counted at their cost
    /// (`mgf_quad::fixed_expected`, `FIXED_COST`).
    fn work(&self, c: f64, h: f64, k_max: usize, tol_q: f64) -> f64 {
        self.laws
            .iter()
            .zip(self.grids)
            .map(|((m, _), g)| {
                let nodes = m.nodes(self.dir, c, h * k_max as f64, tol_q);
                let fixed = m.phase_sums() && fixed_expected(nodes, k_max, tol_q, m.ln_real_f64_on(self.dir, c, g.as_deref()));
                nodes as f64 * (k_max + 1) as f64 * if fixed { FIXED_COST } else { 1.0 }
            })
            .sum()
    }

    /// Planning: the largest step h (from 2πc/h = 1 − ln_tol down by factors 0.85) whose aliased copies
    /// below, e^{2πc/h} P[L > ε + 2π/h] by Chernoff at the best λ > c, are under the tolerance too; and λ.
    fn step(&self, c: f64, eps: f64, ln_tol: f64) -> Option<(f64, f64)> {
        // λ − c from 0.05 up; where no step fits and c is small, from c/8 up (the loss's spread so wide that
        // λ = c + 0.05 weighs its tail by e^{10^8}: 10^12 Laplace releases, c ≈ 9e-6)
        self.step_from(0.05, c, eps, ln_tol).or_else(|| (c < 0.05).then(|| self.step_from(c / 8.0, c, eps, ln_tol)).flatten())
    }

    /// [`Composition::step`] with the candidate λ at c + `d0`·1.1^j.
    fn step_from(&self, d0: f64, c: f64, eps: f64, ln_tol: f64) -> Option<(f64, f64)> {
        // the candidate λ and their Chernoff exponents ln M(λ) − λε, once
        let cands: Vec<(f64, f64)> = (0..=80)
            .map(|j| dyadic(c + d0 * 1.1f64.powi(j)))
            .filter(|l| *l <= c + 20.0 && *l > c)
            .map(|l| (l, self.ln_mgf(l) - l * eps))
            .filter(|(_, v)| v.is_finite())
            .collect();
        let mut h = 2.0 * PI * c / (1.0 - ln_tol);
        for _ in 0..40 {
            let f = |(l, v): &(f64, f64)| v - 2.0 * PI * (l - c) / h;
            let best = cands.iter().min_by(|x, y| f(x).total_cmp(&f(y)))?;
            if f(best) <= ln_tol && dyadic(h) > 0.0 {
                return Some((dyadic(h), best.0));
            }
            h *= 0.85;
        }
        None
    }

    /// Planning: the smallest t* (to 1%) where the rest of the sum e^{−cε} ρ(t*)/(π t*) is below e^{ln_tol}.
    fn reach(&self, decays: &[PlanDecay], c: f64, eps: f64, h: f64, ln_tol: f64) -> Option<f64> {
        let rest = |t: f64| -> f64 {
            let r: f64 = decays.iter().zip(self.laws).map(|(d, (_, n))| d.ln_upper(t) * *n as f64).sum();
            r - c * eps - (PI * t).ln()
        };
        let mut hi = 4.0 * h;
        while rest(hi) > ln_tol {
            hi *= 2.0;
            if hi > MAX_REACH {
                return None;
            }
        }
        let mut lo = hi / 2.0;
        while hi - lo > 0.01 * hi {
            let mid = (lo + hi) / 2.0;
            if rest(mid) > ln_tol {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    /// G_k = M(c + ikh) H(kh) with M = Π M_i^{n_i}, each power by repeated squaring (the nodes in
    /// parallel: each is a function of its own values, so the line is the same on any number of threads).
    fn compose(&self, values: &[Vec<CInterval>], c: &Float, h: &Float) -> Vec<CInterval> {
        let p = self.prec;
        let ci = Interval::from_float(c, p);
        let c1 = ci.add(&Interval::one(p));
        (0..values[0].len())
            .into_par_iter()
            .map(|k| {
                let mut m = CInterval::one(p);
                for ((_, n), v) in self.laws.iter().zip(values) {
                    m = m.mul(&v[k].pow_u64(*n));
                }
                let t = Interval::from_float(h, p).mul(&Interval::from_i64(k as i64, p));
                let den = CInterval::new(ci.clone(), t.clone()).mul(&CInterval::new(c1.clone(), t));
                m.mul(&den.inv().expect("invariant: c > 0: (c + it)(c + 1 + it) is not 0"))
            })
            .collect()
    }

    /// ε(δ) in this direction, certified, and the line's description (None: not decided within the engine's
    /// reach).
    fn epsilon(&self, delta: &Rational) -> Fallible<Option<(Interval, String)>> {
        let p = self.prec;
        if *delta <= 0 || *delta >= 1 {
            return Ok(None);
        }
        let d = Interval::from_rational(delta, p);
        let Some(mut guess) = self.epsilon_guess(delta)? else { return Ok(None) };
        let mut first = None;
        for round in 0..2 {
            // (the second line beyond the work cap: the first's short bracket, if any)
            let Some(line) = self.line(guess)? else { return Ok(first) };
            let zero = Interval::zero(p);
            if *line.delta(&zero).hi() <= *d.lo() {
                return Ok(Some((zero, line.describe())));
            }
            let e = line.solve(&d.mid(), guess, self.digits + 6);
            let iv = line.bracket(&e, &d, self.digits);
            if meets(&iv, self.digits) || (round == 1 && iv.is_some()) {
                return Ok(iv.map(|iv| (iv, line.describe())));
            }
            if round == 0 {
                first = iv.map(|iv| (iv, line.describe()));
            }
            // the line was planned far from the answer (its aliased copies below grow like e^{−λε} away
            // from the point it was planned at): once more at the answer
            guess = e.to_f64().max(0.0);
        }
        Ok(first)
    }
}

/// Planning: the minimiser of a unimodal `f` on [a, b], by 40 golden-section steps (the midpoint of the
/// last bracket).
fn golden(f: &dyn Fn(f64) -> f64, mut a: f64, mut b: f64) -> f64 {
    for _ in 0..40 {
        let (x, y) = (a + (b - a) * 0.382, a + (b - a) * 0.618);
        if f(x) < f(y) {
            b = y;
        } else {
            a = x;
        }
    }
    (a + b) / 2.0
}

/// Planning: where a decreasing estimate `est` (a logarithm) comes down to `target`, from above, by doubling
/// from 1 and 36 bisections, to 2^-36 of the bracket (None past [`MAX_CROSSING`]).
fn crossing(est: impl Fn(f64) -> f64, target: f64) -> Option<f64> {
    let (mut a, mut b) = (0.0f64, 1.0f64);
    while est(b) > target {
        b *= 2.0;
        if b > MAX_CROSSING {
            return None;
        }
    }
    for _ in 0..36 {
        let m = (a + b) / 2.0;
        if est(m) > target {
            a = m;
        } else {
            b = m;
        }
    }
    Some(b)
}

/// The bracket is as narrow as the digits asked.
fn meets(iv: &Option<Interval>, digits: u32) -> bool {
    iv.as_ref().is_some_and(|iv| iv.meets(digits))
}

#[path = "tilted_line.rs"]
mod line;

#[path = "tilted_rest.rs"]
mod tilted_rest;
use line::Line;

#[path = "tilted_tradeoff.rs"]
mod tradeoff;

#[path = "tilted_finite.rs"]
mod finite;
use finite::{answer, finite_laws};

#[path = "tilted_price.rs"]
mod price;
use price::estimate;

#[cfg(test)]
#[path = "tilted_tests.rs"]
mod tests;
