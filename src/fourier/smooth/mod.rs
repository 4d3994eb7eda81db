//! Certified privacy profile of a heterogeneous composition of discrete Gaussian mechanisms by
//! *smoothed* Fourier inversion: the engine for budgets whose losses share no practical lattice
//! (the 2021 redistricting allocation, per-query ρ over 4097·4099, 4102·4099 and 4099²).
//! Derivations in docs/smoothed-fourier.md; every bound below is rigorous.
//!
//! **Setting.** Group q: n_q i.i.d. queries with noise N_Z(0, σ_q²) and sensitivity μ_q. One query's loss
//! under P is L = (μ² − 2μX)/(2σ²), X ~ N_Z(0, σ²); the composition's loss is the sum, and
//! δ(ε) = E_P[ψ(L − ε)] with ψ(y) = (1 − e^{−y})₊ (hockey-stick divergence, [SSW24, Lemma A.9]).
//!
//! **1. Moment generating function** (Poisson summation, the θ-function form of [SSW24, eq. A.3]): for
//!   s = c + it,
//!   M_q(s) = E e^{sL} = e^{sμ²/(2σ²)} e^{c²μ²/(2σ²)} Σ_k e^{−τ_k²/(2σ²)} e^{icμτ_k/σ²} / D_q(0),
//!   τ_k = μt − 2πkσ², D_q(c) = Σ_k e^{−2π²k²σ²} cos(2πkcμ), so M_q(c) = e^{(c+c²)μ²/(2σ²)} D_q(c)/D_q(0)
//!   and the tilted characteristic function is r_q(t) = M_q(c+it)/M_q(c), |r_q| ≤ 1.
//!
//! **2. Smoothing with second-order error.** W ~ N(0, w²), S(y) = E ψ(y + W), γ = λw (λ > 1). For all y
//!   u(y) = S(y + w²/2) ≥ ψ(y) ≥ S(y) − β e^{−y²/(2γ²)} = v(y),
//!   β = w e^{w²/2} (φ(0) + w) exp(w²/(2(λ²−1)) + w²/(2λ²)).
//! Hence F_S(ε − w²/2) ≥ δ(ε) ≥ F_S(ε) − β F_B(ε), with F_S(x) = E ψ(L + W − x) and
//! F_B(x) = E e^{−(L−x)²/(2γ²)}; the gap is O(w²) (≈ 5w² in ε for the Census compositions).
//!
//! **3. Inversion on Re s = c** (exponential tilting; ψ has Laplace transform 1/(s(s+1))):
//!   F_S(x) = (1/2π) ∫ M(c+it) e^{w²s²/2} e^{−sx} / (s(s+1)) dt,
//!   F_B(x) = γ√(2π) (1/2π) ∫ M(c+it) e^{γ²s²/2} e^{−sx} dt.
//! The trapezoid rule with step h, T = 2π/h, returns exactly Σ_m e^{cmT} F(x + mT) (Poisson summation):
//! the true value plus non-negative aliasing, bounded by e^{−cT}/(1 − e^{−cT}) for m ≤ −1 (F_S ≤ 1) and
//! by a Chernoff bound at c′ > c for m ≥ 1. Nodes |t| > A are bounded with |M(c+it)| ≤ M(c) and the
//! Gaussian factor. Each node is evaluated in f64 ball arithmetic (crate::num::ball); nodes where
//! |M(c+it)/M(c)| is certified below 1e-30 are kept only as a bound (for a loose ε request, a level set
//! by its width: [`nodes::NodeSettings`]). The θ-sums, ln M(c) and the bounds are balls too (only the
//! per-group σ² constants, h/(2π) and cμ/σ² come from MPFR, whose one-ulp radius they keep), so that an ε search,
//! which evaluates the bounds ~10 times, costs microseconds per evaluation beyond the live nodes.
//!
//! **Files**, in the order of the computation:
//! - [`theta`] — the θ-sums D_q(c) and ln M(c) (MPFR reference and f64 balls), the per-group constants;
//! - [`shape`] — the composition's shape: f64 estimates of ln M and its derivative for choosing parameters,
//!   and the lattice a + sℤ its loss lives on (the period of the characteristic function);
//! - [`nodes`] — the groups prepared at a tilt, r_q(t) as a ball, block certificates, the node table;
//! - [`kernels`] — the smoothing kernels K_S, K_B at the live nodes and the trapezoid sums;
//! - [`quadrature`] — [`quadrature::DeltaBounds`]: truncation, aliasing and β bounds around the sums,
//!   certified bounds of δ at any x;
//! - [`design`] — choosing the tilt, the node step and count, the Chernoff tilts, the starting ε;
//! - [`drivers`] — the entry points [`delta_smooth`], [`epsilon_smooth`] (the f64 tier and its ε search);
//! - [`precise`], [`sieve`], [`pnodes`] — the 20-digit tier (docs/smoothed-fourier.md §6–7: one complex
//!   exponential per node for the groups that are one Poisson term there);
//! - [`dlap`] — discrete Laplace factors (§8): a finite loss law whose tilted characteristic function
//!   multiplies the live nodes and is bounded by 1 everywhere else (it does not decay).
//!
//! Errors: [`ErrorKind::Declined`](crate::error::ErrorKind::Declined) when the method cannot answer this
//! composition or width (the accountant then tries another engine), `Input` for invalid arguments,
//! `Interrupted` when [`crate::num::cancel`] fires, `Internal` for a broken invariant.

