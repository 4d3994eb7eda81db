//! The exponential mechanism, by its ε-bounded-range guarantee: `expmech:epsilon=E`.
//!
//! * **The class.** A mechanism is ε-bounded-range (ε-BR) when, for every pair of neighbours, its privacy
//!   loss ln(dA/dB) takes its values in an interval of length ε [DR19, §3]. The exponential mechanism
//!   calibrated to ε-DP is ε-BR: with probabilities ∝ e^{ηu} and a score u of sensitivity Δ, the loss is
//!   η(u(D, y) − u(D′, y)) minus a constant, so it ranges over 2ηΔ = ε (η = ε/(2Δ)), or over ηΔ = ε for a
//!   monotone score (η = ε/Δ). This is what dp_accounting's `ExponentialMechanismDpEvent(epsilon)` stands
//!   for and what its users budget as ε²/8-zCDP [CR21]; dp_accounting's own accountant takes the looser
//!   ε-DP pair.
//! * **The two-point pairs.** Let a pair's loss lie in [t − ε, t]. E_B[e^L] = 1 forces 0 ≤ t ≤ ε, and the
//!   pair is the two-point pair with losses t and t − ε post-processed (with r = dA/dB, the kernel
//!   w = (r − e^{t−ε})/(e^t − e^{t−ε}) ∈ [0, 1] sends "t" to w dB/∫w dB and "t − ε" to (1 − w) dB/∫(1 − w) dB,
//!   and A = e^t(∫w dB) K_t + e^{t−ε}(∫(1 − w) dB) K_{t−ε}, B likewise with weights ∫w dB, ∫(1 − w) dB)
//!   [DDR20, §4]. The two-point pair has A-mass p_t = (e^ε − e^t)/(e^ε − 1) at t.
//! * **(1) One dominating pair for the class.** The two-point pair's trade-off function is the broken line
//!   from (0, 1) through (x_t, y_t) = ((e^{ε−t} − 1)/(e^ε − 1), (e^t − 1)/(e^ε − 1)) to (1, 0). The kinks
//!   lie on the convex curve (1 + (e^ε − 1)x)(1 + (e^ε − 1)y) = e^ε, which holds both ends too, and a chord
//!   of a convex curve lies above it: the infimum over t of the trade-off functions is the curve
//!
//!     f*(x) = (e^ε/(1 + (e^ε − 1)x) − 1)/(e^ε − 1),
//!
//!   convex, so a trade-off function, and every ε-BR mechanism is f*-DP whatever its t. The pair whose
//!   trade-off is f* has the likelihood ratio −f*′ ∈ [e^{−ε}, e^ε] continuously: with c = e^ε − 1, for
//!   −ε ≤ ℓ ≤ ε,
//!
//!     A[L ≥ ℓ] = (e^ε − e^{(ε+ℓ)/2})/c,   B[L ≥ ℓ] = (e^{(ε−ℓ)/2} − 1)/c,                         (1)
//!
//!   densities e^{(ε+ℓ)/2}/(2c) and e^{(ε−ℓ)/2}/(2c) (the Laplace loss law's continuous part, conditioned).
//!   The law is symmetric. Its δ(ε′) = (e^{ε/2} − e^{ε′/2})²/c for 0 ≤ ε′ ≤ ε is the supremum over t of the
//!   two-point pairs' (attained at t = (ε + ε′)/2): one release is exact. A composition is bounded by the
//!   composition of f* [DRS22, Thm 4], adaptive choices included.
//! * **(2) The class's Rényi divergences.** The pair (1) mixes the worst t of every threshold, so its
//!   Rényi divergences exceed the class's (its KL is ~ε²/6 against ε²/8), and many compositions are
//!   bounded more tightly through the class's own: D_α ≤ sup_t D_α(two-point pair of t) (the post-processing
//!   above), which Rényi composition adds up adaptively [Mir17, Prop. 1]; the supremum is in closed form
//!   ([`LossLaw::renyi`] below). The accountant computes both bounds and reports the smaller
//!   (`account::laws`); either is a certified upper bound (trust `certified-bound`).
//! * **Its moment generating function**, for the tilted Fourier engine (`noise::mgf_bounded_range`):
//!   M(s) = E_A[e^{sL}] = e^{ε/2} sinh((s + ½)ε)/(c (s + ½)).
//!
//! The ε given is the mechanism's own, under the neighbour relation of the run: one copy per release
//! under either relation.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::Rational;
use std::sync::Arc;

/// An ε-bounded-range mechanism (the exponential mechanism at ε-DP), by the dominating pair of its class.
#[derive(Clone, Debug)]
pub struct BoundedRange {
    eps: Rational,
}

impl BoundedRange {
    pub fn new(eps: Rational) -> Fallible<BoundedRange> {
        if eps <= 0 {
            return crate::fallible!(Input, "the exponential mechanism needs epsilon > 0, got {}", crate::num::format::fmt_rational(&eps));
        }
        Ok(BoundedRange { eps })
    }

    /// `expmech:epsilon=E`.
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<BoundedRange> {
        BoundedRange::new(p.positive("epsilon")?)
    }

    /// (e^{x} − 1)/(e^ε − 1) at x, enclosed (x ≥ 0): the small sides of (1), without cancellation.
    fn ratio(&self, x: &Rational, prec: u32) -> Interval {
        let p = prec + 16;
        Interval::from_rational(x, p).exp_m1().div(&Interval::from_rational(&self.eps, p).exp_m1())
    }
}

