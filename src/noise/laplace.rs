//! The (continuous) Laplace mechanism: f(D) + Lap(b), pdf e^{−|x|/b}/(2b), on a query of sensitivity Δ.
//!
//! Its dominating pair is A = Lap(0, b), B = Lap(Δ, b) (the other direction is the mirror image x ↦ Δ − x,
//! so the law is symmetric). With ε₀ = Δ/b the privacy loss L(x) = (|x − Δ| − |x|)/b is
//!
//!   ε₀ on x ≤ 0 (an atom: A-mass ½, B-mass ½e^{−ε₀}),   (Δ − 2x)/b on 0 < x < Δ,
//!   −ε₀ on x ≥ Δ (an atom: A-mass ½e^{−ε₀}, B-mass ½),
//!
//! so that for −ε₀ < ℓ ≤ ε₀ (L ≥ ℓ ⟺ x ≤ (Δ − bℓ)/2) [DRS22, Ex. 2.9 and §2.3]:
//!
//!   A[L < ℓ] = ½ e^{−(ε₀ − ℓ)/2},   B[L ≥ ℓ] = ½ e^{−(ε₀ + ℓ)/2},                            (1)
//!
//! each the small side (at most ½), the other side its complement. One release is ε₀-DP (pure), hence
//! ε₀²/2-zCDP [BS16, Prop. 1.4].

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::num::Interval;
use rug::Rational;
use std::sync::Arc;

/// The Laplace mechanism with scale b and sensitivity Δ (both positive, exact).
#[derive(Clone, Debug)]
pub struct Laplace {
    scale: Rational,
    mu: Rational,
    /// this is the replace-one pair of the mechanism (Lap(−Δ, b) against Lap(Δ, b): the shift 2Δ, kept as
    /// Δ here doubled), one copy per query under replace (`docs/neighbors.md`)
    replace_pair: bool,
}

impl Laplace {
    pub fn new(scale: Rational, mu: Rational) -> Fallible<Laplace> {
        if scale <= 0 {
            return crate::fallible!(Input, "the Laplace scale must be positive, got {scale}");
        }
        if mu <= 0 {
            return crate::fallible!(Input, "the sensitivity must be positive, got {mu}");
        }
        Ok(Laplace { scale, mu, replace_pair: false })
    }

    /// `laplace:scale=B[,mu=M]` (also `sensitivity=`), or `epsilon=E` for scale Δ/E.
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<Laplace> {
        let mu = p.positive_any(&["mu", "sensitivity"])?.map(|(_, x)| x).unwrap_or_else(|| Rational::from(1));
        let scale = match p.positive_any(&["scale", "epsilon"])? {
            Some((k, x)) if k == "epsilon" => mu.clone() / x,
            Some((_, x)) => x,
            None => return crate::fallible!(Input, "mechanism '{}': missing scale (or epsilon)", p.spec()),
        };
        Laplace::new(scale, mu)
    }

    /// ε₀ = Δ/b.
    pub fn eps0(&self) -> Rational {
        self.mu.clone() / self.scale.clone()
    }
}

impl LossLaw for Laplace {
    fn spec(&self) -> String {
        let fr = crate::num::format::fmt_rational;
        if self.replace_pair {
            let half = Rational::from(&self.mu / 2u32);
            return format!("laplace:scale={},mu={} (replace-one pair: shift {})", fr(&self.scale), fr(&half), fr(&self.mu));
        }
        format!("laplace:scale={},mu={}", fr(&self.scale), fr(&self.mu))
    }

    /// Under replace-one the released value moves by up to 2Δ along one direction (a record's
    /// contribution within Δ of none, replaced): the pair Lap(−Δ, b) against Lap(Δ, b), as the
    /// Poisson-subsampled pair under replace (`docs/neighbors.md`).
    fn under(&self, neighbors: crate::noise::neighbors::Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        if neighbors != crate::noise::neighbors::Neighbors::Replace || self.replace_pair {
            return None;
        }
        Some(Ok(Arc::new(Laplace { scale: self.scale.clone(), mu: Rational::from(&self.mu * 2u32), replace_pair: true })))
    }

    fn shifts(&self, neighbors: crate::noise::neighbors::Neighbors) -> Fallible<u64> {
        Ok(if self.replace_pair { 1 } else { neighbors.shifts_per_query() })
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let e0 = self.eps0();
        let (zero, one) = (Interval::zero(prec), Interval::one(prec));
        if *l <= -e0.clone() {
            // every output, the atom at −ε₀ included, is at or above ℓ
            return Ok(Split { a_below: zero.clone(), a_above: one.clone(), b_below: zero, b_above: one });
        }
        if *l > e0 {
            return Ok(Split { a_below: one.clone(), a_above: zero.clone(), b_below: one, b_above: zero });
        }
        // (1)
        let half = Rational::from((1, 2));
        let a_below = Interval::from_rational(&((l.clone() - e0.clone()) / 2u32), prec).exp().mul_rational(&half);
        let b_above = Interval::from_rational(&(-(e0 + l.clone()) / 2u32), prec).exp().mul_rational(&half);
        Ok(Split { a_above: one.sub(&a_below), a_below, b_below: one.sub(&b_above), b_above })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        let e0 = self.eps0();
        LossRange { lo: End::Atom(Interval::from_rational(&-e0.clone(), 128)), hi: End::Atom(Interval::from_rational(&e0, 128)) }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let e0 = self.eps0().to_f64();
        let l = if upper {
            // A[L ≥ ℓ] = 1 − ½e^{−(ε₀ − ℓ)/2} = p (the atom at ε₀ holds ½)
            let p = ln_p.exp();
            if p <= 0.5 {
                e0
            } else {
                e0 + 2.0 * (2.0 * (1.0 - p)).ln()
            }
        } else {
            // A[L < ℓ] = ½e^{−(ε₀ − ℓ)/2} = p
            e0 + 2.0 * (std::f64::consts::LN_2 + ln_p)
        };
        if l.is_nan() {
            e0
        } else {
            l.clamp(-e0, e0)
        }
    }

