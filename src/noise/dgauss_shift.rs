//! The shifted discrete Gaussian N_Z(μ, σ²), p(x) ∝ exp(−(x − μ)²/(2σ²)) on x ∈ ℤ, and its mean bias
//! E N_Z(μ, σ²) − μ ([SSW24, Proposition A.5], "Correction to Fact 18" of
//! Canonne–Kamath–Steinke 2020): the mechanism is unbiased **iff** μ ∈ ½ℤ; for μ ∈ (0, ½) the mean is
//! pulled towards the nearest integer (bias < 0), by eq. A.4 (the shifted theta sum decreases in μ).
//!
//! Two independent certified routes, as in [`crate::noise::dgauss`]:
//! - **direct**: Σ_x (x − μ) w(x) / Σ_x w(x), w(x) = exp(−(x − μ)²/(2σ²)), over |x − μ| ≤ K with the
//!   tails bounded by (K + σ²) e^{−K²/(2σ²)} and (1 + σ²/K) e^{−K²/(2σ²)} per side (K ≥ σ: the terms
//!   decrease beyond σ, so each tail is at most its first term plus the integral from K; Mills' ratio);
//! - **theta** (Poisson summation, Fourier transform of y e^{−y²/(2σ²)} is −2πiσ²ξ√(2πσ²) e^{−2π²σ²ξ²}):
//!   E N_Z(μ, σ²) − μ = −4πσ² Σ_{k≥1} k q^{k²} sin(2πkμ) / (1 + 2 Σ_{k≥1} q^{k²} cos(2πkμ)),
//!   q = e^{−2π²σ²}. Every sine vanishes at μ ∈ ½ℤ — the "if" of Prop. A.5 — and the k = 1 term
//!   dominates otherwise. This route keeps relative accuracy when the bias is far below 2^−prec.

use crate::error::Fallible;
use crate::fallible;
use crate::noise::dgauss::{round_to, GUARD_BITS};
use crate::num::Interval;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Rational};

/// Largest σ² the direct route sums term by term (2K + 2 terms, K ≈ σ·√(2·bits·ln 2)).
pub const SIGMA2_DIRECT_MAX: u32 = 100_000_000;

/// N_Z(μ, σ²) with exact rational μ and σ² > 0.
#[derive(Clone, Debug)]
pub struct ShiftedDiscreteGaussian {
    mu: Rational,
    sigma2: Rational,
}

impl ShiftedDiscreteGaussian {
    pub fn new(mu: Rational, sigma2: Rational) -> Fallible<Self> {
        if sigma2 <= 0 {
            return fallible!(Input, "sigma2 must be positive, got {}", sigma2);
        }
        Ok(ShiftedDiscreteGaussian { mu, sigma2 })
    }

    /// Prop. A.5: unbiased exactly when 2μ is an integer.
    pub fn is_unbiased(&self) -> bool {
        (Rational::from(2u32) * &self.mu).denom() == &1u32
    }

    /// μ − ⌊μ⌋ ∈ [0, 1): the bias is 1-periodic in μ (shifting μ by an integer shifts the law).
    fn frac(&self) -> Rational {
        let fl = Rational::from(self.mu.floor_ref());
        Rational::from(&self.mu - &fl)
    }

