//! What the replace-one pairs of Poisson-subsampled additive noise share (`noise::poisson_replace` for the
//! Gaussian, `noise::poisson_replace_laplace`): the loss
//!
//!   L = ln((q e^{ψ₊} + r)/(q e^{ψ₋} + r)),    r = 1 − q,                                              (1)
//!
//! at a point x with ψ₊ = ln p(x + Δ) − ln p(x) and ψ₋ = ψ₊ at −x; its exact comparison with a rational;
//! the planning quantile by bisection on x; the relation the pairs are defined for; their rescaling.
//!
//! A comparison is exact: by the Lindemann–Weierstrass theorem [Bak75, Thm 1.4] (e^β for distinct algebraic
//! β are linearly independent over the algebraic numbers) the equation q e^{ℓ+ψ₋} + r e^ℓ − q e^{ψ₊} − r = 0
//! (rational ℓ, ψ±, q) holds only when its terms cancel in pairs: ℓ = 0 and ψ₊ = ψ₋, or q = ½, ℓ = ψ₊ and
//! ψ₊ + ψ₋ = 0 ([`compare_loss`]). Any other case differs from ℓ and is decided by interval arithmetic at
//! rising precision; should it stay undecided at 4,096 bits the caller counts it on neither side.

use crate::error::Fallible;
use crate::noise::loss::LossLaw;
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::Rational;
use std::cmp::Ordering;
use std::sync::Arc;

/// The highest precision at which a loss is compared with ℓ before it is left undecided.
const MAX_COMPARE_PREC: u32 = 4096;

/// The sign of L − ℓ for (1), decided exactly (module doc): the two ties by rational comparison, every
/// other case by intervals from `prec` bits up to 4,096; None if still undecided there.
pub(crate) fn compare_loss(psi_plus: &Rational, psi_minus: &Rational, q: &Rational, l: &Rational, prec: u32) -> Option<Ordering> {
    let half = Rational::from((1, 2));
    if (*l == 0 && psi_plus == psi_minus) || (*q == half && l == psi_plus && Rational::from(psi_plus + psi_minus) == 0) {
        return Some(Ordering::Equal);
    }
    let mut p = prec.max(64);
    while p <= MAX_COMPARE_PREC {
        let loss = replace_loss(psi_plus, psi_minus, q, p);
        let li = Interval::from_rational(l, p);
        if loss.lo() > li.hi() {
            return Some(Ordering::Greater);
        }
        if loss.hi() < li.lo() {
            return Some(Ordering::Less);
        }
        p *= 2;
    }
    None
}

/// (1) enclosed at `prec` bits.
pub(crate) fn replace_loss(psi_plus: &Rational, psi_minus: &Rational, q: &Rational, prec: u32) -> Interval {
    let qi = Interval::from_rational(q, prec);
    let r = Interval::from_rational(&(Rational::from(1) - q.clone()), prec);
    let side = |psi: &Rational| qi.mul(&Interval::from_rational(psi, prec).exp()).add(&r).ln();
    side(psi_plus).sub(&side(psi_minus))
}

/// ln(q e^a + (1 − q) e^b) in f64 without overflow (planning).
pub(crate) fn ln_mix_f64(q: f64, a: f64, b: f64) -> f64 {
    let (u, v) = (q.ln() + a, (1.0 - q).ln() + b);
    if u >= v {
        u + (v - u).exp().ln_1p()
    } else {
        v + (u - v).exp().ln_1p()
    }
}

/// ln A[X > x] (above) or ln A[X ≤ x] in f64 (planning) for the pair's A = q·(N − Δ) + r·N, from
/// `ln_sf(t)` = ln P[N > t] of the symmetric noise N: A[X > x] = q P[N > x + Δ] + r P[N > x], and
/// A[X ≤ x] = q P[N > −x − Δ] + r P[N > −x] by symmetry.
pub(crate) fn ln_a_tail_f64(ln_sf: impl Fn(f64) -> f64, delta: f64, q: f64, x: f64, above: bool) -> f64 {
    let (s1, s2) = if above { (ln_sf(x + delta), ln_sf(x)) } else { (ln_sf(-x - delta), ln_sf(-x)) };
    ln_mix_f64(q, s1, s2)
}

/// The hull of two splits' masses, side by side (a crossing known only to lie between two points).
pub(crate) fn hull4(x: &[Interval; 4], y: &[Interval; 4]) -> [Interval; 4] {
    [x[0].hull(&y[0]), x[1].hull(&y[1]), x[2].hull(&y[2]), x[3].hull(&y[3])]
}

/// (1) in f64 (planning).
pub(crate) fn replace_loss_f64(psi_plus: f64, psi_minus: f64, q: f64) -> f64 {
    ln_mix_f64(q, psi_plus, 0.0) - ln_mix_f64(q, psi_minus, 0.0)
}

/// Planning quantile of a pair whose loss falls in x: A[L ≥ ℓ] = A[X ≤ x] (upper) or A[L < ℓ] = A[X > x]
/// is e^{ln_p}, found by bisection on x in [−bound, bound]; ℓ = L(x). `ln_a_tail(x, above)` is ln A[X > x]
/// (above) or ln A[X ≤ x].
pub(crate) fn planned_loss(ln_a_tail: impl Fn(f64, bool) -> f64, loss: impl Fn(f64) -> f64, bound: f64, ln_p: f64, upper: bool) -> f64 {
    let target = ln_p.max(-700.0);
    let (mut lo, mut hi) = (-bound, bound);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        // A[X ≤ x] (upper) grows with x, A[X > x] falls: move towards the target
        if (ln_a_tail(mid, !upper) > target) == upper {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    loss(0.5 * (lo + hi))
}

/// A replace-one pair is the law under replace neighbours, one copy per query; it is never asked under
/// add/remove (`LossLaw::under` puts it in place for replace only).
pub(crate) fn replace_shifts(neighbors: Neighbors, spec: &str) -> Fallible<u64> {
    match neighbors {
        Neighbors::Replace => Ok(1),
        Neighbors::AddRemove => crate::fallible!(Internal, "the replace-one pair of {spec} under add-remove"),
    }
}

/// The pair of the subsampled mechanism with its noise scaled by c (calibration).
pub(crate) fn rescaled(sampled: &Arc<dyn LossLaw>, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
    match sampled.scaled(c)? {
        Ok(s) => s.under(Neighbors::Replace),
        Err(e) => Some(Err(e)),
    }
}
