//! The accountant's profile handle: one lattice, built once in a fixed arithmetic and truncation depth,
//! answering many queries — the curves of a figure, the rows of a table, the evaluations of a calibration
//! search — every value a [`Certified`] bracket. Above `account` this is how an application reads a
//! privacy profile at many points: it never builds a lattice itself (`tests/engines_behind_accountant.rs`).
//!
//! Unlike [`Accountant::epsilon`] and [`Accountant::delta`], a [`Profile`] does not escalate: each
//! value is the bracket this one lattice certifies, whatever its width ([`Certified::digits`] says how
//! many digits that is). That is what a figure or a table computed at a stated precision needs: the
//! same lattice for every point, so that the points are comparable and the output reproducible.

use super::vocabulary::DeltaResult;
use super::{Accountant, Certified, Engine, Options, Trust};
use crate::err;
use crate::error::Fallible;
use crate::model::{Composition, GaussGroup, Group, Neighbors};
use crate::num::{Arith, Interval};
use crate::pld::compose::{estimated_window_shifts, lattice_profile, LatticeOpts};
use crate::pld::profile::PrivacyProfile;
use rug::{Float, Rational};
use std::sync::Arc;

/// The default truncation depth of a lattice in `arith` (bits of mass kept): the working precision plus
/// guard bits for MPFR and double-double, 160 bits for f64.
pub fn lattice_depth(arith: Arith) -> u32 {
    LatticeOpts::new(arith).depth
}

/// One vertex (α_k, β_k) of the exact trade-off function: the test rejecting for L ≥ c + hk, with its
/// certified type I error α and type II error β.
#[derive(Clone, Debug)]
pub struct Knot {
    pub k: i64,
    pub alpha: Certified,
    pub beta: Certified,
}

/// A composition's privacy profile on one lattice (see the module documentation).
#[derive(Clone, Debug)]
pub struct Profile {
    prof: Arc<PrivacyProfile>,
    engine: Engine,
    detail: String,
}

impl Accountant {
    /// The accountant of discrete Gaussian add/remove shifts, one [`GaussGroup`] per distinct σ² (as
    /// `census::Allocation::level_mechanisms` and `calibrate::scale_groups` give them), default options.
    pub fn of_gauss(groups: &[GaussGroup]) -> Fallible<Accountant> {
        Accountant::new(Composition::new(groups.iter().map(Group::from).collect(), Neighbors::AddRemove)?, Options::default())
    }

    /// The accountant of the composition of `blocks` (one neighbour relation), whose lattice engines
    /// convolve block by block in the order given: equal blocks are not merged into one group, so a
    /// figure that composes 30 blocks of 63 queries gets the law of those 30 blocks, as its caption says.
    pub fn of_blocks(blocks: &[Composition], opts: Options) -> Fallible<Accountant> {
        let (first, rest) = blocks.split_first().ok_or_else(|| err!(Input, "nothing to compose: no block given"))?;
        let comp = rest.iter().try_fold(first.clone(), |acc, b| acc.compose(b))?;
        let mut acc = Accountant::new(comp, opts)?;
        acc.shifts = blocks.iter().flat_map(|b| b.shifts()).collect();
        Ok(acc)
    }

    /// The composition's profile on one lattice in `arith`, truncated at `depth` bits of mass (`None`:
    /// [`lattice_depth`]). Built once, without escalation (see [`Profile`]); the lattice engine's own
    /// refusals (a window beyond its limit) are returned as they are.
    pub fn lattice_profile(&self, arith: Arith, depth: Option<u32>) -> Fallible<Profile> {
        let o = LatticeOpts { arith, depth: depth.unwrap_or_else(|| lattice_depth(arith)) };
        let prof = Arc::new(lattice_profile(&self.shifts, &o)?);
        Ok(Profile { prof, engine: self.engine_of(&o), detail: self.detail(&o) })
    }

    /// Estimated entries of the composition's lattice in `arith` at its default depth, before
    /// truncation (u64::MAX when it does not fit): what a caller checks before asking for many lattices.
    pub fn lattice_entries(&self, arith: Arith) -> u64 {
        estimated_window_shifts(&self.shifts, lattice_depth(arith))
    }

