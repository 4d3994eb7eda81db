//! The discrete Laplace (two-sided geometric) law DLap(b): p(x) = e^{−|x|/b} / Z, x ∈ ℤ, with
//! Z = (1 + r)/(1 − r), r = e^{−1/b} ([HSM21, §3], the geometric
//! mechanism with parameter r; Ghosh–Roughgarden–Sundararajan 2009). Every quantity is a certified
//! [`Interval`] from closed forms:
//!
//! * P[X = x] = r^{|x|} (1 − r)/(1 + r);
//! * P[X ≥ m] = r^m / (1 + r) for m ≥ 1 (geometric series), and P[X ≤ −m] the same by symmetry.

use crate::error::Fallible;
use crate::fallible;
use crate::num::Interval;
use rug::Rational;

/// DLap(b) with scale b an exact positive rational.
#[derive(Clone, Debug)]
pub struct DiscreteLaplace {
    pub scale: Rational,
}

impl DiscreteLaplace {
    pub fn new(scale: Rational) -> Fallible<Self> {
        if scale <= 0 {
            return fallible!(Input, "the discrete Laplace scale must be positive, got {scale}");
        }
        Ok(DiscreteLaplace { scale })
    }

    /// r^k = e^{−k/b}, enclosed.
    fn r_pow(&self, k: u64, prec: u32) -> Interval {
        Interval::from_rational(&(-Rational::from(k) / self.scale.clone()), prec).exp()
    }

    /// P[X = x].
    pub fn pmf(&self, x: i64, prec: u32) -> Interval {
        let r = self.r_pow(1, prec);
        let one = Interval::one(prec);
        self.r_pow(x.unsigned_abs(), prec).mul(&one.sub(&r)).div(&one.add(&r))
    }

    /// P[X ≥ m] for any integer m.
    pub fn tail_ge(&self, m: i64, prec: u32) -> Interval {
        let one = Interval::one(prec);
        let r = self.r_pow(1, prec);
        if m >= 1 {
            self.r_pow(m as u64, prec).div(&one.add(&r))
        } else {
            // P[X ≥ m] = 1 − P[X ≤ m − 1] = 1 − P[X ≥ 1 − m] for m ≤ 0
            one.sub(&self.r_pow((1 - m) as u64, prec).div(&one.add(&r)))
        }
    }

    /// P[X ≤ m] (= P[X ≥ −m]).
    pub fn cdf(&self, m: i64, prec: u32) -> Interval {
        self.tail_ge(-m, prec)
    }

    /// One exact sample: P[Y = y] = (1 − e^{−1/b})/(1 + e^{−1/b}) · e^{−|y|/b}, b = t/s in lowest terms
    /// ([`crate::noise::sampler::discrete_laplace_ts`], [CKS20, Algorithm 2]). The geometric mechanism with
    /// parameter ε uses b = 1/ε (SafeTab: Pr[y] ∝ e^{−ε|y|}).
    pub fn sample<R: rand_chacha::rand_core::RngCore>(&self, rng: &mut R) -> i64 {
        crate::noise::sampler::discrete_laplace_ts(rng, self.scale.numer(), self.scale.denom())
            .to_i64()
            .expect("invariant: samples fit in i64 (the scale is at most 1e15, checked at input)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    /// The closed forms against direct sums of the pmf written out from its definition (e^{−|x|/b}/Z with
    /// Z summed directly).
    #[test]
    fn closed_forms_match_direct_sums() {
        let p = 128;
        for b in ["1/2", "2", "7/3"] {
            let d = DiscreteLaplace::new(crate::num::parse_rational(b).unwrap()).unwrap();
            let bf = crate::num::parse_rational(b).unwrap().to_f64();
            let w = |x: i64| (-(x.abs() as f64) / bf).exp();
            let z: f64 = (-4000..=4000).map(w).sum();
            for x in [-3i64, 0, 1, 5] {
                assert!((d.pmf(x, p).to_f64() - w(x) / z).abs() < 1e-15);
            }
            for m in [-4i64, -1, 0, 1, 2, 9] {
                let direct: f64 = (m..=4000).map(w).sum::<f64>() / z;
                assert!((d.tail_ge(m, p).to_f64() - direct).abs() < 1e-15, "b={b} m={m}");
                let cdf: f64 = (-4000..=m).map(w).sum::<f64>() / z;
                assert!((d.cdf(m, p).to_f64() - cdf).abs() < 1e-15);
            }
            // total mass: P[X ≥ −∞] pieces add to 1
            let total = d.tail_ge(1, p).add(&d.cdf(0, p));
            assert!(total.contains(&Float::with_val(p, 1)));
        }
    }
}
