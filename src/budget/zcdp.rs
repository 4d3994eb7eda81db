//! zCDP → (ε, δ) conversions.
//!
//! * Bun–Steinke (the Bureau's): ε = ρ + 2√(ρ log(1/δ)) ([SSW24, App. A.1]).
//! * Canonne–Kamath–Steinke (optimal conversion of ρ-zCDP): δ = inf_{α>1} e^{(α−1)(αρ−ε)}/(α−1)·(1−1/α)^α,
//!   equivalently ε(δ) = inf_{α>1} αρ + (log(1/δ) + (α−1)log(1 − 1/α) − log α)/(α−1).
//!
//! The CKS infimum is located by golden-section search at working precision; the value reported is
//! the certified enclosure of the objective *at* the α found, hence a valid (ε, δ) statement, and above
//! the infimum by far less than the enclosure width (the objective is flat at its minimum).

use crate::num::Interval;
use rug::ops::Pow;
use rug::{Float, Rational};

/// ρ of n queries with sensitivity μ and noise N_Z(0, σ²): nμ²/(2σ²) (Canonne–Kamath–Steinke Thm 4).
pub fn rho_of(sigma2: &Rational, n: u32, mu: u32) -> Rational {
    Rational::from(n) * Rational::from(mu) * Rational::from(mu) / (Rational::from(2u32) * sigma2.clone())
}

/// Bun–Steinke: ε = ρ + 2√(ρ log(1/δ)).
pub fn eps_bs(rho: &Rational, delta: &Rational, prec: u32) -> Interval {
    let r = Interval::from_rational(rho, prec);
    let l = Interval::from_rational(delta, prec).ln().neg();
    r.add(&r.mul(&l).sqrt().mul(&Interval::from_i64(2, prec)))
}

/// Inverse of Bun–Steinke: δ = exp(−(ε − ρ)²/(4ρ)) for ε ≥ ρ, else 1.
pub fn delta_bs(rho: &Rational, eps: &Rational, prec: u32) -> Interval {
    if eps <= rho {
        return Interval::one(prec);
    }
    let x = Rational::from(eps - rho);
    let e = Rational::from(&x * &x) / (Rational::from(4u32) * rho.clone());
    Interval::from_rational(&-e, prec).exp()
}

/// CKS objective for ε at a given α: αρ + (L + (α−1)log(1−1/α) − log α)/(α−1), L = log(1/δ).
fn cks_eps_at(alpha: &Float, rho: &Interval, l: &Interval, prec: u32) -> Interval {
    let a = Interval::from_float(alpha, prec);
    let one = Interval::one(prec);
    let am1 = a.sub(&one);
    let t = one.sub(&one.div(&a)).ln().mul(&am1);
    a.mul(rho).add(&l.add(&t).sub(&a.ln()).div(&am1))
}

/// CKS objective for log δ at a given α: (α−1)(αρ−ε) − log(α−1) + α log(1−1/α).
fn cks_logdelta_at(alpha: &Float, rho: &Interval, eps: &Interval, prec: u32) -> Interval {
    let a = Interval::from_float(alpha, prec);
    let one = Interval::one(prec);
    let am1 = a.sub(&one);
    am1.mul(&a.mul(rho).sub(eps)).sub(&am1.ln()).add(&a.mul(&one.sub(&one.div(&a)).ln()))
}

/// Golden-section minimisation of `f` over α ∈ (lo, hi) at precision `prec`; returns the best α.
fn golden_min(mut lo: Float, mut hi: Float, prec: u32, f: &dyn Fn(&Float) -> Float) -> Float {
    let g = (Float::with_val(prec, 5).sqrt() - 1u32) / 2u32; // 0.618…
    let mut x1 = Float::with_val(prec, &hi - Float::with_val(prec, &g * Float::with_val(prec, &hi - &lo)));
    let mut x2 = Float::with_val(prec, &lo + Float::with_val(prec, &g * Float::with_val(prec, &hi - &lo)));
    let mut f1 = f(&x1);
    let mut f2 = f(&x2);
    for _ in 0..(prec as usize * 2) {
        if f1 < f2 {
            hi = x2;
            x2 = x1.clone();
            f2 = f1.clone();
            x1 = Float::with_val(prec, &hi - Float::with_val(prec, &g * Float::with_val(prec, &hi - &lo)));
            f1 = f(&x1);
        } else {
            lo = x1;
            x1 = x2.clone();
            f1 = f2.clone();
            x2 = Float::with_val(prec, &lo + Float::with_val(prec, &g * Float::with_val(prec, &hi - &lo)));
            f2 = f(&x2);
        }
        if Float::with_val(prec, &hi - &lo) < Float::with_val(prec, Float::with_val(prec, 2).pow(-(prec as i32) / 2 - 4)) {
            break;
        }
    }
    if f1 < f2 {
        x1
    } else {
        x2
    }
}

