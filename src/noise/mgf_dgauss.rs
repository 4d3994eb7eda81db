//! The discrete Gaussian mechanism's loss moment generating function on vertical lines (`noise::mgf`,
//! `Mgf::DiscreteGaussian`). With A = N_Z(0, σ²), integer sensitivity μ, η = μ²/(2σ²) and step s = μ/σ²,
//! the loss is L(x) = η − s·x (`noise::dgauss_loss`, eq. (1)), so for complex z
//!
//!   M(z) = E_A[e^{zL}] = (1/Z) Σ_x exp(−x²/(2σ²) + z(η − s·x)),    Z = Σ_x e^{−x²/(2σ²)},
//!
//! and the terms' moduli are e^{η(c² + c)} e^{−(x + cμ)²/(2σ²)} (c = Re z): a Gaussian bump around −cμ. The
//! sum is taken directly over |x − x₀| ≤ K, x₀ the integer nearest −cμ, each term an MPFR complex
//! exponential; the rest, where |x + cμ| ≥ d = K + ½, is at most
//! 2 e^{η(c² + c)} e^{−d²/(2σ²)}/(1 − e^{−d/σ²}) in modulus (Σ_{j ≥ 0} e^{−(d + j)²/(2σ²)} ≤ e^{−d²/(2σ²)}
//! Σ_j e^{−dj/σ²}), and widens the enclosure by that. Z is `DiscreteGaussian::normaliser_direct`.
//!
//! For σ² ≥ ½ the θ-function form is taken instead where it needs fewer terms (Poisson's summation
//! formula [Jacobi] for Θ(a) = Σ_x e^{−(x + a)²/(2σ²)} = √(2πσ²) Σ_k w_k e^{2πika}, w_k = e^{−2π²σ²k²}):
//!
//!   M(z) = e^{η(z + z²)} Θ(zμ)/Θ(0) = e^{η(z + z²)} Σ_k w_k e^{2πikzμ} / Σ_k w_k,
//!
//! whose term k has modulus e^{−2π²σ²k² − 2πktμ} at z = c + it; summed over |k| ≤ K, the rest is at most
//! 2e^{f(K+1)}/(1 − r), f(k) = −2π²σ²k² + 2πk|t|μ, r = e^{−2π²σ²(2K + 3) + 2π|t|μ} < 1 (the ratio of
//! consecutive terms past K). A few terms serve every point of the line while |t|μ is small against πσ².
//!
//! A lattice law's characteristic function is periodic and does not decay: |M(c + it)| ≤ M(c) is all it
//! gives, and a composition needs a decaying law beside it (a Gaussian, a subsampled Gaussian).

use crate::noise::dgauss::DiscreteGaussian;
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::{Float, Rational};
use std::f64::consts::PI;

/// η = μ²/(2σ²), enclosed.
fn eta(sigma2: &Rational, mu: u32, prec: u32) -> Interval {
    let mu = Rational::from(mu);
    Interval::from_rational(&(Rational::from(&mu * &mu) / (Rational::from(2) * sigma2.clone())), prec)
}

/// The planning radius K (terms x₀ − K..=x₀ + K) whose rest is below `tol` relative to M(c) ≥ 1.
pub(super) fn radius(sigma2: &Rational, mu: u32, c: f64, tol: f64) -> usize {
    let (s2, eta) = (sigma2.to_f64(), f64::from(mu).powi(2) / (2.0 * sigma2.to_f64()));
    let need = eta * (c * c + c) + (4.0 / tol.max(1e-300)).ln();
    ((2.0 * s2 * need.max(1.0)).sqrt() + 1.0).ceil() as usize
}

/// Largest θ-form terms a point takes before the direct sum is preferred.
const MAX_THETA_TERMS: usize = 64;