    /// Certified E N_Z(μ, σ²) − μ by direct summation (refused above [`SIGMA2_DIRECT_MAX`]).
    pub fn mean_bias_direct(&self, prec: u32) -> Fallible<Interval> {
        if self.sigma2 > SIGMA2_DIRECT_MAX {
            return fallible!(
                Declined,
                "sigma2 = {} is above {} for the direct sum; use the theta route",
                self.sigma2.to_f64(),
                SIGMA2_DIRECT_MAX
            );
        }
        let p = prec + 16;
        let f = self.frac();
        let s2 = self.sigma2.to_f64();
        // K ≥ σ with e^{−K²/(2σ²)} ≤ 2^{−(prec + GUARD_BITS)}; the tail bound below is rigorous for any K ≥ σ.
        let bits = f64::from(prec + GUARD_BITS);
        let k = ((2.0 * s2 * bits * std::f64::consts::LN_2).sqrt().ceil() as i64).max(s2.sqrt().ceil() as i64 + 1);
        let two_s2 = Rational::from(2u32) * &self.sigma2;
        let mut num = Interval::zero(p);
        let mut den = Interval::zero(p);
        // Points y = j − f, j = −K..=K+1, cover [−K − f, K + 1 − f] ⊇ [−K, K]; the rest has |y| > K.
        for j in -k..=k + 1 {
            let y = Rational::from(j) - &f;
            let e = Rational::from(&y * &y) / &two_s2;
            let w = Interval::from_rational(&-e, p).exp();
            num = num.add(&w.mul(&Interval::from_rational(&y, p)));
            den = den.add(&w);
        }
        let kr = Rational::from(k);
        let g = Interval::from_rational(&-(Rational::from(&kr * &kr) / &two_s2), p).exp();
        let s2i = Interval::from_rational(&self.sigma2, p);
        let tail_num = Interval::from_rational(&kr, p).add(&s2i).mul(&g).mul(&Interval::from_i64(2, p));
        let tail_den = Interval::one(p).add(&s2i.div(&Interval::from_rational(&kr, p))).mul(&g).mul(&Interval::from_i64(2, p));
        let t = tail_num.hi().clone();
        num = Interval::new(Float::with_val_round(p, num.lo() - &t, Round::Down).0, Float::with_val_round(p, num.hi() + &t, Round::Up).0);
        den = Interval::new(den.lo().clone(), Float::with_val_round(p, den.hi() + tail_den.hi(), Round::Up).0);
        Ok(round_to(&num.div(&den), prec))
    }