use crate::num::ball::{up, Ball};
use crate::num::Interval;
use rug::float::Round;
use rug::Float;

mod design;
mod dlap;
mod drivers;
mod group;
mod kernels;
mod nodes;
mod pnodes;
mod precise;
mod quadrature;
mod shape;
mod sieve;
mod theta;

pub use dlap::{check_lap, LapGroup};
pub use drivers::{check_groups, delta_smooth_mixed, epsilon_smooth, epsilon_smooth_mixed};

/// MPFR precision of the constants.
const CP: u32 = 128;

/// Narrowest ε bracket of the f64 tier (nodes and bisection in double precision); narrower requests go to
/// the 20-digit tier ([`precise`]).
pub const F64_MIN_WIDTH: f64 = 1e-11;
/// Narrowest ε bracket requested.
pub const MIN_WIDTH: f64 = precise::MIN_WIDTH_P;

/// Tuning of the smoothed inversion.
#[derive(Clone, Debug)]
pub struct SmoothParams {
    /// Target width of the certified ε bracket; the smoothing w is chosen from it.
    pub width: f64,
    /// Smoothing standard deviation w (overrides the choice from `width`).
    pub w: Option<f64>,
    /// Width factor of the bump, γ = λw (λ > 1).
    pub lambda: f64,
    /// Tilt c (default: the saddle point).
    pub c: Option<f64>,
}

impl Default for SmoothParams {
    fn default() -> Self {
        SmoothParams { width: 2e-6, w: None, lambda: 1.1, c: None }
    }
}

/// A certified bracket and how it was obtained.
#[derive(Clone, Debug)]
pub struct SmoothResult {
    pub lo: Float,
    pub hi: Float,
    pub w: f64,
    pub c: f64,
    pub h: f64,
    pub nodes: usize,
    pub live: usize,
    /// nodes per period when the step was fitted to the loss lattice (one period evaluated)
    pub period: Option<usize>,
    pub attempts: u32,
    /// computed by the 20-digit tier ([`precise`]: MPFR nodes, sieved node range)
    pub precise: bool,
    /// why a requested 20-digit-tier bracket fell back to the f64 tier's (which is still certified)
    pub fallback: Option<String>,
}

impl SmoothResult {
    pub fn width(&self) -> f64 {
        Float::with_val_round(CP, &self.hi - &self.lo, Round::Up).0.to_f64_round(Round::Up)
    }
    pub fn interval(&self) -> Interval {
        Interval::new(self.lo.clone(), self.hi.clone())
    }
}

fn fl(x: f64) -> Float {
    Float::with_val(CP, x)
}

fn iv(x: f64) -> Interval {
    Interval::from_float(&fl(x), CP)
}

/// A ball enclosing an interval.
fn ball_of(i: &Interval) -> Ball {
    let m = i.mid().to_f64();
    let mf = fl(m);
    let a = Float::with_val_round(CP, i.hi() - &mf, Round::Up).0;
    let b = Float::with_val_round(CP, &mf - i.lo(), Round::Up).0;
    let r = if a > b { a } else { b };
    Ball::new(m, up(r.to_f64_round(Round::Up).max(0.0)))
}

#[cfg(test)]
mod dlap_tests;
#[cfg(test)]
mod tests;
