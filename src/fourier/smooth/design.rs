//! Choosing the parameters of the inversion (none of it is certified, none needs to be: every choice
//! gives valid bounds, a poor one only a wider bracket or a refusal): the tilt c (the saddle point), the
//! node step h and count N from the aliasing and truncation tolerances (docs/smoothed-fourier.md §4), the
//! step fitted to the loss lattice's period, the Chernoff tilts c′ of the aliasing bound, and the ε a
//! search starts from (the saddle-point estimate of ln δ).

use super::group::Step;
use super::shape::{Lattice, Shape};
use crate::error::Fallible;
use crate::fallible;
use crate::num::ball::{Ball, TAU};
use crate::num::bisect_decreasing;

/// The tilts c′ > c of the Chernoff bound on the aliasing m ≥ 1 (parameter choice only: every c′ > c gives
/// a valid bound, the engine takes the smallest). The fixed ones c + 0.5, c + 1, 1.5c + 1, 2c + 1 suit a
/// loss of small variance; for a wide loss (n = 1e5 queries of N_Z(0, 37.7): variance 2,650, c = 0.13,
/// T = 2π/h ≈ 411) they overshoot: at c′ = c + 0.5 the bound is e^{ln M(c′) − c′x − (c′−c)T} ≈ e^{111},
/// and no lower bound of δ was certified. The best c′ for x near ε solves K′(c′) = x + T (K = ln M),
/// i.e. K′(c′) ≈ K′(c) + T at the saddle point; the roots for T scaled by 0.6…1.6 are added.
pub(super) fn chernoff_tilts(sh: &Shape, c: f64, t_per: f64) -> Vec<f64> {
    let mut tilts = vec![c + 0.5, c + 1.0, 1.5 * c + 1.0, 2.0 * c + 1.0];
    let k1 = sh.ln_mgf_d(c).1;
    if !(k1.is_finite() && t_per.is_finite() && t_per > 0.0) {
        return tilts;
    }
    for f in [0.6, 0.8, 1.0, 1.25, 1.6] {
        let target = k1 + f * t_per;
        // K′ is increasing (K convex): bracket, then bisect
        let mut b = c + 1e-3;
        let mut k = 0;
        while sh.ln_mgf_d(b).1 < target && k < 60 {
            b = c + 2.0 * (b - c);
            k += 1;
        }
        if k == 60 {
            continue;
        }
        let (_, b) = bisect_decreasing(c, b, 60, |x| sh.ln_mgf_d(x).1 < target);
        if b > c && b.is_finite() {
            tilts.push(b);
        }
    }
    tilts
}

/// Periods of the loss lattice a node range must span before the step is fitted to the period.
const MIN_PERIODS: f64 = 2.0;
/// Fewest and most nodes per period of a fitted step.
const PERIOD_NODES: (f64, f64) = (8.0, 1e7);

/// The step and last node for the designed step h and last node N: when the nodes t ≤ N·h span at least
/// [`MIN_PERIODS`] periods T = 2π/s of the loss lattice (a lattice small against the range of t, as for one
/// Census level), h is lowered to T/m, m = ⌈T/h⌉ (a smaller step only shrinks the aliasing), N raised so
/// that N·h does not shrink, and m returned: the table then evaluates one period ([`Table::build`]).
/// Otherwise h (exact) and N unchanged.
pub(super) fn fit_to_period(lat: &Lattice, h: f64, n_nodes: usize) -> (Step, usize, Option<usize>) {
    let plain = (Step { h: Ball::exact(h) }, n_nodes, None);
    let period = std::f64::consts::TAU / lat.step.to_f64();
    let per_period = period / h;
    if !(period.is_finite() && n_nodes as f64 * h >= MIN_PERIODS * period && (PERIOD_NODES.0..=PERIOD_NODES.1).contains(&per_period)) {
        return plain;
    }
    let m = per_period.ceil() as usize;
    let hm = TAU.mul(lat.h_over_tau(m));
    // N·h ≥ the designed range: N ≥ N_design·h_design / h.lo
    let n = ((n_nodes as f64 * h) / hm.lo()).ceil() as usize;
    (Step { h: hm }, n, Some(m))
}

/// Saddle point: the c > 0 minimising ln M(c) − cε − ln(c(c+1)).
pub(super) fn saddle_of(sh: &Shape, eps: f64) -> f64 {
    let f = |c: f64| sh.ln_mgf(c) - c * eps - (c * (c + 1.0)).ln();
    let (mut a, mut b) = (1e-3f64, 60.0f64);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..200 {
        let x1 = b - g * (b - a);
        let x2 = a + g * (b - a);
        let before = (a, b);
        if f(x1) < f(x2) {
            b = x2;
        } else {
            a = x1;
        }
        // an unchanged (a, b) is a fixed point of this deterministic step (~80 steps from [1e-3, 60]):
        // the remaining iterations would return the same tilt
        if (a, b) == before {
            break;
        }
    }
    (0.5 * (a + b)).max(0.05)
}

