//! The accountant: one entry point for privacy profiles of any composition, which picks the engine and
//! the working precision itself and returns one certified result type.
//!
//! Vocabulary (after Google's dp_accounting): a [`Composition`] is composed with `compose` /
//! `self_compose` (in `model`); an [`Accountant`] answers `epsilon(δ)` (ε for δ), `delta(ε)` (δ for ε),
//! `tradeoff(α)` (f(α)) and `knots()` (the vertices of f), each as a [`Certified`] bracket that carries
//! the engine that produced it.
//!
//! **Engine choice** (`Method::Auto`, the default): the exact MPFR lattice when its window and work are
//! practical; the certified f64 lattice when the MPFR work would exceed the time budget; the certified
//! smoothed Fourier inversion when no practical common lattice exists. An explicit method forces one.
//!
//! **Accuracy in digits, not bits.** The request is a number of correct significant digits (default 20:
//! relative width ≤ 1e-20). The accountant chooses the working precision and the truncation depth of the
//! lattice from the request — the depth must cover log2(1/δ) + ε·log2(e) + the digits, because the second
//! term e^ε·P[…] multiplies the mass left outside the window by e^ε — then raises both by the observed
//! shortfall until the bracket meets the target, or returns the best certified bracket with a note that
//! says why it is wider. `Options::arith` (an expert override) forces the lattice arithmetic
//! ([`crate::num::Arith`]: f64, double-double, or MPFR at a precision).

pub(crate) mod analysis;
pub(crate) mod certified;
mod choice;
pub(crate) mod engines;
pub(crate) mod geometric;
pub mod gridprofile;
mod honesty;
mod laws;
mod profile;
mod rdp_bound;
mod renyi;
mod rho_bound;
mod single;
mod vocabulary;

/// Narrowest smoothed ε bracket an accountant may be asked for (`Options::width`).
pub use crate::fourier::smooth::MIN_WIDTH;
/// Largest lattice (entries) any lattice engine builds.
pub use crate::pld::frame::MAX_WINDOW as MAX_LATTICE_ENTRIES;
pub use certified::{Certified, Engine, Estimate, Map, Trust};
pub use profile::{lattice_depth, Knot, Profile};
pub use vocabulary::{DeltaResult, Method, Options, CERT_WIDTH, DEFAULT_DIGITS, DEFAULT_GRID_WORK, FAST_WINDOW, MAX_DIGITS};

use crate::budget::zcdp;
use crate::error::{Error, ErrorKind, Fallible};
use crate::model::{Composition, Group};
use crate::num::{Arith, Interval};
use crate::pld::estimate::estimated_window_shifts;
use crate::{err, fallible};
use choice::{AutoEngine, FOURIER_FEW_GROUPS};
use rug::{Float, Rational};
use vocabulary::Query;

/// Certified ε(δ) of a composition on the lattice in a fixed arithmetic (`None`: the accountant's choice for
/// its default digits), the smoothed inversion (bracket
/// at most `width` wide) where no practical lattice exists or the lattice exceeds `lattice_max` entries.
pub fn epsilon_at(comp: &Composition, delta: &Rational, arith: Option<Arith>, width: f64, lattice_max: Option<u64>) -> Fallible<Certified> {
    let opts = Options { arith, width: Some(width), lattice_max, ..Options::default() };
    Accountant::new(comp.clone(), opts)?.epsilon(delta)
}

/// ε(δ) for a calibration search: [`epsilon_at`]'s engines, except where the accountant's own choice
/// (no precision override, no lattice limit) is the lattice Fourier inversion — a few noise groups on a
/// wide lattice (100,000 × N_Z(0, 37.7)), where the lattice would take minutes and the smoothed inversion
/// declines for the small ε of a calibration target: then the inversion at 20 digits (the calibration's
/// 1e-12 factor bracket needs ~14).
pub fn epsilon_for_calibration(
    comp: &Composition,
    delta: &Rational,
    arith: Arith,
    width: f64,
    lattice_max: Option<u64>,
) -> Fallible<Certified> {
    let probe = Accountant::new(comp.clone(), Options::default())?;
    if matches!(probe.auto_engine(Query::Epsilon(delta)), Ok(AutoEngine::LatticeFourier)) {
        return Accountant::new(comp.clone(), Options { method: Method::LatticeFourier, ..Options::default() })?.epsilon(delta);
    }
    // a few groups: the accountant's own choice at 20 digits (the double-double lattice, ~10 ms, where a
    // fixed 256-bit MPFR lattice takes ~0.4 s per evaluation of 1,000 × N_Z(0, 37.7))
    if probe.shifts.len() <= FOURIER_FEW_GROUPS {
        return probe.epsilon(delta);
    }
    epsilon_at(comp, delta, Some(arith), width, lattice_max)
}

