//! The discrete Gaussian N_Z(0, σ²): p(x) = exp(-x²/(2σ²)) / Z, x ∈ ℤ
//! ([SSW24, Section 3] and Appendix A.2).
//!
//! Every quantity is returned as a certified [`Interval`]. Two independent routes to the
//! normaliser are provided — the direct sum and Poisson summation through the theta function,
//! Z = √(2πσ²)·θ₃(0, e^{-2π²σ²}) — and two routes to the variance (direct, and the theta-series
//! identity Var = σ² − 8π²σ⁴ Σ_k k² q^{k²} / θ₃(0, q), q = e^{-2π²σ²}, obtained by differentiating
//! Z(σ) = √(2π)σ·θ₃ in σ: E[X²] = σ³ Z'(σ)/Z(σ)).

use crate::error::Fallible;
use crate::fallible;
use crate::noise::gauss_terms::{gauss_tail_upper, radius_for_bits, GaussTable};
use crate::num::Interval;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Rational};

/// N_Z(0, σ²) with σ² an exact rational.
#[derive(Clone, Debug)]
pub struct DiscreteGaussian {
    pub sigma2: Rational,
}

/// Extra bits of truncation beyond the working precision, so dropped tails are far below rounding.
pub const GUARD_BITS: u32 = 24;

impl DiscreteGaussian {
    pub fn new(sigma2: Rational) -> Fallible<Self> {
        if sigma2 <= 0 {
            return fallible!(Input, "sigma2 must be positive, got {}", sigma2);
        }
        Ok(DiscreteGaussian { sigma2 })
    }

    /// Truncation radius K: the weights beyond |x| > K are below 2^-(prec+GUARD_BITS).
    pub fn radius(&self, prec: u32) -> usize {
        radius_for_bits(&self.sigma2, prec + GUARD_BITS)
    }

    /// Certified Σ_{x∈ℤ} exp(-x²/(2σ²)) by direct summation with a geometric tail bound.
    pub fn normaliser_direct(&self, prec: u32) -> Interval {
        let k = self.radius(prec);
        let t = GaussTable::new(&self.sigma2, k, prec);
        let mut lo = Float::with_val(prec, 0);
        let mut hi = Float::with_val(prec, 0);
        // Sum from the smallest terms upward for accuracy.
        for y in (1..=k).rev() {
            lo = Float::with_val_round(prec, &lo + &t.lo[y], Round::Down).0;
            hi = Float::with_val_round(prec, &hi + &t.hi[y], Round::Up).0;
        }
        lo = Float::with_val_round(prec, &lo * 2u32, Round::Down).0;
        hi = Float::with_val_round(prec, &hi * 2u32, Round::Up).0;
        lo = Float::with_val_round(prec, &lo + 1u32, Round::Down).0;
        hi = Float::with_val_round(prec, &hi + 1u32, Round::Up).0;
        let tail = gauss_tail_upper(&self.sigma2, k as u64 + 1, prec);
        hi = Float::with_val_round(prec, &hi + Float::with_val(prec, &tail * 2u32), Round::Up).0;
        Interval::new(lo, hi)
    }

    /// θ₃(0, q) = 1 + 2 Σ_{k≥1} q^{k²} with q = exp(-2π²σ²), certified.
    pub fn theta3_zero(&self, prec: u32) -> Interval {
        let (s0, _) = self.theta_sums(prec);
        s0
    }