/// Saddle-point estimate of ln δ(ε) (parameter choice only).
pub(super) fn ln_delta_estimate(sh: &Shape, eps: f64) -> f64 {
    let c = saddle_of(sh, eps);
    estimate_at(sh, sh.ln_mgf(c), c, eps)
}

/// The saddle-point estimate of ln δ(ε) at tilt c, given K = ln M(c): K − cε − ln(c(c + 1)) − ½ln(2π·var).
fn estimate_at(sh: &Shape, k: f64, c: f64, eps: f64) -> f64 {
    k - c * eps - (c * (c + 1.0)).ln() - 0.5 * (2.0 * std::f64::consts::PI * sh.var).ln()
}

/// Largest number of nodes.
pub const MAX_NODES: usize = 50_000_000;

/// Node spacing and count for tilt c, smoothing w, and the δ scale of interest (as a logarithm).
pub(super) fn design(sh: &Shape, c: f64, w: f64, eps: f64, ln_dscale: f64) -> Fallible<(f64, usize)> {
    design_upto(sh, c, w, eps, ln_dscale, MAX_NODES)
}

/// [`design`] with a node limit.
pub(super) fn design_upto(sh: &Shape, c: f64, w: f64, eps: f64, ln_dscale: f64, max_nodes: usize) -> Fallible<(f64, usize)> {
    // tolerance of the aliasing and truncation terms: 1e-5·δ·w² (the smoothing gap is ~10 δ w²)
    let ln_tol = (1e-5f64).ln() + ln_dscale + 2.0 * w.ln();
    // aliasing e^{−cT} ≤ tol
    let t_per = -ln_tol / c;
    let h = ((2.0 * std::f64::consts::PI / t_per) * 1048576.0).floor() / 1048576.0;
    // truncation (1/π) pref e^{w²c²/2} e^{−w²A²/2}/A ≤ tol
    let lpref = sh.ln_mgf(c) - c * eps + w * w * c * c / 2.0;
    let mut a = 10.0 / w;
    for _ in 0..4 {
        let v = 2.0 * (lpref - std::f64::consts::PI.ln() - ln_tol - a.ln());
        a = v.max(1.0).sqrt() / w;
    }
    let n = a / h;
    if !(h > 0.0 && n > 0.0 && n.is_finite()) {
        return fallible!(
            Declined,
            "the smoothed inversion has no valid quadrature here (tilt c = {c:.3}, step {h:.3e}: epsilon or delta outside its range); use the lattice method"
        );
    }
    if !(n < max_nodes as f64) {
        return fallible!(
            Declined,
            "the smoothed inversion would need {n:.2e} nodes here (tilt c = {c:.3}: epsilon small or delta large); use the lattice method"
        );
    }
    Ok((h, n.ceil() as usize))
}

/// The ε where the saddle-point estimate of ln δ(ε) equals `ld`, searched along the tilt: the saddle c of
/// ε solves K′(c) = ε + (2c + 1)/(c(c + 1)) (K = ln M), so ε(c) is explicit and increasing (K″ > 0) and the
/// estimate K(c) − cε(c) − ln(c(c + 1)) − ½ln(2π·var) decreasing in c; a bisection on c costs ~60
/// evaluations of K, where one on ε costs a tilt search (~160) each. None when the root's tilt is outside
/// the range [0.05, 60] of [`saddle_of`] (then the bisection on ε decides). Parameter choice only.
pub(super) fn eps_estimate_by_tilt(sh: &Shape, ld: f64) -> Option<f64> {
    let at = |c: f64| {
        let (k, dk) = sh.ln_mgf_d(c);
        let eps = dk - (2.0 * c + 1.0) / (c * (c + 1.0));
        (eps, estimate_at(sh, k, c, eps))
    };
    let (a, b) = (0.05f64, 60.0f64);
    // φ(c) = the estimate at ε(c) has φ′(c) = −c·ε′(c) < 0 for every c > 0 (whatever the sign of ε(c))
    if !(at(a).1 > ld && at(b).1 < ld) {
        return None;
    }
    let (a, b) = bisect_decreasing(a, b, 200, |c| at(c).1 > ld);
    let e = at(0.5 * (a + b)).0;
    (e.is_finite() && e > 0.0).then_some(e)
}

/// The same ε by bisection on ε, each step a tilt search (the general case).
pub(super) fn eps_estimate_by_bisection(sh: &Shape, ld: f64) -> Fallible<f64> {
    let mut b = 1.0f64;
    while ln_delta_estimate(sh, b) > ld {
        b *= 2.0;
        if b > 1e6 {
            return fallible!(Declined, "epsilon estimate diverged");
        }
    }
    let (a, b) = bisect_decreasing(0.0, b, 80, |e| ln_delta_estimate(sh, e) > ld);
    Ok(0.5 * (a + b))
}
