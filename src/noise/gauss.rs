//! The Gaussian mechanism: q(D) + N(0, σ²) for a real-valued query of sensitivity μ (any positive
//! rational), and the closed forms of Gaussian privacy-loss laws.
//!
//! With A = N(μ, σ²), B = N(0, σ²) (the `Remove` pair; `Add` is its mirror image, the law is symmetric)
//! the privacy loss ln(dA/dB)(x) = (2μx − μ²)/(2σ²) is itself Gaussian: L ~ N(η, 2η) under A and
//! N(−η, 2η) under B with η = μ²/(2σ²) = ρ, the mechanism's zCDP parameter [BS16, Prop 1.6]. Losses of
//! independent Gaussian mechanisms add, so any composition of them has a Gaussian loss law with
//! η = Σ ηᵢ, and [BW18, Thm 8] with m = √(2η)
//!
//!   δ(ε) = Φ(m/2 − ε/m) − e^ε Φ(−m/2 − ε/m),                       (1)
//!
//! the trade-off function f(α) = Φ(Φ⁻¹(1 − α) − m) [DRS22, eq. (6)]. Every value is certified:
//! Φ from MPFR's correctly rounded erfc (`num::special`), ε(δ) by certified bisection.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::num::special::{normal_cdf, normal_sf};
use crate::num::Interval;
use rug::Rational;

/// The Gaussian mechanism N(0, σ²) on a query of sensitivity μ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gaussian {
    sigma2: Rational,
    mu: Rational,
    /// this is the replace-one pair of the mechanism (N(μ, σ²) against N(−μ, σ²): the shift 2μ, kept as
    /// μ here doubled), one copy per query under replace (`docs/neighbors.md`)
    replace_pair: bool,
}

impl Gaussian {
    /// σ² > 0 (the variance, not the standard deviation) and μ > 0.
    pub fn new(sigma2: Rational, mu: Rational) -> Fallible<Gaussian> {
        if sigma2 <= 0 {
            return crate::fallible!(Input, "the Gaussian variance sigma2 must be positive, got {sigma2}");
        }
        if mu <= 0 {
            return crate::fallible!(Input, "the sensitivity must be positive, got {mu}");
        }
        Ok(Gaussian { sigma2, mu, replace_pair: false })
    }

    /// From `--mech gauss:sigma2=S[,mu=M]` (or `sigma=S`, the standard deviation; `mu`, also
    /// `sensitivity`, default 1).
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<Gaussian> {
        let sigma2 = p.variance("sigma2 (the noise variance)")?;
        let mu = p.positive_any(&["mu", "sensitivity"])?.map(|(_, x)| x).unwrap_or_else(|| Rational::from(1));
        Gaussian::new(sigma2, mu)
    }

    pub fn sigma2(&self) -> &Rational {
        &self.sigma2
    }

    pub fn mu(&self) -> &Rational {
        &self.mu
    }

    /// η = μ²/(2σ²).
    pub fn eta(&self) -> Rational {
        Rational::from(&self.mu * &self.mu) / (Rational::from(2) * self.sigma2.clone())
    }

    /// (ℓ ∓ η)/√(2η): the standardised loss under A (sign −1) and B (sign +1).
    fn z(&self, l: &Rational, sign: i32, prec: u32) -> Interval {
        let eta = self.eta();
        let num = Interval::from_rational(&(l.clone() + Rational::from(sign) * eta.clone()), prec);
        num.div(&Interval::from_rational(&(eta * 2u32), prec).sqrt())
    }
}

impl LossLaw for Gaussian {
    fn spec(&self) -> String {
        let fr = crate::num::format::fmt_rational;
        if self.replace_pair {
            // (μ is stored doubled: the record's contribution within μ/2 of none, the shift μ)
            let half = Rational::from(&self.mu / 2u32);
            return format!("gauss:sigma2={},mu={} (replace-one pair: shift {})", fr(&self.sigma2), fr(&half), fr(&self.mu));
        }
        format!("gauss:sigma2={},mu={}", fr(&self.sigma2), fr(&self.mu))
    }