/// The accountant of one composition.
pub struct Accountant {
    comp: Composition,
    shifts: Vec<Group>,
    opts: Options,
    /// the exact lattice's profiles (`engines::lattice`)
    lattice: engines::lattice::LatticeState,
    /// the lattice Fourier inversion's profiles and price (`engines::lattice_fourier`)
    fourier: engines::lattice_fourier::FourierState,
    /// the engines of compositions with laws, each with its own state (`engines::law_engines`)
    law_engines: Vec<Box<dyn engines::LawEngine>>,
}

/// The smoothed inversion's error as the accountant sees it: its `Input` refusals (a composition or width
/// outside its reach) are [`ErrorKind::Declined`], which another engine may replace; internal errors (bugs),
/// limits and cancellations stay what they are.
fn smooth_refusal(e: Error) -> Error {
    match e.kind() {
        ErrorKind::Input => e.with_kind(ErrorKind::Declined),
        _ => e,
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: the engines whose next calls fail, and the kind of error each fails with.
    static INJECT: std::cell::RefCell<Vec<(Engine, ErrorKind)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Test hook: an error of the injected kind ("injected into …") when the test injected one into `engine`.
#[cfg(test)]
fn injected(engine: Engine) -> Fallible<()> {
    match INJECT.with(|i| i.borrow().iter().find(|(e, _)| *e == engine).map(|(_, k)| *k)) {
        Some(kind) => Err(Error::new(kind, format!("injected into {}", engine.as_str()))),
        None => Ok(()),
    }
}
#[cfg(not(test))]
fn injected(_: Engine) -> Fallible<()> {
    Ok(())
}

impl Accountant {
    pub fn new(comp: Composition, opts: Options) -> Fallible<Accountant> {
        if opts.digits == 0 || opts.digits > MAX_DIGITS {
            return fallible!(Input, "--digits must be between 1 and {MAX_DIGITS}, got {}", opts.digits);
        }
        if let Some(Arith::Mpfr(p)) = opts.arith {
            if !(crate::num::MIN_PREC..=crate::num::MAX_PREC).contains(&p) {
                return fallible!(Input, "--prec must be between {} and {} bits, got {p}", crate::num::MIN_PREC, crate::num::MAX_PREC);
            }
        }
        if let Some(w) = opts.width {
            if !(crate::fourier::smooth::MIN_WIDTH..=1.0).contains(&w) {
                return fallible!(Input, "--width must be between {:e} and 1, got {w}", crate::fourier::smooth::MIN_WIDTH);
            }
            // the width is the smoothed inversion's, which takes the lattice laws only: not silently ignored
            if comp.has_law() {
                return fallible!(
                    Input,
                    "--width sets the bracket width of the smoothed inversion, which takes discrete Gaussian and Laplace noise only; {} is accounted by the closed forms or the pld grid: give --digits instead",
                    comp.describe()
                );
            }
        }
        let shifts = comp.shifts();
        Ok(Accountant { comp, shifts, opts, lattice: Default::default(), fourier: Default::default(), law_engines: engines::law_engines() })
    }

    pub fn composition(&self) -> &Composition {
        &self.comp
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// zCDP ρ of the composition (None if a mechanism in it has none).
    pub fn rho(&self) -> Option<Rational> {
        self.comp.rho()
    }

    /// zCDP ρ, or an input error saying which mechanism has none (for the zCDP conversions).
    pub fn rho_required(&self) -> Fallible<Rational> {
        self.comp.rho_required()
    }

    // ---------------------------------------------------------------- the vocabulary

    /// ε(δ): the smallest ε ≥ 0 such that the composition is (ε, δ)-DP, certified. Never a bracket
    /// with fewer digits than asked unless its note says how many were certified and why; an error when
    /// not one digit is certified (see [`Accountant::honest`]).
    ///
    /// Errors: `Input` (an invalid request), `Resource` (every engine that applies would exceed the size
    /// or time limits), `Interrupted`, `Internal`; an engine's refusal (`Declined`) is replaced by another
    /// engine's answer where one applies, and otherwise returned settled as `Input` or `Resource`
    /// ([`Error::settle`]).
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Certified> {
        let c = self.epsilon_raw(delta).map_err(Error::settle)?;
        let c = match self.comp.pure_epsilon() {
            // a pure-DP composition is (Σ ε_i, 0)-DP, so ε(δ) ≤ Σ ε_i for every δ: the cap where an engine's
            // upper end is looser (DLap(1e-300): ε₀ = 1e300, where e^ε leaves MPFR's range)
            Some(e) if !self.opts.method.is_conversion() => c.capped(&e, self.work_prec(), "the pure-DP bound eps <= sum of n mu/b")?,
            _ => c,
        };
        self.honest("epsilon", c, Query::Epsilon(delta))
    }

    fn epsilon_raw(&self, delta: &Rational) -> Fallible<Certified> {
        if *delta <= 0 || *delta >= 1 {
            return fallible!(Input, "delta must be in (0, 1), got {}", crate::num::format::fmt_rational(delta));
        }
        let p = self.work_prec();
        match self.opts.method {
            Method::ZcdpBs => {
                return Certified::new(zcdp::eps_bs(&self.rho_required()?, delta, p), Engine::ZcdpBs, Trust::Bound, String::new())
            }
            Method::ZcdpCks => return self.cks_epsilon(&self.rho_required()?, delta, |a| format!("alpha = {a}")),
            Method::Fourier | Method::FourierFast => {
                return fallible!(Input, "the Fourier methods evaluate delta(epsilon) only (approximately); use `tightdp delta`")
            }
            _ => {}
        }
        if self.comp.has_law() {
            return self.law_query(Query::Epsilon(delta));
        }
        if let Some(c) = self.single_lattice_release(Query::Epsilon(delta))? {
            return Ok(c);
        }
        // ε = 0 exactly when δ(0) ≤ δ, and δ(0) = TV(P, Q) ≤ √(KL/2) ≤ √(ρ/2) (Pinsker; KL ≤ ρ under ρ-zCDP)
        let tv_bound = self.rho().map(|r| Interval::from_rational(&r, 128).mul_rational(&Rational::from((1, 2))).sqrt());
        if tv_bound.is_some_and(|t| *t.hi() <= Float::with_val(128, delta)) {
            return Certified::new(Interval::zero(p), Engine::Closed, Trust::Exact, "delta(0) <= sqrt(rho/2) <= delta (Pinsker)".into());
        }
        match self.opts.method {
            Method::Grid => self.epsilon_grid(delta),
            Method::Smoothed => self.epsilon_smoothed(delta, None),
            Method::Lattice => self.lattice_query(Query::Epsilon(delta), true),
            Method::LatticeFourier => self.fourier_query(Query::Epsilon(delta)),
            Method::Conditioned => self.conditioned_query(Query::Epsilon(delta)),
            _ => self.auto(Query::Epsilon(delta)).map(|r| r.delta),
        }
    }

    /// ε(δ) bounded from ρ by Canonne–Kamath–Steinke's conversion [CKS20, Prop 12] (a certified bound), its
    /// detail `detail` of the optimal α as printed (the `zcdp-cks` method, and the law queries' fallback).
    pub(super) fn cks_epsilon(&self, rho: &Rational, delta: &Rational, detail: impl FnOnce(String) -> String) -> Fallible<Certified> {
        let (e, alpha) = zcdp::eps_cks(rho, delta, self.work_prec());
        let detail = detail(crate::num::format::fmt_nearest(&alpha, 20));
        Certified::new(e, Engine::ZcdpCks, Trust::Bound, detail)
    }

    /// One release of the discrete Laplace whose lattice is large (DLap(4) with sensitivity 10⁶: two million
    /// entries, minutes and half a GB): its own distribution functions answer ε and δ at once
    /// (`account::single`); a small lattice keeps the exact lattice engines (and their two terms of δ).
    fn single_lattice_release(&self, q: Query) -> Fallible<Option<Certified>> {
        if self.opts.method != Method::Auto || matches!(q, Query::Tradeoff(_)) {
            return Ok(None);
        }
        let shifts = self.comp.shifts();
        // (a discrete Gaussian release goes to the lattice Fourier inversion at any size)
        if shifts.len() != 1 || shifts[0].count != 1 || !self.comp.has_laplace() {
            return Ok(None);
        }
        let o = self.initial_opts(q, true);
        if estimated_window_shifts(&self.shifts, o.depth) <= SINGLE_RELEASE_FROM {
            return Ok(None);
        }
        let laws = self.comp.law_shifts()?;
        match single::query(laws[0].0.as_ref(), q, self.opts.digits, self.work_prec() + 32, Trust::Exact) {
            // a law too wide for its own tails (σ² = 1e300): the lattice engines say what they can
            Err(e) if e.is_declined() || e.kind() == ErrorKind::Resource => Ok(None),
            r => r,
        }
    }

    /// δ(ε), certified, with its two terms where the engine has them (the same honesty rule as
    /// [`Accountant::epsilon`]).
    pub fn delta(&self, eps: &Rational) -> Fallible<DeltaResult> {
        let r = self.delta_raw(eps).map_err(Error::settle)?;
        let delta = self.honest("delta", r.delta, Query::Delta(eps))?;
        Ok(DeltaResult { delta, ..r })
    }

    fn delta_raw(&self, eps: &Rational) -> Fallible<DeltaResult> {
        if *eps < 0 {
            return fallible!(Input, "epsilon must be non-negative");
        }
        let p = self.work_prec();
        let plain = |c: Certified| DeltaResult { delta: c, first: None, second: None };
        match self.opts.method {
            Method::ZcdpBs => {
                Certified::new(zcdp::delta_bs(&self.rho_required()?, eps, p), Engine::ZcdpBs, Trust::Bound, String::new()).map(plain)
            }
            Method::ZcdpCks => {
                let (d, alpha) = zcdp::delta_cks(&self.rho_required()?, eps, p);
                Certified::new(d, Engine::ZcdpCks, Trust::Bound, format!("alpha = {}", crate::num::format::fmt_nearest(&alpha, 20)))
                    .map(plain)
            }
            Method::Fourier | Method::FourierFast => Err(err!(
                Input,
                "the Fourier methods are approximate: use Accountant::delta_estimate (CLI: `tightdp delta --method fourier`)"
            )),
            _ if self.comp.has_law() => self.delta_law(eps),
            Method::Auto if self.single_lattice_release(Query::Delta(eps))?.is_some() => {
                self.single_lattice_release(Query::Delta(eps))?.map(plain).ok_or_else(|| err!(Internal, "one release vanished"))
            }
            Method::Grid => Err(err!(Input, "--grid gives epsilon brackets only; use --method lattice or smoothed for delta")),
            Method::Smoothed => self.delta_smoothed(eps).map(plain),
            Method::Lattice => self.delta_lattice(eps, engines::lattice::Tiers::DdThenMpfr),
            Method::LatticeFourier => self.delta_fourier(eps),
            Method::Conditioned => self.conditioned_query(Query::Delta(eps)).map(plain),
            Method::Auto => self.auto(Query::Delta(eps)),
        }
    }

    /// f(α) of the exact trade-off function, certified (lattice engines; the same honesty rule as
    /// [`Accountant::epsilon`]).
    pub fn tradeoff(&self, alpha: &Rational) -> Fallible<Certified> {
        let c = self.tradeoff_raw(alpha).map_err(Error::settle)?;
        self.honest("f(alpha)", c, Query::Tradeoff(alpha))
    }

    fn tradeoff_raw(&self, alpha: &Rational) -> Fallible<Certified> {
        if *alpha < 0 || *alpha > 1 {
            return fallible!(Input, "alpha must be in [0, 1], got {}", crate::num::format::fmt_rational(alpha));
        }
        if self.comp.has_law() {
            return self.law_query(Query::Tradeoff(alpha));
        }
        match self.opts.method {
            Method::Auto | Method::Lattice => self.auto(Query::Tradeoff(alpha)).map(|r| r.delta),
            Method::LatticeFourier => self.fourier_query(Query::Tradeoff(alpha)),
            Method::Conditioned => self.conditioned_query(Query::Tradeoff(alpha)),
            m => fallible!(Input, "the trade-off function is computed on the lattice; --method {} does not give it", m.as_str()),
        }
    }

    /// The vertices (α, β) of the trade-off function inside the resolved window, at the accountant's
    /// precision, thinned to at most `max_points` (0: all).
    pub fn knots(&self, max_points: usize) -> Fallible<Vec<Knot>> {
        // (the lattice's cost estimate of a composition with other laws is infinite: say why instead)
        if self.comp.has_law() {
            return fallible!(
                Input,
                "the list of the trade-off function's knots is computed on the lattice of discrete Gaussian and discrete Laplace noise only; give --alpha A,B,... for f(alpha) of this composition"
            );
        }
        let opts = self.initial_opts(Query::Tradeoff(&Rational::from((1, 2))), true);
        // the knots need the whole MPFR lattice, whose cost grows with n: refused up front past the budget
        // (10⁶ × … took minutes unannounced), pointing to f(α), which the inversion answers at any size
        let secs = self.estimated_seconds(&opts);
        if secs > self.opts.time_budget {
            return fallible!(
                Resource,
                "the trade-off function's knots need the whole MPFR lattice of this composition: about {secs:.0} s here (limit {:.0} s); f(alpha) at chosen points (--alpha A,B,...) is answered at any size",
                self.opts.time_budget
            );
        }
        let prof = self.profile(&opts).map_err(Error::settle)?;
        let (lo, hi) = prof.knots_window();
        let ks: Vec<_> = prof.knots(lo, hi).into_iter().filter(|k| *k.alpha.hi() > 1e-300 && *k.beta.hi() > 1e-300).collect();
        let (engine, detail) = (self.engine_of(&opts), self.detail(&opts));
        let cert = |iv: &Interval| Certified::new(iv.clone(), engine, Trust::Exact, detail.clone());
        thinned(ks.len(), max_points)
            .into_iter()
            .map(|i| Ok(Knot { k: ks[i].k, alpha: cert(&ks[i].alpha)?, beta: cert(&ks[i].beta)? }))
            .collect()
    }

    /// δ(ε) by an approximate Fourier method, refused when its own error bound reaches |δ|.
    pub fn delta_estimate(&self, eps: &Rational, progress: crate::fourier::boole::Progress) -> Fallible<Estimate> {
        self.delta_estimate_raw(eps, progress).map_err(Error::settle)
    }

    fn delta_estimate_raw(&self, eps: &Rational, progress: crate::fourier::boole::Progress) -> Fallible<Estimate> {
        let groups = self.comp.gauss_shifts()?;
        // (value, bound, engine, detail, an upper bound of δ from the first term alone where it has one)
        let (value, bound, engine, detail, first) = match self.opts.method {
            Method::Fourier => {
                let d = crate::fourier::boole::delta_fourier(&groups, eps, &crate::fourier::boole::BooleParams::default(), progress)?;
                let first = (d.first.error_bound < d.first.value).then_some(d.first.value + d.first.error_bound);
                (d.delta, d.bound, Engine::Fourier, format!("Boole rule, N = {}, f64", d.first.n_points), first)
            }
            Method::FourierFast => {
                let d = crate::fourier::fast::delta_fast(&groups, eps, &crate::fourier::fast::FastParams::default())?;
                let first = (d.first.error_bound < d.first.value).then_some(d.first.value + d.first.error_bound);
                (d.delta, d.bound, Engine::FourierFast, "saddle-point trapezoid, f64".to_string(), first)
            }
            m => return fallible!(Input, "--method {} is not an approximate Fourier method", m.as_str()),
        };
        if !(value.is_finite() && bound.is_finite() && bound < value.abs()) {
            // δ = first − e^ε·second ≤ first: the first term alone is the upper bound it is, when resolved
            let alone = first.map_or(String::new(), |f| format!("; its first term alone bounds delta <= {:.4e}", f * (1.0 + 1e-12)));
            return fallible!(
                Input,
                "the {} inversion's error bound {bound:.3e} (the paper's error terms and the f64 rounding) is not below its value {value:.3e}: no digit of delta is known{alone}; use --method auto",
                engine.as_str()
            );
        }
        Ok(Estimate { value, error_bound: bound, engine, detail })
    }
}

/// Lattice entries above which one release of one lattice law is answered from its distribution functions.
const SINGLE_RELEASE_FROM: u64 = 100_000;

#[cfg(test)]
mod tests;

/// The indices of `n` items kept when at most `max` are (0: all): evenly spread, the first and the last
/// among them (`--points 4` listed five knots: every ⌈n/4⌉-th and the last).
fn thinned(n: usize, max: usize) -> Vec<usize> {
    match max {
        _ if max == 0 || n <= max => (0..n).collect(),
        1 => vec![0],
        _ => (0..max).map(|j| j * (n - 1) / (max - 1)).collect(),
    }
}