/// The α interval searched around a guess of the optimal α: (1, 4·guess + 10), its lower end raised to
/// guess/8 when the guess is large, so that the golden section converges in its 2·prec steps (every
/// α > 1 gives a valid bound; the range only decides how tight).
fn alpha_range(guess: Float, p: u32) -> (Float, Float) {
    let one = Float::with_val(p, 1) + Float::with_val(p, 1e-12);
    let hi = Float::with_val(p, &guess * 4u32) + 10u32;
    let lo = if guess > 1e6 { Float::with_val(p, &guess / 8u32) } else { one };
    (lo, hi)
}

/// CKS ε(δ) and the optimising α.
pub fn eps_cks(rho: &Rational, delta: &Rational, prec: u32) -> (Interval, Float) {
    let p = prec + 32;
    let r = Interval::from_rational(rho, p);
    let l = Interval::from_rational(delta, p).ln().neg();
    // the optimal α ≈ 1 + √(L/ρ), in MPFR (ρ may be below f64's range: a discrete Laplace scale of 1e300)
    let guess = Float::with_val(p, l.mid() / r.mid()).sqrt() + 1u32;
    let (lo, hi) = alpha_range(guess, p);
    let f = |a: &Float| cks_eps_at(a, &r, &l, p).mid();
    let a = golden_min(lo, hi, p, &f);
    // (ε, δ)-DP for some ε < 0 implies (0, δ)-DP: the conversion's ε is max(0, objective)
    let e = cks_eps_at(&a, &r, &l, p).clamp_to(&Float::with_val(p, 0), &Float::with_val(p, f64::INFINITY));
    (crate::noise::dgauss::round_to(&e, prec), a)
}

/// CKS δ(ε) and the optimising α.
pub fn delta_cks(rho: &Rational, eps: &Rational, prec: u32) -> (Interval, Float) {
    let p = prec + 32;
    let r = Interval::from_rational(rho, p);
    let e = Interval::from_rational(eps, p);
    // the optimal α ≈ (ε + ρ)/(2ρ), in MPFR (ρ may be below f64's range)
    let guess = Float::with_val(p, e.mid() / r.mid()).max(&Float::with_val(p, 1)) + 1u32;
    let (lo, hi) = alpha_range(guess, p);
    let f = |a: &Float| cks_logdelta_at(a, &r, &e, p).mid();
    let a = golden_min(lo, hi, p, &f);
    let ld = cks_logdelta_at(&a, &r, &e, p);
    let d = ld.exp();
    let one = Interval::one(p);
    let d = if *d.lo() >= 1 { one } else { d };
    (crate::noise::dgauss::round_to(&d, prec), a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    /// [SSW24, §3.1]: state level, ρ = 0.274·3.65, Bureau ε = 11.07 (δ=1e-11),
    /// 7.79 (δ=1e-5); national ε = 2.79 (δ = 1e-11).
    #[test]
    fn bureau_epsilons_from_the_paper() {
        let rho_state = parse_rational("0.274").unwrap() * parse_rational("3.65").unwrap();
        let e11 = eps_bs(&rho_state, &parse_rational("1e-11").unwrap(), 128).mid().to_f64();
        let e5 = eps_bs(&rho_state, &parse_rational("1e-5").unwrap(), 128).mid().to_f64();
        assert_eq!(format!("{e11:.2}"), "11.07");
        assert_eq!(format!("{e5:.2}"), "7.79");
        let rho_us = parse_rational("0.02").unwrap() * parse_rational("3.65").unwrap();
        let eus = eps_bs(&rho_us, &parse_rational("1e-11").unwrap(), 128).mid().to_f64();
        assert_eq!(format!("{eus:.2}"), "2.79");
    }

    #[test]
    fn bs_round_trip_and_cks_is_tighter() {
        let rho = parse_rational("1.25").unwrap();
        let delta = parse_rational("1e-10").unwrap();
        let e = eps_bs(&rho, &delta, 200);
        let erat = Rational::from_f64(e.mid().to_f64()).unwrap();
        let d = delta_bs(&rho, &erat, 200).mid().to_f64();
        assert!((d / 1e-10 - 1.0).abs() < 1e-9);
        let (c, alpha) = eps_cks(&rho, &delta, 200);
        assert!(c.hi() < e.lo(), "CKS must improve on Bun–Steinke");
        assert!(alpha > 1);
        // δ_CKS at ε_CKS returns δ.
        let crat = Rational::from_f64(c.mid().to_f64()).unwrap();
        let (dc, _) = delta_cks(&rho, &crat, 200);
        assert!((dc.mid().to_f64() / 1e-10 - 1.0).abs() < 1e-6);
    }

    /// data/allocations/redistricting-persons-us-2021.toml (its header cites it): the Bureau's certificate for the 2021 redistricting run,
    /// ρ = 293764/114921, δ = 1e-10, reports ε = 17849145/1041158 ≈ 17.1436 (CKS).
    #[test]
    fn redistricting_certificate_cks() {
        let rho = parse_rational("293764/114921").unwrap();
        let (c, _) = eps_cks(&rho, &parse_rational("1e-10").unwrap(), 128);
        let printed = 17849145.0f64 / 1041158.0;
        assert!((c.mid().to_f64() - printed).abs() < 5e-5, "{} vs {printed}", c.mid());
    }
}