/// The θ form's K at |t| (module doc): the smallest with r < 1 and f(K + 1) below ln(tol) − 10, or None
/// past [`MAX_THETA_TERMS`] (or σ² < ½).
fn theta_radius(sigma2: &Rational, mu: u32, t: f64, tol: f64) -> Option<usize> {
    let s2 = sigma2.to_f64();
    if s2 < 0.5 {
        return None;
    }
    let a = 2.0 * PI * PI * s2;
    let b = 2.0 * PI * t.abs() * f64::from(mu);
    let target = tol.max(1e-300).ln() - 10.0;
    (0..MAX_THETA_TERMS).find(|&k| {
        let k1 = (k + 1) as f64;
        -a * (2.0 * k as f64 + 3.0) + b < -1.0 && -a * k1 * k1 + b * k1 < target
    })
}

/// M(c + ikh) for k = 0..=k_max, enclosed at `prec` (module doc); `tol` sets the radii. The θ form where its
/// radius at the line's end is small, else the direct sum.
pub(super) fn line(sigma2: &Rational, mu: u32, c: &Float, h: &Float, k_max: usize, tol: f64, prec: u32) -> Vec<CInterval> {
    if let Some(kk) = theta_radius(sigma2, mu, h.to_f64() * k_max as f64, tol) {
        return theta_line(sigma2, mu, c, h, k_max, kk, prec);
    }
    direct_line(sigma2, mu, c, h, k_max, tol, prec)
}

/// The θ form at every point, with K = `kk` terms each side (module doc).
fn theta_line(sigma2: &Rational, mu: u32, c: &Float, h: &Float, k_max: usize, kk: usize, prec: u32) -> Vec<CInterval> {
    let s2 = Interval::from_rational(sigma2, prec);
    let pi = Interval::pi(prec);
    let a = pi.mul(&pi).mul(&s2).mul(&Interval::from_i64(2, prec));
    let two_pi_mu = pi.add(&pi).mul(&Interval::from_i64(i64::from(mu), prec));
    let eta = eta(sigma2, mu, prec);
    let ci = Interval::from_float(c, prec);
    let one = Interval::one(prec);
    // Σ_k w_k, k ∈ ℤ, with its rest (t = 0)
    let w = |k: i64| a.mul(&Interval::from_i64(k * k, prec)).neg().exp();
    let mut den = one.clone();
    for k in 1..=kk as i64 {
        den = den.add(&w(k).mul(&Interval::from_i64(2, prec)));
    }
    let den = den.widen(&theta_rest(&a, &Interval::zero(prec), kk, prec));
    (0..=k_max)
        .map(|j| {
            let t = Interval::from_float(h, prec).mul(&Interval::from_i64(j as i64, prec));
            let mut num = CInterval::one(prec);
            for k in (-(kk as i64)..=kk as i64).filter(|k| *k != 0) {
                let ki = Interval::from_i64(k, prec);
                // w_k e^{2πikzμ} = exp(−2π²σ²k² − 2πkμt + i 2πkμc)
                let re = a.mul(&ki.mul(&ki)).neg().sub(&two_pi_mu.mul(&ki).mul(&t));
                num = num.add(&CInterval::exp_of(&re, &two_pi_mu.mul(&ki).mul(&ci)));
            }
            let rest = theta_rest(&a, &two_pi_mu.mul(&t), kk, prec);
            let num = CInterval::new(num.re().widen(&rest), num.im().widen(&rest));
            // e^{η(z + z²)}: z + z² = c + c² − t² + i(t + 2ct)
            let lead = CInterval::exp_of(
                &eta.mul(&ci.add(&ci.mul(&ci)).sub(&t.mul(&t))),
                &eta.mul(&t.add(&ci.mul(&t).mul(&Interval::from_i64(2, prec)))),
            );
            let q = num.mul(&lead);
            CInterval::new(q.re().div(&den), q.im().div(&den))
        })
        .collect()
}