    /// Under replace-one a record's contribution, within μ of none, is replaced by another: the released
    /// value moves by up to 2μ along one direction, the pair N(μ, σ²) against N(−μ, σ²) — dp_accounting's
    /// REPLACE pair, with or without Poisson subsampling (`docs/neighbors.md`).
    fn under(&self, neighbors: crate::noise::neighbors::Neighbors) -> Option<Fallible<std::sync::Arc<dyn LossLaw>>> {
        if neighbors != crate::noise::neighbors::Neighbors::Replace || self.replace_pair {
            return None;
        }
        let pair = Gaussian { sigma2: self.sigma2.clone(), mu: Rational::from(&self.mu * 2u32), replace_pair: true };
        Some(Ok(std::sync::Arc::new(pair)))
    }

    fn shifts(&self, neighbors: crate::noise::neighbors::Neighbors) -> Fallible<u64> {
        Ok(if self.replace_pair { 1 } else { neighbors.shifts_per_query() })
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let za = self.z(l, -1, prec);
        let zb = self.z(l, 1, prec);
        Ok(Split { a_below: normal_cdf(&za), a_above: normal_sf(&za), b_below: normal_cdf(&zb), b_above: normal_sf(&zb) })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        LossRange { lo: End::Open, hi: End::Open }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let eta = self.eta().to_f64();
        let z = normal_quantile_f64(ln_p);
        if upper {
            eta + (2.0 * eta).sqrt() * z
        } else {
            eta - (2.0 * eta).sqrt() * z
        }
    }