impl LossLaw for BoundedRange {
    fn spec(&self) -> String {
        format!("expmech:epsilon={}", crate::num::format::fmt_rational(&self.eps))
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// (1): A[L < ℓ] = (e^{(ε+ℓ)/2} − 1)/c and B[L ≥ ℓ] = (e^{(ε−ℓ)/2} − 1)/c; the other sides are
    /// e^{(ε∓ℓ)/2} times the first ones' mirror, (e^ε − e^{(ε+ℓ)/2})/c = e^{(ε+ℓ)/2}(e^{(ε−ℓ)/2} − 1)/c.
    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let (zero, one) = (Interval::zero(prec), Interval::one(prec));
        if *l <= -self.eps.clone() {
            return Ok(Split { a_below: zero.clone(), a_above: one.clone(), b_below: zero, b_above: one });
        }
        if *l >= self.eps {
            return Ok(Split { a_below: one.clone(), a_above: zero.clone(), b_below: one, b_above: zero });
        }
        let up = Rational::from(&self.eps + l) / 2u32;
        let down = Rational::from(&self.eps - l) / 2u32;
        let (a_below, b_above) = (self.ratio(&up, prec), self.ratio(&down, prec));
        let a_above = Interval::from_rational(&up, prec + 16).exp().mul(&b_above);
        let b_below = Interval::from_rational(&down, prec + 16).exp().mul(&a_below);
        Ok(Split { a_below, a_above, b_below, b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    /// (−ε, ε), no atom at either end.
    fn range(&self, _dir: Direction) -> LossRange {
        let e = Interval::from_rational(&self.eps, 128);
        LossRange { lo: End::Limit(e.neg()), hi: End::Limit(e) }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let (e, p) = (self.eps.to_f64(), ln_p.exp().min(1.0));
        let c = e.exp_m1();
        // (1) solved for ℓ: A[L ≥ ℓ] = p at e^{(ε+ℓ)/2} = e^ε − pc; A[L < ℓ] = p at e^{(ε+ℓ)/2} = 1 + pc
        let l = if upper { 2.0 * (e.exp() - p * c).ln() - e } else { 2.0 * (p * c).ln_1p() - e };
        if l.is_nan() {
            e
        } else {
            l.clamp(-e, e)
        }
    }

    /// ε²/8: an ε-BR mechanism is ε²/8-zCDP [CR21] (the class's divergences of (2) lie below αε²/8, which
    /// the tests check); a composition with stated zCDP guarantees goes through it.
    fn rho(&self) -> Option<Rational> {
        Some(Rational::from(&self.eps * &self.eps) / 8u32)
    }

    /// The loss never leaves [−ε, ε].
    fn pure_epsilon(&self) -> Option<Rational> {
        Some(self.eps.clone())
    }

    /// ε is stated for the run's relation: one copy per release under either.
    fn shifts(&self, _neighbors: Neighbors) -> Fallible<u64> {
        Ok(1)
    }

    /// A dominating pair of the class, not the mechanism's own: its results are bounds.
    fn is_bound(&self) -> bool {
        true
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        // the score's temperature times c: ε/c
        Some(BoundedRange::new(self.eps.clone() / c.clone()).map(|l| Arc::new(l) as Arc<dyn LossLaw>))
    }

    fn bounded_range_eps(&self) -> Option<Rational> {
        Some(self.eps.clone())
    }

    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        Some(crate::noise::mgf::Mgf::BoundedRange { eps: self.eps.clone() })
    }

    /// The Rényi divergence of the class, sup over ε-BR mechanisms (module doc, (2)): sharper than this
    /// pair's own ln M(α − 1)/(α − 1), which a composition bounds through as well (`account::rdp_bound`).
    fn renyi_sharper(&self) -> bool {
        true
    }

    /// (2): with β = α − 1, x = e^t, A = e^ε − e^{−βε} and B = 1 − e^{−βε}, the two-point pair of t has
    /// E_A[e^{βL}] = x^β(A − Bx)/(e^ε − 1), unimodal in x with its top at x* = βA/((β + 1)B); x* is
    /// enclosed, cut to [1, e^ε], and the expression evaluated over that enclosure holds the supremum.
    fn renyi(&self, _dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        if *alpha <= 1 {
            return Some(crate::fallible!(Internal, "Renyi divergence of order {alpha} asked (orders are > 1)"));
        }
        let p = prec + 32;
        let beta = Rational::from(alpha - 1u32);
        let (e, b) = (Interval::from_rational(&self.eps, p), Interval::from_rational(&beta, p));
        let big_e = e.exp();
        // A = (e^ε − 1) − (e^{−βε} − 1) and B = −(e^{−βε} − 1), without cancellation at a small βε
        let small_m1 = b.mul(&e).neg().exp_m1();
        let (a_, b_) = (e.exp_m1().sub(&small_m1), small_m1.neg());
        let x_star = b.mul(&a_).div(&Interval::from_rational(alpha, p).mul(&b_));
        let x = x_star.clamp_to(&rug::Float::with_val(p, 1), big_e.hi());
        let ln_h = b.mul(&x.ln()).add(&a_.sub(&b_.mul(&x)).ln()).sub(&e.exp_m1().ln());
        Some(Ok(crate::noise::dgauss::round_to(&ln_h.div(&b), prec)))
    }
}

#[cfg(test)]
#[path = "bounded_range_tests.rs"]
mod tests;