/// The θ form's rest past K (module doc) for b = 2π|t|μ, rounded up: 2e^{f(K+1)}/(1 − r).
fn theta_rest(a: &Interval, b: &Interval, kk: usize, prec: u32) -> Float {
    let k1 = Interval::from_i64(kk as i64 + 1, prec);
    // |b| over the enclosure (b ≥ 0 here: t ≥ 0 and μ ≥ 1)
    let top = b.lo().clone().abs().max(&b.hi().clone().abs());
    let b = Interval::new(Float::with_val(prec, 0), top);
    let f = a.mul(&k1.mul(&k1)).neg().add(&b.mul(&k1));
    let r = a.mul(&Interval::from_i64(2 * kk as i64 + 3, prec)).neg().add(&b).exp();
    let one = Interval::one(prec);
    if *r.hi() >= 1 {
        // (theta_radius keeps r below e^{-1}; an enclosure that says nothing rather than a false one)
        return Float::with_val(prec, f64::INFINITY);
    }
    f.exp().mul(&Interval::from_i64(2, prec)).div(&one.sub(&r)).hi().clone()
}

/// The direct sum at every point (module doc); `tol` sets the radius.
fn direct_line(sigma2: &Rational, mu: u32, c: &Float, h: &Float, k_max: usize, tol: f64, prec: u32) -> Vec<CInterval> {
    let k_rad = radius(sigma2, mu, c.to_f64(), tol) as i64;
    let x0 = (-c.to_f64() * f64::from(mu)).round() as i64;
    let s2 = Interval::from_rational(sigma2, prec);
    let eta = eta(sigma2, mu, prec);
    let step = Interval::from_rational(&(Rational::from(mu) / sigma2.clone()), prec);
    let ci = Interval::from_float(c, prec);
    let two_s2 = s2.add(&s2);
    // per x: the real exponent −x²/(2σ²) + c L(x) and L(x), shared by every point of the line
    let xs: Vec<(Interval, Interval)> = (x0 - k_rad..=x0 + k_rad)
        .map(|x| {
            let xi = Interval::from_i64(x, prec);
            let l = eta.sub(&step.mul(&xi));
            (xi.mul(&xi).div(&two_s2).neg().add(&ci.mul(&l)), l)
        })
        .collect();
    let rest = rest_bound(sigma2, mu, &ci, k_rad, prec);
    let z = DiscreteGaussian { sigma2: sigma2.clone() }.normaliser_direct(prec);
    (0..=k_max)
        .map(|k| {
            let t = Interval::from_float(h, prec).mul(&Interval::from_i64(k as i64, prec));
            let mut sum = CInterval::real(Interval::zero(prec));
            for (re, l) in &xs {
                sum = sum.add(&CInterval::exp_of(re, &t.mul(l)));
            }
            let sum = CInterval::new(sum.re().widen(&rest), sum.im().widen(&rest));
            CInterval::new(sum.re().div(&z), sum.im().div(&z))
        })
        .collect()
}

/// The modulus of the dropped terms (module doc), rounded up.
fn rest_bound(sigma2: &Rational, mu: u32, c: &Interval, k_rad: i64, prec: u32) -> Float {
    let s2 = Interval::from_rational(sigma2, prec);
    let eta = eta(sigma2, mu, prec);
    let d = Interval::from_i64(2 * k_rad + 1, prec).div(&Interval::from_i64(2, prec));
    let one = Interval::one(prec);
    let lead = eta.mul(&c.mul(c).add(c)).sub(&d.mul(&d).div(&s2.add(&s2))).exp();
    let geo = one.sub(&d.div(&s2).neg().exp());
    lead.mul(&Interval::from_i64(2, prec)).div(&geo).hi().clone()
}