    fn rho(&self) -> Option<Rational> {
        let e = self.eps0();
        Some(Rational::from(&e * &e) / 2u32)
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        Some(self.eps0())
    }

    fn laplace_eps0(&self) -> Option<Rational> {
        Some(self.eps0())
    }

    /// The closed form of M(s) = E_A[e^{sL}] on vertical lines (`noise::mgf`, [Mir17, Prop. 6]).
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        Some(crate::noise::mgf::Mgf::Laplace { eps0: self.eps0() })
    }

    /// From the loss law above (atoms ½ at ε₀ and ½e^{−ε₀} at −ε₀, density ¼e^{−(ε₀ − ℓ)/2} between):
    /// E_A[e^{(α−1)L}] = (α/(2α − 1)) e^{(α−1)ε₀} + ((α − 1)/(2α − 1)) e^{−αε₀}, Mironov's closed form
    /// [Mir17, Prop. 6 / Table II] with 1/λ = ε₀; taken as ε₀ + ln(α/(2α − 1) + ((α − 1)/(2α − 1))
    /// e^{−(2α−1)ε₀})/(α − 1), which neither overflows at large α nor cancels.
    fn renyi(&self, _dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        let p = prec + 16;
        let (a, e0) = (Interval::from_rational(alpha, p), Interval::from_rational(&self.eps0(), p));
        let am1 = Interval::from_rational(&(alpha.clone() - 1u32), p);
        let den = a.add(&am1);
        let inner = a.div(&den).add(&am1.div(&den).mul(&den.mul(&e0).neg().exp()));
        Some(Ok(crate::noise::dgauss::round_to(&e0.add(&inner.ln().div(&am1)), prec)))
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        let pair = self.replace_pair;
        Some(
            Laplace::new(self.scale.clone() * c.clone(), self.mu.clone())
                .map(|l| Arc::new(Laplace { replace_pair: pair, ..l }) as Arc<dyn LossLaw>),
        )
    }

    fn replace_subsampled(&self, q: &Rational, sampled: Arc<dyn LossLaw>) -> Option<Fallible<Arc<dyn LossLaw>>> {
        // at q = 1 no record is left out: the pair is the mechanism with sensitivity 2Δ
        let doubled = |s: &Self| -> Fallible<Option<Arc<dyn LossLaw>>> {
            Ok(if *q == 1 { Some(Arc::new(Laplace::new(s.scale.clone(), s.mu.clone() * 2u32)?)) } else { None })
        };
        Some(doubled(self).and_then(|d| {
            crate::noise::poisson_replace_laplace::PoissonReplaceLaplace::new(self.scale.clone(), self.mu.clone(), q.clone(), sampled, d)
                .map(|l| Arc::new(l) as Arc<dyn LossLaw>)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// (1) against the Laplace CDF F(x) = ½e^{x/b} (x ≤ 0), 1 − ½e^{−x/b} (x ≥ 0) evaluated by hand at
    /// b = 2, Δ = 1 (ε₀ = 1/2): ℓ = 0 ⟺ x ≤ 1/2: A[L ≥ 0] = F(1/2) = 1 − ½e^{−1/4}, B[L ≥ 0] = F(−1/2) =
    /// ½e^{−1/4}; the atoms at ±ε₀ are on the upper side.
    #[test]
    fn split_is_the_laplace_cdf_at_the_crossing_point() {
        let lap = Laplace::new(q("2"), q("1")).unwrap();
        let s = lap.split(Direction::Remove, &q("0"), 128).unwrap();
        let e = (-0.25f64).exp() / 2.0;
        assert!((s.a_below.to_f64() - e).abs() < 1e-15 && (s.b_above.to_f64() - e).abs() < 1e-15);
        assert!((s.a_above.to_f64() - (1.0 - e)).abs() < 1e-15);
        // at ℓ = ε₀: A[L ≥ ε₀] = A[x ≤ 0] = ½, B[L ≥ ε₀] = ½e^{−ε₀}
        let top = lap.split(Direction::Remove, &q("1/2"), 128).unwrap();
        assert!((top.a_above.to_f64() - 0.5).abs() < 1e-15 && (top.b_above.to_f64() - 0.5 * (-0.5f64).exp()).abs() < 1e-15);
        // at ℓ = −ε₀ everything is above; just past ε₀ nothing
        let bottom = lap.split(Direction::Remove, &q("-1/2"), 128).unwrap();
        assert_eq!(bottom.a_above.to_f64(), 1.0);
        let past = lap.split(Direction::Remove, &q("501/1000"), 128).unwrap();
        assert_eq!(past.a_above.to_f64(), 0.0);
        assert_eq!(lap.pure_epsilon(), Some(q("1/2")));
        assert_eq!(lap.rho(), Some(q("1/8")));
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Laplace::new(q("0"), q("1")).is_err());
        assert!(Laplace::new(q("1"), q("-1")).is_err());
    }
}