    /// (θ₃(0,q), Σ_{k≥1} k² q^{k²}), both certified, q = exp(-2π²σ²).
    fn theta_sums(&self, prec: u32) -> (Interval, Interval) {
        let p = prec + 16;
        let pi = Interval::pi(p);
        let s2 = Interval::from_rational(&self.sigma2, p);
        // a = 2π²σ², q^{k²} = exp(-a k²)
        let a = pi.mul(&pi).mul(&s2).mul(&Interval::from_i64(2, p));
        let target = Float::with_val(p, Float::with_val(p, 2).pow(-((prec + GUARD_BITS) as i32)));
        let mut th = Interval::one(p);
        let mut k2sum = Interval::zero(p);
        let mut k: i64 = 1;
        loop {
            let kk = Interval::from_i64(k * k, p);
            let term = a.mul(&kk).neg().exp();
            th = th.add(&term.mul(&Interval::from_i64(2, p)));
            k2sum = k2sum.add(&term.mul(&kk));
            // Remaining terms j > k: (j²) q^{j²} decays faster than geometrically once below target.
            if *term.hi() < target && k >= 2 {
                // Tail bound for Σ_{j>k} j² q^{j²}: ratio of consecutive terms
                // ((j+1)/j)² q^{2j+1} ≤ ((k+2)/(k+1))² q^{2k+3} =: r < 1.
                let next = Interval::from_i64((k + 1) * (k + 1), p);
                let next_term = a.mul(&next).neg().exp().mul(&next);
                let kp = Interval::from_rational(&Rational::from(((k + 2) * (k + 2), (k + 1) * (k + 1))), p);
                let r = a.mul(&Interval::from_i64(2 * k + 3, p)).neg().exp().mul(&kp);
                let one = Interval::one(p);
                let denom = one.sub(&r);
                let tail = next_term.div(&denom);
                let tail_hi = tail.hi().clone();
                k2sum = Interval::new(k2sum.lo().clone(), Float::with_val_round(p, k2sum.hi() + &tail_hi, Round::Up).0);
                // Σ_{j>k} q^{j²} ≤ Σ_{j>k} j² q^{j²}.
                th = Interval::new(
                    th.lo().clone(),
                    Float::with_val_round(p, th.hi() + Float::with_val_round(p, &tail_hi * 2u32, Round::Up).0, Round::Up).0,
                );
                break;
            }
            k += 1;
        }
        (round_to(&th, prec), round_to(&k2sum, prec))
    }

    /// Certified normaliser through Poisson summation: Z = √(2πσ²) · θ₃(0, e^{-2π²σ²}).
    pub fn normaliser_theta(&self, prec: u32) -> Interval {
        let p = prec + 16;
        let th = self.theta3_zero(p);
        let two_pi_s2 = Interval::pi(p).mul(&Interval::from_rational(&(Rational::from(2u32) * &self.sigma2), p));
        round_to(&two_pi_s2.sqrt().mul(&th), prec)
    }

    /// Certified pmf p(x).
    pub fn pmf(&self, x: i64, prec: u32) -> Interval {
        let p = prec + 16;
        let z = self.normaliser_theta(p);
        let e = Rational::from(x) * Rational::from(x) / (Rational::from(2u32) * &self.sigma2);
        let w = Interval::from_rational(&-e, p).exp();
        round_to(&w.div(&z), prec)
    }

    /// Certified upper tail P[X > t] for a real (rational) threshold t.
    pub fn tail_gt(&self, t: &Rational, prec: u32) -> Interval {
        self.tails_gt(std::slice::from_ref(t), prec).pop().expect("invariant: one threshold")
    }

    /// [`Self::tail_gt`] at several thresholds, the same intervals: one normaliser and one table of
    /// weights serve them all (the table's entries do not depend on its length, and each tail sums
    /// its own range of it in the same order).
    pub fn tails_gt(&self, ts: &[Rational], prec: u32) -> Vec<Interval> {
        let p = prec + 16;
        let z = self.normaliser_theta(p);
        // P[X ≥ m] for m ≥ 1, and for m ≤ 0 through P[X ≥ m] = 1 − P[X ≥ 1 − m] (symmetry)
        let ms: Vec<i64> = ts
            .iter()
            .map(|t| {
                Rational::from(t.floor_ref())
                    .numer()
                    .to_i64()
                    .expect("invariant: thresholds fit in i64 (the callers bound epsilon and the window)")
                    + 1
            })
            .collect();
        let kmax = ms.iter().map(|&m| self.tail_radius(if m <= 0 { 1 - m } else { m }, p)).max().unwrap_or(0);
        let table = GaussTable::new(&self.sigma2, kmax, p);
        ms.iter()
            .map(|&m| {
                if m <= 0 {
                    let upper = self.tail_ge_unnormalised(&table, 1 - m, p).div(&z);
                    round_to(&Interval::one(p).sub(&upper), prec)
                } else {
                    round_to(&self.tail_ge_unnormalised(&table, m, p).div(&z), prec)
                }
            })
            .collect()
    }

