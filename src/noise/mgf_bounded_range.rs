//! The moment generating function of the bounded-range law (`noise::bounded_range`: the exponential
//! mechanism by its ε-bounded-range class) on vertical lines, certified: what the tilted Fourier engine
//! inverts for `expmech:epsilon=E`.
//!
//! Under A the loss has the density e^{(ε+ℓ)/2}/(2c) on (−ε, ε), c = e^ε − 1, so with w = s + ½
//!
//!   M(s) = E_A[e^{sL}] = e^{ε/2}/(2c) ∫_{−ε}^{ε} e^{wℓ} dℓ = e^{ε/2} sinh(wε)/(c w),
//!
//! entire (sinh(wε)/w is, at w = 0 its limit ε), M(0) = M(−1) = 1; the law is symmetric, so both directions
//! have it. On the line s = c₀ + it (c₀ ≥ 0, so Re w ≥ ½ and w ≠ 0), |sinh(x + iy)|² = sinh²x + sin²y ≤ cosh²x
//! gives the decay
//!
//!   sup_{t ≥ t*} |M(c₀ + it)| ≤ e^{ε/2} cosh((c₀ + ½)ε)/(c √((c₀ + ½)² + t*²)),
//!
//! which n-fold powers turn into t*^{−n}.

use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::{Float, Rational};

/// e^{ε/2}/(e^ε − 1), enclosed.
fn front(e: &Interval) -> Interval {
    e.div(&Interval::from_i64(2, e.prec())).exp().div(&e.exp_m1())
}

/// M(c + ikh) for k = 0..=k_max, enclosed at `prec` bits (closed form: no quadrature).
pub fn line(eps: &Rational, c: &Float, h: &Float, k_max: usize, prec: u32) -> Vec<CInterval> {
    let p = prec + 16;
    let e = Interval::from_rational(eps, p);
    let f = front(&e);
    let wr = Interval::from_float(c, p).add(&Interval::from_float(&Float::with_val(p, 0.5), p));
    let half = Interval::from_float(&Float::with_val(p, 0.5), p);
    let minus_half = half.neg();
    (0..=k_max)
        .map(|k| {
            let t = Interval::from_float(h, p).mul(&Interval::from_i64(k as i64, p));
            // sinh(wε) = (e^{wε} − e^{−wε})/2
            let up = CInterval::exp_of(&wr.mul(&e), &t.mul(&e)).scale(&half);
            let down = CInterval::exp_of(&wr.mul(&e).neg(), &t.mul(&e).neg()).scale(&minus_half);
            let w_inv = CInterval::new(wr.clone(), t).inv().expect("invariant: Re w = c + 1/2 >= 1/2");
            up.add(&down).mul(&w_inv).scale(&f)
        })
        .collect()
}

/// Planning: ln M(λ) for real λ ≥ 0 in f64, as ε/2 − ln c + x + ln(1 − e^{−2x}) − ln 2 − ln w with w = λ + ½,
/// x = wε (no overflow at large λ).
pub fn ln_real_f64(eps: &Rational, lam: f64) -> f64 {
    let e = eps.to_f64();
    let (w, x) = (lam + 0.5, (lam + 0.5) * e);
    e / 2.0 - e.exp_m1().ln() + x + (-(-2.0 * x).exp_m1()).ln() - std::f64::consts::LN_2 - w.ln()
}

/// The decay bound of the module doc at t* (rounded up).
pub fn ln_decay(eps: &Rational, c: &Float, t_star: f64) -> Float {
    let p = 64;
    let e = Interval::from_rational(eps, p);
    let wr = Interval::from_float(c, p).add(&Interval::from_float(&Float::with_val(p, 0.5), p));
    let t = Interval::from_float(&Float::with_val(p, t_star), p);
    let x = wr.mul(&e);
    let cosh = x.exp().add(&x.neg().exp()).div(&Interval::from_i64(2, p));
    let modulus = wr.mul(&wr).add(&t.mul(&t)).sqrt();
    front(&e).mul(&cosh).div(&modulus).ln().hi().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// M(0) = 1 (A is a probability law) and M(−1) = 1 (E_A[e^{−L}] = B's mass), the latter through the
    /// closed form at real s = −1 evaluated by hand: w = −½, e^{ε/2} sinh(−ε/2)/(c·(−½)) = 1. The line
    /// against mpmath's quadrature of the density: at ε = 1/2, s = 1/4 + 3i,
    /// mpmath.quad(lambda l: exp((0.25+3j)*l) * exp((0.5+l)/2)/(2*expm1(0.5)), [-0.5, 0.5]) =
    /// 0.667686856285437345306906613389 + 0.149007207272661485299567195068i (mp.dps = 30).
    #[test]
    fn the_line_is_the_density_integrated() {
        let eps = q("1/2");
        let at0 = line(&eps, &Float::with_val(64, 0), &Float::with_val(64, 1), 0, 128);
        assert!(at0[0].re().contains(&Float::with_val(128, 1)) && at0[0].re().width() < 1e-35);
        let pts = line(&eps, &Float::with_val(64, 0.25), &Float::with_val(64, 1.5), 2, 128);
        let m = &pts[2];
        assert!((m.re().to_f64() - 0.6676868562854373).abs() < 1e-15, "{}", m.re().to_f64());
        assert!((m.im().to_f64() - 0.14900720727266149).abs() < 1e-15, "{}", m.im().to_f64());
        assert!(m.re().width() < 1e-35 && m.im().width() < 1e-35);
        // the f64 planning value at real λ against the enclosure
        let real = line(&eps, &Float::with_val(64, 2.5), &Float::with_val(64, 0), 0, 128);
        assert!((real[0].re().to_f64().ln() - ln_real_f64(&eps, 2.5)).abs() < 1e-13);
        // the decay bound holds the modulus along the line, at every point past t*
        for k in 0..=2 {
            let t = 1.5 * k as f64;
            let bound = ln_decay(&eps, &Float::with_val(64, 0.25), t).to_f64();
            for j in k..=2 {
                let abs = (pts[j].re().to_f64().powi(2) + pts[j].im().to_f64().powi(2)).sqrt();
                assert!(abs.ln() <= bound, "t* = {t}: |M| = {abs} above e^{bound}");
            }
        }
    }
}