    /// δ at an ε known only by an enclosure `eps` (e.g. ε = ln((1 − p)/p), irrational): δ(ε) is
    /// non-increasing, so δ(ε) ∈ [δ(ε_hi).lo, δ(ε_lo).hi] for the (dyadic, exact) ends ε_lo ≤ ε ≤ ε_hi of
    /// the enclosure, ε_lo clamped at 0. Engine, trust, detail and note are those of δ(ε_lo).
    pub fn delta_enclosed(&self, eps: &Interval) -> Fallible<Certified> {
        let exact = |x: &Float| x.to_rational().ok_or_else(|| err!(Internal, "non-finite end of an epsilon enclosure"));
        let (elo, ehi) = (exact(&eps.lo)?, exact(&eps.hi)?);
        let elo = if elo < 0 { Rational::from(0) } else { elo };
        // δ at the larger ε (the smaller δ) first: the order in which the lattice cache fills
        let at_hi = self.delta(&ehi)?.delta;
        let at_lo = self.delta(&elo)?.delta;
        if *at_hi.lo() > *at_lo.hi() {
            return Err(err!(Internal, "delta is not non-increasing: delta({ehi}) > delta({elo})"));
        }
        let c =
            Certified::new(Interval::new(at_hi.lo().clone(), at_lo.hi().clone()), at_lo.engine(), at_lo.trust(), at_lo.detail().into())?;
        Ok(match at_lo.note() {
            Some(n) => c.with_note(n.into()),
            None => c,
        })
    }

    /// δ(ε) and its first term P_Q[L > ε] by the saddle-point Fourier inversion (f64, **not certified**:
    /// no rounding-error bound, no refusal when its own error estimate is large). For locating a root
    /// that a certified query then proves, as the calibration searches do.
    pub fn delta_search_estimate(&self, eps: &Rational) -> Fallible<(f64, f64)> {
        use crate::fourier::fast::{delta_fast, FastParams};
        let d = delta_fast(&self.comp.gauss_shifts()?, eps, &FastParams::default())?;
        Ok((d.delta, d.first.value))
    }
}

impl Profile {
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// How the lattice was built (arithmetic, truncation depth).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    fn certified(&self, iv: Interval) -> Fallible<Certified> {
        Certified::new(iv, self.engine, Trust::Exact, self.detail.clone())
    }

    /// δ(ε) with both of its terms, P_Q[L > ε] and e^ε P_P[L > ε], certified.
    pub fn delta(&self, eps: &Rational) -> Fallible<DeltaResult> {
        let d = self.prof.delta(eps);
        Ok(DeltaResult { delta: self.certified(d.delta)?, first: Some(self.certified(d.first)?), second: Some(self.certified(d.second)?) })
    }

    /// The smallest ε ≥ 0 with δ(ε) ≤ δ, certified (an error when this lattice resolves no upper end).
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Certified> {
        self.certified(self.prof.epsilon(delta)?)
    }

    /// f(α) of the exact trade-off function, certified.
    pub fn tradeoff(&self, alpha: &Rational) -> Fallible<Certified> {
        self.certified(self.prof.tradeoff(alpha)?)
    }

    /// δ(ε) at each ε of a curve.
    pub fn delta_curve(&self, eps: &[Rational]) -> Fallible<Vec<DeltaResult>> {
        eps.iter().map(|e| self.delta(e)).collect()
    }

    /// ε(δ) at each δ of a curve.
    pub fn epsilon_curve(&self, deltas: &[Rational]) -> Fallible<Vec<Certified>> {
        deltas.iter().map(|d| self.epsilon(d)).collect()
    }

    /// f(α) at each α of a curve.
    pub fn tradeoff_curve(&self, alphas: &[Rational]) -> Fallible<Vec<Certified>> {
        alphas.iter().map(|a| self.tradeoff(a)).collect()
    }

    /// Every vertex (α_k, β_k) of the trade-off function whose α and β both lie inside the lattice's
    /// resolved window, in increasing k (decreasing α).
    pub fn knots(&self) -> Fallible<Vec<Knot>> {
        let (lo, hi) = self.prof.knots_window();
        self.prof
            .knots(lo, hi)
            .into_iter()
            .map(|k| Ok(Knot { k: k.k, alpha: self.certified(k.alpha)?, beta: self.certified(k.beta)? }))
            .collect()
    }
}
