//! The moment generating function of k-ary randomized response's loss (`noise::rr`) on vertical lines,
//! certified: what the tilted Fourier engine inverts where randomized response is composed with a law whose
//! characteristic function decays (a Gaussian, a subsampled Gaussian). Its three atoms — ℓ₁ with A-mass a₁,
//! 0 with a₀, −ℓ₁ with a₋₁ (`noise::rr`, eq. (1)) — give the finite sum
//!
//!   M(s) = a₁ e^{sℓ₁} + a₀ + a₋₁ e^{−sℓ₁},
//!
//! in both directions (the law is symmetric), each term an MPFR complex exponential. A lattice law's
//! characteristic function is periodic: |M(c + it)| ≤ M(c) is all the decay it gives, and a composition
//! needs a decaying law beside it (compositions of lattice laws alone are the atoms engine's exact sums).

use crate::noise::rr::RandomizedResponse;
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::Float;

/// M(c + ikh) for k = 0..=k_max, enclosed at `prec` bits (a closed form: no quadrature).
pub fn line(rr: &RandomizedResponse, c: &Float, h: &Float, k_max: usize, prec: u32) -> Vec<CInterval> {
    let p = prec + 16;
    let [(top, _), (mid, _), (bottom, _)] = rr.masses(p);
    let l1 = rr.top_loss(p);
    let cl = Interval::from_float(c, p).mul(&l1);
    let zero = Interval::zero(p);
    (0..=k_max)
        .map(|k| {
            let tl = Interval::from_float(h, p).mul(&Interval::from_i64(k as i64, p)).mul(&l1);
            let up = CInterval::exp_of(&cl, &tl).scale(&top);
            let down = CInterval::exp_of(&cl.neg(), &tl.neg()).scale(&bottom);
            up.add(&down).add(&CInterval::new(mid.clone(), zero.clone()))
        })
        .collect()
}

/// Planning: ln M(λ) for real λ ≥ 0 in f64, as λℓ₁ + ln(a₁ + a₀e^{−λℓ₁} + a₋₁e^{−2λℓ₁}) (no overflow).
pub fn ln_real_f64(rr: &RandomizedResponse, lam: f64) -> f64 {
    let [(top, _), (mid, _), (bottom, _)] = rr.masses(64);
    let x = lam * rr.top_loss(64).to_f64();
    x + (top.to_f64() + mid.to_f64() * (-x).exp() + bottom.to_f64() * (-2.0 * x).exp()).ln()
}