    /// Certified E N_Z(μ, σ²) − μ through the theta series (module docs); exactly 0 when μ ∈ ½ℤ.
    pub fn mean_bias_theta(&self, prec: u32) -> Interval {
        if self.is_unbiased() {
            return Interval::zero(prec);
        }
        let p = prec + 16;
        let f = self.frac();
        let pi = Interval::pi(p);
        let two_pi_f = pi.mul(&Interval::from_rational(&(Rational::from(2u32) * &f), p));
        let s2 = Interval::from_rational(&self.sigma2, p);
        let a = pi.mul(&pi).mul(&s2).mul(&Interval::from_i64(2, p)); // q^{k²} = e^{−a k²}
        let target = Float::with_val(p, Float::with_val(p, 2).pow(-((prec + GUARD_BITS) as i32)));
        let mut s = Interval::zero(p);
        let mut d = Interval::one(p);
        let mut k: i64 = 1;
        loop {
            let qk = a.mul(&Interval::from_i64(k * k, p)).neg().exp();
            let arg = two_pi_f.mul(&Interval::from_i64(k, p));
            s = s.add(&qk.mul(&Interval::from_i64(k, p)).mul(&arg.sin()));
            d = d.add(&qk.mul(&Interval::from_i64(2, p)).mul(&arg.cos()));
            // Stop once k q^{k²} is below the target relative to the first term (the sum keeps relative
            // accuracy); the rest Σ_{j>k} j q^{j²} ≤ (k+1) q^{(k+1)²} / (1 − r), r = ((k+2)/(k+1)) q^{2k+3}.
            let rel = if k == 1 { qk.hi().clone() } else { Float::with_val(p, qk.hi() * k) };
            let first = a.neg().exp();
            if k >= 2 && rel < Float::with_val(p, &target * first.lo()) {
                let next = Interval::from_i64(k + 1, p);
                let next_term = a.mul(&next.mul(&next)).neg().exp().mul(&next);
                let ratio = Interval::from_rational(&Rational::from((k + 2, k + 1)), p);
                let r = a.mul(&Interval::from_i64(2 * k + 3, p)).neg().exp().mul(&ratio);
                let tail = next_term.div(&Interval::one(p).sub(&r)).into_parts().1;
                s = Interval::new(
                    Float::with_val_round(p, s.lo() - &tail, Round::Down).0,
                    Float::with_val_round(p, s.hi() + &tail, Round::Up).0,
                );
                let t2 = Float::with_val_round(p, &tail * 2u32, Round::Up).0;
                d = Interval::new(
                    Float::with_val_round(p, d.lo() - &t2, Round::Down).0,
                    Float::with_val_round(p, d.hi() + &t2, Round::Up).0,
                );
                break;
            }
            k += 1;
        }
        let c = pi.mul(&s2).mul(&Interval::from_i64(4, p)).neg();
        round_to(&c.mul(&s).div(&d), prec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> Rational {
        Rational::from((n, d))
    }

    /// References: mpmath 1.3 at 50 digits, nsum over x ∈ ℤ of (x − μ) e^{−(x−μ)²/(2σ²)} divided by
    /// nsum of e^{−(x−μ)²/(2σ²)} (scratch venv, outside the repository; independent of this module).
    #[test]
    fn mean_bias_matches_mpmath() {
        let cases: [(Rational, Rational, &str); 4] = [
            (q(1, 4), q(1, 1), "-3.36186603959833109128962890115e-8"),
            (q(1, 3), q(1, 2), "-2.81461004817811902116677963339e-4"),
            (q(7, 10), q(2, 1), "1.71075282326065724764858018397e-16"),
            (q(1, 4), q(1, 10), "-0.174690896918329358514172427233"),
        ];
        for (mu, s2, want) in cases {
            let d = ShiftedDiscreteGaussian::new(mu.clone(), s2.clone()).unwrap();
            let a = d.mean_bias_direct(128).unwrap();
            let b = d.mean_bias_theta(128);
            let w = Float::with_val(128, Float::parse(want).unwrap());
            // mpmath printed 30 significant digits: a relative tolerance of 1e-28 covers its rounding.
            let tol = Float::with_val(128, w.clone().abs() * 1e-28f64);
            assert!(a.overlaps(&b), "routes disagree at mu={} s2={}: {} vs {}", mu, s2, a, b);
            assert!(a.width() < 1e-30, "direct route too wide: {}", a);
            let lo = Float::with_val(128, b.lo() - &tol);
            let hi = Float::with_val(128, b.hi() + &tol);
            assert!(lo <= w && w <= hi, "theta {} misses mpmath {} (mu={}, s2={})", b, want, mu, s2);
            assert!(b.width() < Float::with_val(128, w.clone().abs() * 1e-30f64), "theta route too wide: {}", b);
        }
    }

    /// Prop. A.5: zero at half-integers (both routes), negative on (0, ½), positive on (½, 1), and
    /// periodic in μ; the routes overlap at random rationals and precisions (Arb-style two-way test).
    #[test]
    fn prop_a5_sign_and_overlap() {
        let mut rng = crate::num::xorshift::XorShift(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next_u64();
        for _ in 0..60 {
            let den = (next() % 97 + 2) as i64;
            let num = (next() % (4 * den as u64)) as i64 - 2 * den;
            let mu = q(num, den);
            let s2 = q((next() % 400 + 1) as i64, (next() % 40 + 1) as i64);
            let prec = 64 + (next() % 200) as u32;
            let d = ShiftedDiscreteGaussian::new(mu.clone(), s2.clone()).unwrap();
            let a = d.mean_bias_direct(prec).unwrap();
            let b = d.mean_bias_theta(prec);
            assert!(a.overlaps(&b), "mu={} s2={} prec={}: {} vs {}", mu, s2, prec, a, b);
            let f = d.frac();
            if d.is_unbiased() {
                assert!(a.contains(&Float::with_val(prec, 0)) && *b.lo() == 0 && *b.hi() == 0);
            } else if f < q(1, 2) {
                assert!(*b.hi() < 0, "mu={} s2={}: {} not negative", mu, s2, b);
            } else {
                assert!(*b.lo() > 0, "mu={} s2={}: {} not positive", mu, s2, b);
            }
            let shifted = ShiftedDiscreteGaussian::new(mu + 3u32, s2).unwrap().mean_bias_theta(prec);
            assert!(shifted.overlaps(&b));
        }
    }

    #[test]
    fn refuses_nonpositive_and_huge_variance() {
        assert!(ShiftedDiscreteGaussian::new(q(1, 3), q(0, 1)).is_err());
        let e = ShiftedDiscreteGaussian::new(q(1, 3), Rational::from(SIGMA2_DIRECT_MAX) * 2u32).unwrap();
        let r = e.mean_bias_direct(64).unwrap_err();
        assert!(r.message().contains("theta route") && r.is_declined(), "{r:?}");
    }
}