    /// P[X ≥ m] for every m = 1, …, K (entry m − 1), K = `self.radius(prec + 16) + 2`, with the normaliser
    /// Z: the sums of [`Self::tail_ge_unnormalised`] for all m at once, as suffix sums of one weight table
    /// (O(K) for the whole table where each tail alone is O(K)) with the same tail bound beyond K. For the
    /// privacy-loss law (`noise::dgauss_loss`), which asks for many thresholds.
    pub fn tails_ge_table(&self, prec: u32) -> (Vec<Interval>, Interval) {
        let p = prec + 16;
        let z = self.normaliser_theta(p);
        let k = self.radius(p) + 2;
        let t = GaussTable::new(&self.sigma2, k, p);
        let mut lo = Float::with_val(p, 0);
        let mut hi = gauss_tail_upper(&self.sigma2, k as u64 + 1, p);
        let mut out = vec![Interval::zero(prec); k];
        for y in (1..=k).rev() {
            lo = Float::with_val_round(p, &lo + &t.lo[y], Round::Down).0;
            hi = Float::with_val_round(p, &hi + &t.hi[y], Round::Up).0;
            out[y - 1] = round_to(&Interval::new(lo.clone(), hi.clone()).div(&z), prec);
        }
        (out, z)
    }

    /// The last weight summed by [`Self::tail_ge_unnormalised`] for Σ_{x ≥ m}.
    fn tail_radius(&self, m: i64, prec: u32) -> usize {
        self.radius(prec).max(m as usize + 2)
    }

    /// Σ_{x ≥ m} exp(-x²/(2σ²)) for m ≥ 1, certified.
    /// `t` is a table of the weights at `prec` reaching at least [`Self::tail_radius`].
    fn tail_ge_unnormalised(&self, t: &GaussTable, m: i64, prec: u32) -> Interval {
        assert!(m >= 1);
        let k = self.tail_radius(m, prec);
        let mut lo = Float::with_val(prec, 0);
        let mut hi = Float::with_val(prec, 0);
        for y in (m as usize..=k).rev() {
            lo = Float::with_val_round(prec, &lo + &t.lo[y], Round::Down).0;
            hi = Float::with_val_round(prec, &hi + &t.hi[y], Round::Up).0;
        }
        let tail = gauss_tail_upper(&self.sigma2, k as u64 + 1, prec);
        hi = Float::with_val_round(prec, &hi + &tail, Round::Up).0;
        Interval::new(lo, hi)
    }

    /// Certified partial first moment E[X·1{X ≥ m}] = Σ_{x ≥ m} x p(x), for any integer m.
    ///
    /// The terms x and −x cancel (p is even), so for m ≤ 0 the sum over m ≤ x ≤ −m vanishes and
    /// Σ_{x ≥ m} x p(x) = Σ_{x ≥ k} x p(x) with k = max(m, 1 − m) ≥ 1: a sum of positive terms.
    /// Terms y ≤ K are summed from the certified table; the rest is bounded by the integral
    /// Σ_{y > K} y e^{−y²/(2σ²)} ≤ ∫_K^∞ y e^{−y²/(2σ²)} dy = σ² e^{−K²/(2σ²)}, valid because
    /// y e^{−y²/(2σ²)} decreases for y ≥ σ and K ≥ σ.
    pub fn tail_first_moment(&self, m: i64, prec: u32) -> Interval {
        let p = prec + 16;
        let k = m.max(1 - m) as usize;
        let sigma_ceil = self.sigma2.to_f64().sqrt().ceil() as usize + 1;
        let kmax = self.radius(prec).max(k + 2).max(sigma_ceil);
        let t = GaussTable::new(&self.sigma2, kmax, p);
        let mut lo = Float::with_val(p, 0);
        let mut hi = Float::with_val(p, 0);
        for y in (k..=kmax).rev() {
            let yy = y as u32;
            lo = Float::with_val_round(p, &lo + Float::with_val_round(p, &t.lo[y] * yy, Round::Down).0, Round::Down).0;
            hi = Float::with_val_round(p, &hi + Float::with_val_round(p, &t.hi[y] * yy, Round::Up).0, Round::Up).0;
        }
        let kk = Rational::from(kmax as u64) * Rational::from(kmax as u64) / (Rational::from(2u32) * &self.sigma2);
        let tail = Interval::from_rational(&self.sigma2, p).mul(&Interval::from_rational(&-kk, p).exp());
        hi = Float::with_val_round(p, &hi + tail.hi(), Round::Up).0;
        let z = self.normaliser_theta(p);
        round_to(&Interval::new(lo, hi).div(&z), prec)
    }