/// Planning (not certified): ln M(λ) for real λ, in double precision: η(λ² + λ) + ln Θ(λμ)/Θ(0) with
/// Θ(a) = Σ_x e^{−(x + a)²/(2σ²)}. For σ² < 1 both sums are direct over ±(12σ + 2) around their peaks; from
/// σ² = 1 on, by Poisson's summation Θ(a) = √(2πσ²) Σ_k e^{−2π²σ²k²} e^{2πika}, so the ratio is
/// (1 + 2Σ_{k≥1} q^{k²} cos 2πka)/(1 + 2Σ_{k≥1} q^{k²}), q = e^{−2π²σ²}, whose terms fall below 1e-18 by k = 2
/// (the direct sums took 2,405 terms each at σ² = 10⁴, most of a composition's planning).
pub(super) fn ln_real_f64(sigma2: &Rational, mu: u32, lam: f64) -> f64 {
    let s2 = sigma2.to_f64();
    let eta = f64::from(mu).powi(2) / (2.0 * s2);
    let a = lam * f64::from(mu);
    if s2 >= 1.0 {
        let ln_q = -2.0 * std::f64::consts::PI.powi(2) * s2;
        let terms =
            |c: &dyn Fn(f64) -> f64| -> f64 { (1..=4).map(f64::from).map(|k| 2.0 * (ln_q * k * k).exp() * c(k)).sum::<f64>().ln_1p() };
        let cos = |k: f64| (2.0 * std::f64::consts::PI * k * a).cos();
        return eta * (lam * lam + lam) + terms(&cos) - terms(&|_| 1.0);
    }
    let theta = |a: f64| -> f64 {
        let w = (12.0 * s2.sqrt() + 2.0).ceil() as i64;
        let x0 = (-a).round() as i64;
        (x0 - w..=x0 + w).map(|x| (-(x as f64 + a).powi(2) / (2.0 * s2)).exp()).sum()
    };
    eta * (lam * lam + lam) + (theta(a) / theta(0.0)).ln()
}

/// Planning: the terms one point of a line reaching `t_max` sums.
pub(super) fn terms(sigma2: &Rational, mu: u32, c: f64, t_max: f64, tol: f64) -> usize {
    match theta_radius(sigma2, mu, t_max, tol) {
        Some(k) => 2 * k + 2,
        None => 2 * radius(sigma2, mu, c, tol) + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// M at a real point is its θ ratio (planning and certified agree), and M(0) = 1, M(−1) = 1 (B's mass).
    #[test]
    fn real_points_are_probability_identities() {
        let p = 160;
        for (s2, mu) in [((4, 1), 1u32), ((1, 3), 1), ((100, 1), 3)] {
            let s2 = Rational::from(s2);
            for c in [0, -1] {
                let v = line(&s2, mu, &Float::with_val(p, c), &Float::with_val(p, 0), 0, 1e-40, p);
                assert!(v[0].re().contains(&Float::with_val(p, 1)) && v[0].re().width().to_f64() < 1e-30, "{s2} {mu} {c}: {:?}", v[0]);
            }
            let c = Float::with_val(p, 0.75);
            let v = line(&s2, mu, &c, &Float::with_val(p, 0), 0, 1e-40, p);
            let f = ln_real_f64(&s2, mu, 0.75);
            assert!((v[0].re().mid().to_f64().ln() - f).abs() < 1e-9, "{s2} {mu}: {:?} vs {f}", v[0]);
        }
    }

    /// The θ form and the direct sum (two formulas, Poisson's summation between them) overlap at every point
    /// of lines out to where the θ form needs a dozen terms, each to 1e-30.
    #[test]
    fn theta_form_and_direct_sum_agree() {
        let p = 160;
        for (s2, mu, c) in [((4, 1), 1u32, 0.75), ((100, 1), 1, 2.0), ((1, 2), 2, 0.3)] {
            let s2 = Rational::from(s2);
            let (c, h) = (Float::with_val(p, c), Float::with_val(p, 0.37));
            let kk = theta_radius(&s2, mu, 0.37 * 40.0, 1e-40).expect("a θ radius");
            let a = theta_line(&s2, mu, &c, &h, 40, kk, p);
            let b = direct_line(&s2, mu, &c, &h, 40, 1e-40, p);
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                let ok = x.re().overlaps(y.re()) && x.im().overlaps(y.im());
                let w = x.re().width().to_f64().max(x.im().width().to_f64());
                assert!(ok && w < 1e-30, "{s2} {mu} point {k}: {x:?} vs {y:?}");
            }
        }
    }
}