    fn rho(&self) -> Option<Rational> {
        Some(self.eta())
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<std::sync::Arc<dyn LossLaw>>> {
        let pair = self.replace_pair;
        Some(
            Gaussian::new(self.sigma2.clone() * c.clone(), self.mu.clone())
                .map(|g| std::sync::Arc::new(Gaussian { replace_pair: pair, ..g }) as std::sync::Arc<dyn LossLaw>),
        )
    }

    fn gaussian_eta(&self) -> Option<Rational> {
        Some(self.eta())
    }

    fn replace_subsampled(&self, q: &Rational, sampled: std::sync::Arc<dyn LossLaw>) -> Option<Fallible<std::sync::Arc<dyn LossLaw>>> {
        Some(
            crate::noise::poisson_replace::PoissonReplaceGaussian::of(self.eta(), q.clone(), sampled)
                .map(|l| std::sync::Arc::new(l) as std::sync::Arc<dyn LossLaw>),
        )
    }
}

/// z with P[N(0, 1) ≥ z] ≈ e^{ln_p} (f64, for planning): the asymptotic inverse of the Mills ratio,
/// refined by Newton steps on ln Φ̄.
pub fn normal_quantile_f64(ln_p: f64) -> f64 {
    if ln_p >= -std::f64::consts::LN_2 {
        return 0.0;
    }
    let ln_sf = |z: f64| {
        // ln Φ̄(z) for z ≥ 0: erfc-free asymptotic with a continued-fraction correction (enough for planning)
        if z < 5.0 {
            (0.5 * libm_erfc(z / std::f64::consts::SQRT_2)).ln()
        } else {
            -z * z / 2.0 - z.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln() + (1.0 - 1.0 / (z * z + 2.0)).ln()
        }
    };
    let mut z = (-2.0 * ln_p).sqrt();
    for _ in 0..50 {
        let f = ln_sf(z) - ln_p;
        // d/dz ln Φ̄(z) ≈ −(z + 1/z) for large z, −φ/Φ̄ in general; −max(z, 0.8) is a safe slope
        let slope = -(z.max(0.8) + 1.0 / z.max(0.8));
        let step = f / slope;
        z -= step;
        if step.abs() < 1e-12 {
            break;
        }
    }
    z
}

/// erfc in f64 (planning only): rug at 64 bits, no libm dependency.
fn libm_erfc(x: f64) -> f64 {
    rug::Float::with_val(64, x).erfc().to_f64()
}

/// δ(ε) of a Gaussian loss law with mean η (eq. 1), certified at `prec` bits; any real ε.
pub fn delta(eta: &Rational, eps: &Rational, prec: u32) -> Interval {
    let p = prec + 32;
    let m = Interval::from_rational(&(eta.clone() * 2u32), p).sqrt();
    let e = Interval::from_rational(eps, p);
    let half_m = m.mul_rational(&Rational::from((1, 2)));
    let e_over_m = e.div(&m);
    let first = normal_cdf(&half_m.sub(&e_over_m));
    let second = e.exp().mul(&normal_cdf(&half_m.neg().sub(&e_over_m)));
    let d = first.sub(&second);
    clamp_prob(d, prec)
}

/// f(α) = Φ(Φ⁻¹(1 − α) − m) of a Gaussian loss law with mean η, certified; α in [0, 1].
pub fn tradeoff(eta: &Rational, alpha: &Rational, prec: u32) -> Fallible<Interval> {
    if *alpha < 0 || *alpha > 1 {
        return crate::fallible!(Input, "alpha must be in [0, 1], got {alpha}");
    }
    let p = prec + 32;
    if *alpha == 0 {
        return Ok(Interval::one(prec));
    }
    if *alpha == 1 {
        return Ok(Interval::zero(prec));
    }
    let m = Interval::from_rational(&(eta.clone() * 2u32), p).sqrt();
    // z = Φ̄⁻¹(α) enclosed: Φ̄ is decreasing, bisect on both ends
    let z = normal_sf_inverse(alpha, p)?;
    Ok(clamp_prob(normal_cdf(&z.sub(&m)), prec))
}

/// The z with Φ̄(z) = α, enclosed by bisection on exact dyadic points (α in (0, 1)).
pub fn normal_sf_inverse(alpha: &Rational, prec: u32) -> Fallible<Interval> {
    let a = Interval::from_rational(alpha, prec);
    let guess = normal_quantile_f64(alpha.to_f64().ln());
    let guess = if alpha.to_f64() > 0.5 { -normal_quantile_f64((1.0 - alpha.to_f64()).ln()) } else { guess };
    let at = |x: &Rational| normal_sf(&Interval::from_rational(x, prec));
    // [lo, hi] with Φ̄(lo) > α > Φ̄(hi)
    let mut w = 1.0f64;
    let (mut lo, mut hi);
    loop {
        lo = Rational::from_f64(guess - w).ok_or_else(|| crate::err!(Internal, "normal quantile out of range"))?;
        hi = Rational::from_f64(guess + w).ok_or_else(|| crate::err!(Internal, "normal quantile out of range"))?;
        if at(&lo).lo() > a.hi() && at(&hi).hi() < a.lo() {
            break;
        }
        w *= 2.0;
        if w > 1e6 {
            return crate::fallible!(Declined, "alpha {alpha} is beyond the reach of {prec}-bit arithmetic");
        }
    }
    // bisection while the midpoint is decided; at an undecided midpoint u (Φ̄(u) encloses α: the root is
    // near u, e.g. u = 0 exactly at α = 1/2) each end is bisected on its own side of u, so that the
    // enclosure still shrinks to the width where Φ̄'s enclosures cannot tell the side
    let mut undecided: Option<Rational> = None;
    for _ in 0..2 * prec {
        let mid = Rational::from(&lo + &hi) / 2u32;
        let v = at(&mid);
        if v.lo() > a.hi() {
            lo = mid;
        } else if v.hi() < a.lo() {
            hi = mid;
        } else {
            undecided = Some(mid);
            break;
        }
    }
    if let Some(u) = undecided {
        // lo: Φ̄(lo) > α certain, raised toward u; hi: Φ̄(hi) < α certain, lowered toward u; a gap below
        // 2^-prec (relative to |u| + 1) is below what prec-bit enclosures resolve
        let tiny = (u.clone().abs() + 1u32) >> prec;
        let (mut l1, mut h0) = (u.clone(), u);
        while Rational::from(&l1 - &lo) > tiny {
            let mid = Rational::from(&lo + &l1) / 2u32;
            if at(&mid).lo() > a.hi() {
                lo = mid;
            } else {
                l1 = mid;
            }
        }
        while Rational::from(&hi - &h0) > tiny {
            let mid = Rational::from(&h0 + &hi) / 2u32;
            if at(&mid).hi() < a.lo() {
                hi = mid;
            } else {
                h0 = mid;
            }
        }
    }
    Ok(Interval::new(Interval::from_rational(&lo, prec).into_parts().0, Interval::from_rational(&hi, prec).into_parts().1))
}

/// A probability enclosure clipped to [0, 1] and rounded to `prec` bits (outward).
fn clamp_prob(v: Interval, prec: u32) -> Interval {
    let zero = rug::Float::with_val(prec, 0);
    let one = rug::Float::with_val(prec, 1);
    let lo = rug::Float::with_val_round(prec, v.lo(), rug::float::Round::Down).0.max(&zero).min(&one);
    let hi = rug::Float::with_val_round(prec, v.hi(), rug::float::Round::Up).0.min(&one).max(&zero);
    Interval::new(lo.min(&hi), hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// Contains `want` (a decimal string) up to a relative slack of 1e-30 (the references are mpmath
    /// integrals at 60 digits, good to far more than 30).
    fn holds(v: &Interval, want: &str) -> bool {
        let w = Float::with_val(256, Float::parse(want).unwrap());
        let slack = Float::with_val(256, &w * 1e-30f64).abs();
        v.widen(&slack).contains(&w)
    }

    /// δ(ε), ε(δ) and f(α) of single Gaussian mechanisms against scripts/reference/gaussian_closed_forms.py
    /// (mpmath: δ by numerical integration of E_A[(1 − e^{ε−L})₊] over the noise, ε by findroot on it,
    /// f(α) from the Neyman–Pearson test), none of which uses eq. (1).
    #[test]
    fn closed_forms_match_mpmath_integrals() {
        let p = 160;
        for (s2, mu, e, want) in [
            ("1", "1", "0", "0.38292492254802620727540922121667547976720435110916"),
            ("1", "1", "1", "0.126936737506643945800829624757766880415080650112"),
            ("4", "1", "0.5", "0.052440323287669661711896716266779731544262982598412"),
            ("0.25", "1", "3", "0.18381307654447215597010727020143692071534397015615"),
            ("100", "3", "0.2", "0.049791423380634752029379008397592741639657794510701"),
        ] {
            let g = Gaussian::new(q(s2), q(mu)).unwrap();
            let d = delta(&g.eta(), &q(e), p);
            assert!(holds(&d, want), "delta σ²={s2} μ={mu} ε={e}: {d} vs {want}");
            assert!(d.width().to_f64() < 1e-40, "{}", d.width());
        }
        for (s2, mu, a, want) in [
            ("1", "1", "0.05", "0.7404889771585559293516965237010599664807"),
            ("4", "1", "0.001", "0.9952044407908578260800080947710017257882"),
            // α = 1/2: the quantile is 0 exactly (the bisection's first midpoint cannot tell its side)
            ("9", "1", "0.5", "0.3694413401817636382727922820695735833283"),
            ("1", "1", "0.5", "0.1586552539314570514147674543679620775221"),
            ("0.01", "1", "0.5", "7.619853024160526065973343251599308363504e-24"),
        ] {
            let g = Gaussian::new(q(s2), q(mu)).unwrap();
            let f = tradeoff(&g.eta(), &q(a), p).unwrap();
            assert!(holds(&f, want), "tradeoff σ²={s2} μ={mu} α={a}: {f} vs {want}");
            assert!(f.width().to_f64() < 1e-30 * f.hi().to_f64(), "tradeoff σ²={s2} μ={mu} α={a}: {f} is wide");
        }
    }

    /// The split masses: the two sides add to 1, B[L ≥ ℓ] = E_A[e^{−L}; L ≥ ℓ] (checked through
    /// B[L ≥ ℓ] ≤ e^{−ℓ} A[L ≥ ℓ]), and A is stochastically larger than B.
    #[test]
    fn split_is_a_valid_pair() {
        let p = 128;
        let g = Gaussian::new(q("2"), q("3/2")).unwrap();
        assert_eq!(g.spec(), "gauss:sigma2=2,mu=3/2");
        for l in ["-3", "0", "1/3", "2", "40"] {
            let s = g.split(Direction::Remove, &q(l), p).unwrap();
            assert!(s.a_below.add(&s.a_above).contains(&Float::with_val(p, 1)));
            assert!(s.b_below.add(&s.b_above).contains(&Float::with_val(p, 1)));
            let bound = Interval::from_rational(&-q(l), p).exp().mul(&s.a_above);
            assert!(s.b_above.lo() <= bound.hi(), "ℓ={l}");
            assert!(s.a_above.hi() >= s.b_above.lo());
        }
        assert!(Gaussian::new(q("0"), q("1")).is_err());
        assert!(Gaussian::new(q("1"), q("-1")).is_err());
    }
}