    /// Certified variance for any σ² > 0: the direct sum where its truncation radius is small (σ² ≤ 1),
    /// the θ-series otherwise (its terms vanish at large σ², where the direct sum would need ~√σ² terms:
    /// σ² = 1e300 overflowed the radius).
    pub fn variance(&self, prec: u32) -> Interval {
        if self.sigma2 <= 1 {
            self.variance_direct(prec)
        } else {
            self.variance_theta(prec)
        }
    }

    /// Certified variance by direct summation Σ x² p(x), with a rigorous tail bound.
    pub fn variance_direct(&self, prec: u32) -> Interval {
        let p = prec + 16;
        let k = self.radius(p) + 4;
        let t = GaussTable::new(&self.sigma2, k, p);
        let mut lo = Float::with_val(p, 0);
        let mut hi = Float::with_val(p, 0);
        for y in (1..=k).rev() {
            let y2 = (y * y) as u64;
            lo = Float::with_val_round(p, &lo + Float::with_val_round(p, &t.lo[y] * y2, Round::Down).0, Round::Down).0;
            hi = Float::with_val_round(p, &hi + Float::with_val_round(p, &t.hi[y] * y2, Round::Up).0, Round::Up).0;
        }
        // Tail Σ_{y>k} y² g(y): ratio ((y+1)/y)² exp(-(2y+1)/(2σ²)) ≤ ((k+2)/(k+1))² exp(-(2k+3)/(2σ²)).
        let kk = (k + 1) as i64;
        let first = Interval::from_rational(&-(Rational::from(kk * kk) / (Rational::from(2u32) * &self.sigma2)), p)
            .exp()
            .mul(&Interval::from_i64(kk * kk, p));
        let r = Interval::from_rational(&-(Rational::from(2 * kk + 1) / (Rational::from(2u32) * &self.sigma2)), p)
            .exp()
            .mul(&Interval::from_rational(&Rational::from(((kk + 1) * (kk + 1), kk * kk)), p));
        assert!(*r.hi() < 1, "variance tail ratio not below one");
        let tail = first.div(&Interval::one(p).sub(&r));
        hi = Float::with_val_round(p, &hi + tail.hi(), Round::Up).0;
        let two_sum = Interval::new(lo, hi).mul(&Interval::from_i64(2, p));
        let z = self.normaliser_direct(p);
        round_to(&two_sum.div(&z), prec)
    }

    /// Certified σ² − Var(N_Z(0,σ²)) = 8π²σ⁴ Σ_{k≥1} k² q^{k²} / θ₃(0,q), q = e^{-2π²σ²}
    /// (positive: the discrete Gaussian has variance strictly below σ²).
    pub fn variance_deficit(&self, prec: u32) -> Interval {
        let p = prec + 16;
        let (th, k2) = self.theta_sums(p);
        let pi = Interval::pi(p);
        let s2 = Interval::from_rational(&self.sigma2, p);
        let c = pi.mul(&pi).mul(&s2).mul(&s2).mul(&Interval::from_i64(8, p));
        round_to(&c.mul(&k2).div(&th), prec)
    }

    /// Certified variance through the theta series: σ² − deficit.
    pub fn variance_theta(&self, prec: u32) -> Interval {
        let p = prec + 16;
        let s2 = Interval::from_rational(&self.sigma2, p);
        round_to(&s2.sub(&self.variance_deficit(p)), prec)
    }

    /// Characteristic function φ(τ) = E e^{iτX} (real, X symmetric), through Poisson summation:
    /// φ(τ) = e^{-σ²τ²/2} θ₃(iπσ²τ, q) / θ₃(0, q) = Σ_k e^{-σ²(τ-2πk)²/2} / Σ_k e^{-2π²σ²k²}
    /// ([SSW24, eq. A.3] with n = 1). Certified for exact τ.
    pub fn charfn(&self, tau: &Float, prec: u32) -> Interval {
        let p = prec + 16;
        let pi = Interval::pi(p);
        let two_pi = pi.mul(&Interval::from_i64(2, p));
        let tauf = Interval::from_float(tau, p);
        let k0 = (tau.to_f64() / (2.0 * std::f64::consts::PI)).round() as i64;
        let half_s2 = Interval::from_rational(&(Rational::from(&self.sigma2) / 2u32), p);
        let target = Float::with_val(p, Float::with_val(p, 2).pow(-((prec + GUARD_BITS) as i32)));
        let term = |k: i64| -> Interval {
            let d = tauf.sub(&two_pi.mul(&Interval::from_i64(k, p)));
            let d2 = sq(&d);
            half_s2.mul(&d2).neg().exp()
        };
        let mut num = term(k0);
        let mut j = 1i64;
        loop {
            let a = term(k0 + j);
            let b = term(k0 - j);
            num = num.add(&a).add(&b);
            if *a.hi() < target && *b.hi() < target && j >= 2 {
                // Beyond the centre, consecutive terms have ratio e^{-σ²(4π|d| + 4π²)/2} ≤ r := e^{-2π²σ²},
                // so the rest on each side is at most (last term)·r/(1 − r).
                let r = pi.mul(&pi).mul(&half_s2).mul(&Interval::from_i64(4, p)).neg().exp();
                let factor = r.div(&Interval::one(p).sub(&r));
                let last = Interval::new(Float::with_val(p, 0), Float::with_val_round(p, a.hi() + b.hi(), Round::Up).0);
                let extra = last.mul(&factor);
                num = Interval::new(num.lo().clone(), Float::with_val_round(p, num.hi() + extra.hi(), Round::Up).0);
                break;
            }
            j += 1;
        }
        let den = self.theta3_zero(p);
        round_to(&num.div(&den), prec)
    }

    /// Characteristic function of the standardised sum S_n = (X_1+…+X_n)/(√n σ) at t:
    /// f_{S_n}(t) = φ(t/(√n σ))^n (eq. A.3). Not certified in τ (τ = t/B_n is rounded once to `prec`).
    pub fn charfn_sum(&self, n: u32, t: &Float, prec: u32) -> Interval {
        let p = prec + 16;
        let bn = Float::with_val(p, &self.sigma2 * Rational::from(n)).sqrt();
        let tau = Float::with_val(p, t / &bn);
        self.charfn(&tau, p).powu_signed(n, prec)
    }
}

fn sq(d: &Interval) -> Interval {
    let p = d.prec();
    if *d.lo() >= 0 {
        d.mul(d)
    } else if *d.hi() <= 0 {
        d.neg().mul(&d.neg())
    } else {
        let m = if -d.lo().clone() > *d.hi() { -d.lo().clone() } else { d.hi().clone() };
        Interval::new(Float::with_val(p, 0), Float::with_val_round(p, &m * &m, Round::Up).0)
    }
}

/// Round an interval outward to a lower precision.
pub fn round_to(x: &Interval, prec: u32) -> Interval {
    Interval::new(Float::with_val_round(prec, x.lo(), Round::Down).0, Float::with_val_round(prec, x.hi(), Round::Up).0)
}

trait PowuSigned {
    fn powu_signed(&self, n: u32, prec: u32) -> Interval;
}

impl PowuSigned for Interval {
    /// x^n for an interval that may be negative (φ can be negative for small σ²).
    fn powu_signed(&self, n: u32, prec: u32) -> Interval {
        if *self.lo() >= 0 {
            round_to(&self.powu(n), prec)
        } else if *self.hi() <= 0 {
            let a = self.neg().powu(n);
            round_to(&if n.is_multiple_of(2) { a } else { a.neg() }, prec)
        } else {
            let m = self.neg().hull(self);
            let mag = Interval::new(Float::with_val(m.prec(), 0), m.hi().clone()).powu(n);
            let lo = if n.is_multiple_of(2) { Float::with_val(prec, 0) } else { -mag.hi().clone() };
            round_to(&Interval::new(lo, mag.into_parts().1), prec)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    fn dg(s: &str) -> DiscreteGaussian {
        DiscreteGaussian::new(parse_rational(s).unwrap()).unwrap()
    }

    /// E[X·1{X ≥ m}] against mpmath direct summation over |x| ≤ 2000 at 40 digits
    /// (scripts/reference/dgauss_tail_moment.{py,txt}, an independent script; values to 20 digits).
    #[test]
    fn tail_first_moment_matches_mpmath() {
        let cases: [(&str, i64, &str); 6] = [
            ("625", 94, "0.009143348844941979473"),
            ("625", 0, "9.9722270960296013217"),
            ("625", 1, "9.9722270960296013217"),
            ("625", -5, "9.7357116473591919801"),
            ("0.5", 1, "0.22840623984923324388"),
            ("0.5", -3, "2.5397759832763135318e-7"),
        ];
        for (s2, m, want) in cases {
            let got = dg(s2).tail_first_moment(m, 128);
            let w = Float::with_val(128, Float::parse(want).unwrap());
            // the reference has 20 significant digits
            let tol = Float::with_val(128, &w * Float::with_val(128, 1e-19));
            assert!(*got.lo() <= Float::with_val(128, &w + &tol) && *got.hi() >= Float::with_val(128, &w - &tol), "s2 {s2} m {m}: {got:?}");
            assert!(got.width() < Float::with_val(128, &w * Float::with_val(128, 1e-30)), "s2 {s2} m {m}: too wide");
        }
    }

    #[test]
    fn normalisers_agree_direct_vs_theta() {
        for s in ["0.25", "1", "2", "4.25", "5", "68.49", "456.62"] {
            let d = dg(s);
            let a = d.normaliser_direct(256);
            let b = d.normaliser_theta(256);
            assert!(a.overlaps(&b), "σ²={s}: direct {a} vs theta {b}");
            let w = Float::with_val(256, a.width()) / a.mid();
            assert!(w < 1e-70, "σ²={s}: relative width {w}");
        }
    }

    #[test]
    fn variance_routes_agree_and_are_below_sigma2() {
        for s in ["1", "2", "4.25", "5", "10"] {
            let d = dg(s);
            let a = d.variance_direct(256);
            let b = d.variance_theta(256);
            assert!(a.overlaps(&b), "σ²={s}: {a} vs {b}");
            // The deficit at σ² = 10 is ~1e-82, below 256-bit resolution: check at 512 bits.
            let s2 = Float::with_val(512, &d.sigma2);
            assert!(*d.variance_theta(512).hi() < s2, "σ²={s}: variance not below σ²");
            assert!(*d.variance_deficit(256).lo() > 0);
        }
    }

    /// [CAK24]: "N_Z lowers the variance by less than 3e-7 at σ² = 1 and less
    /// than 3e-15 at σ² = 2".
    #[test]
    fn spines_paper_variance_statements() {
        let d1 = dg("1").variance_deficit(128);
        assert!(*d1.hi() < 3e-7 && *d1.lo() > 1e-7, "σ²=1 deficit {d1}");
        let d2 = dg("2").variance_deficit(128);
        assert!(*d2.hi() < 3e-15 && *d2.lo() > 1e-15, "σ²=2 deficit {d2}");
    }

    /// [SSW24, Fact A.3] bounds at the end points of its ranges.
    #[test]
    fn fact_a3_bounds() {
        for (s, bound) in [("4.25", 5.8e-34), ("5", 5.8e-34), ("5.0001", 2.8e-40), ("10", 2.8e-40), ("10.0001", 1.5e-82)] {
            let d = dg(s).variance_deficit(256);
            assert!(*d.hi() < bound, "σ²={s}: deficit {d} ≥ {bound}");
            assert!(*d.lo() > 0);
        }
    }

    #[test]
    fn charfn_matches_direct_cosine_sum() {
        let d = dg("2.5");
        let z = d.normaliser_direct(200);
        for tau in [0.0f64, 0.3, 1.0, 3.0] {
            let tf = Float::with_val(200, tau);
            let c = d.charfn(&tf, 200);
            let mut s = Float::with_val(300, 0);
            for x in -200i64..=200 {
                let w = Float::with_val(300, -(Float::with_val(300, x * x) / 5u32)).exp();
                s += w * Float::with_val(300, &tf * x).cos();
            }
            let direct = s / Float::with_val(300, z.mid());
            let err = Float::with_val(300, &direct - c.mid()).abs();
            assert!(err < 1e-55, "τ={tau}: {c} vs {direct}");
        }
        let one = d.charfn(&Float::with_val(200, 0), 200);
        assert!(one.contains(&Float::with_val(200, 1)));
    }

    #[test]
    fn tails_and_pmf_are_consistent() {
        let d = dg("3.5");
        let t0 = d.tail_gt(&Rational::from(0), 200); // P[X > 0] = (1 − p(0))/2
        let p0 = d.pmf(0, 200);
        let half = Interval::one(200).sub(&p0).mul(&Interval::from_rational(&Rational::from((1, 2)), 200));
        assert!(t0.overlaps(&half));
        let tm = d.tail_gt(&Rational::from((-3, 2)), 200); // P[X > -1.5] = P[X ≥ -1]
        let alt = Interval::one(200).sub(&d.tail_gt(&Rational::from(1), 200)); // 1 − P[X ≥ 2]
        assert!(tm.overlaps(&alt));
    }
}
