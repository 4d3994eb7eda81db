//! Repeat and select (private hyperparameter tuning): run a mechanism K times, K random, and publish only
//! the best run — dp_accounting's `RepeatAndSelectDpEvent` [PS22]. `repsel:mean=M,shape=S,of=TERMS`
//! (`model::spec` reads the inner terms): K has mean M ≥ 1 and is Poisson (`shape=inf`), logarithmic
//! (`shape=0`), geometric (`shape=1`) or truncated negative binomial (any other shape η > 0).
//!
//! No privacy-loss law of the selected output is known, only a bound on its Rényi divergences from the
//! inner mechanism's (an upper bound: trust `certified-bound`). With ε(λ) = D_λ of the inner composition
//! (the worse direction):
//!
//! * truncated negative binomial of shape η, with γ its success probability [PS22, Thm 2]:
//!   ε′(λ) = ε(λ) + (1 + η)((1 − 1/λ̂) ε(λ̂) + ln(1/γ)/λ̂) + ln(E[K])/(λ − 1) for every λ̂ ≥ 1 (the best λ̂
//!   of the orders is taken, as dp_accounting does);
//! * Poisson [PS22, Thm 6]: ε′(λ) = ε(λ) + E[K] δ̂ + ln(E[K])/(λ − 1), where the inner mechanism is
//!   (ε̂, δ̂)-DP at ε̂ = ln(1 + 1/(λ − 1)) (δ̂ from the inner divergences, `noise::renyi_dp`);
//! * then ε′ is made non-decreasing in λ from above (D_λ is non-decreasing [vEH14, Thm 3]).
//!
//! γ is not given: it is the root of E[K](γ) = M, and E[K] decreases in γ. A rational γ₋ with E[K](γ₋) ≥ M
//! certified lies below the root, so ln(1/γ₋) ≥ ln(1/γ): the bound holds with γ₋ in its place.

use crate::error::Fallible;
use crate::noise::loss::{CurveMemo, LossLaw, RenyiOnly};
use crate::noise::neighbors::Neighbors;
use crate::noise::renyi_dp::{delta_of_renyi, least};
use crate::num::Interval;
use crate::{err, fallible};
use rug::Rational;
use std::sync::Arc;

/// The law of the number of runs K.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Poisson (dp_accounting's shape = ∞)
    Poisson,
    /// truncated negative binomial of shape η ≥ 0 (η = 0 logarithmic, η = 1 geometric)
    Tnb(Rational),
}

impl Shape {
    /// `inf` (or `poisson`) or a rational η ≥ 0.
    pub fn parse(s: &str) -> Fallible<Shape> {
        match s.trim() {
            "inf" | "infinity" | "poisson" => Ok(Shape::Poisson),
            v => {
                let eta = crate::num::parse_rational(v).map_err(|_| {
                    err!(Input, "shape must be a number >= 0 (0 logarithmic, 1 geometric, other: truncated negative binomial) or inf (Poisson), got '{v}'")
                })?;
                if eta < 0 {
                    return fallible!(Input, "shape must be >= 0 (or inf for Poisson), got {v}");
                }
                Ok(Shape::Tnb(eta))
            }
        }
    }
}

/// Repeat-and-select of an inner composition (module doc).
#[derive(Clone, Debug)]
pub struct RepeatSelect {
    spec: String,
    inner: Vec<(Arc<dyn LossLaw>, u64)>,
    mean: Rational,
    shape: Shape,
    /// the relation the inner laws are under, once resolved (`under` applies it once)
    relation: Option<Neighbors>,
    /// the inner composition's curves already computed
    memo: CurveMemo,
}

impl RepeatSelect {
    /// `spec` is the term as written (its spelling); `inner` the inner laws with their counts.
    pub fn new(spec: String, inner: Vec<(Arc<dyn LossLaw>, u64)>, mean: Rational, shape: Shape) -> Fallible<RepeatSelect> {
        if mean < 1 {
            return fallible!(
                Input,
                "repeat-and-select: the mean number of runs must be at least 1, got {}",
                crate::num::format::fmt_rational(&mean)
            );
        }
        if inner.is_empty() {
            return fallible!(Input, "repeat-and-select: of= names no mechanism");
        }
        if let Some((l, _)) = inner.iter().find(|(l, _)| l.rho_only()) {
            return fallible!(
                Input,
                "repeat-and-select of {}: a zCDP guarantee has Renyi bounds only through rho; give the mechanism itself",
                l.spec()
            );
        }
        Ok(RepeatSelect { spec, inner, mean, shape, relation: None, memo: CurveMemo::default() })
    }

    fn no_loss_law(&self) -> crate::error::Error {
        err!(Declined, "{}: repeat-and-select has no privacy-loss law; it is accounted through Renyi divergences", self.spec)
    }

    /// A certified lower bound of the success probability γ of the truncated negative binomial of shape η
    /// with mean M (module doc): exact for the geometric law (γ = 1/M), else 96 bisection steps.
    fn gamma_below(&self, eta: &Rational, prec: u32) -> Rational {
        if *eta == 1 {
            return Rational::from(1) / self.mean.clone();
        }
        let m = Interval::from_rational(&self.mean, prec);
        let (mut lo, mut hi) = (Rational::from(0), Rational::from(1));
        for _ in 0..96 {
            let mid = Rational::from(&lo + &hi) / 2u32;
            if tnb_mean(&mid, eta, prec).lo() >= m.hi() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// E[K] of the truncated negative binomial of shape η at success probability γ ∈ (0, 1), enclosed:
/// η(1/γ − 1)/(1 − γ^η), its limit (1/γ − 1)/ln(1/γ) at η = 0 (logarithmic) [PS22, §2].
pub fn tnb_mean(gamma: &Rational, eta: &Rational, prec: u32) -> Interval {
    let g = Interval::from_rational(gamma, prec);
    let odds = Interval::from_rational(&(Rational::from(1) / gamma.clone() - 1u32), prec);
    let ln_g = g.ln();
    if *eta == 0 {
        return odds.div(&ln_g.neg());
    }
    let e = Interval::from_rational(eta, prec);
    let pow = e.mul(&ln_g).exp();
    e.mul(&odds).div(&Interval::one(prec).sub(&pow))
}

impl RenyiOnly for RepeatSelect {
    fn inner(&self) -> &[(Arc<dyn LossLaw>, u64)] {
        &self.inner
    }

    fn bound(&self, orders: &[Rational], inner: &[Option<Interval>], prec: u32) -> Vec<Option<Interval>> {
        let ln_mean = Interval::from_rational(&self.mean, prec).ln();
        let mean = Interval::from_rational(&self.mean, prec);
        let term_mean = |l: &Rational| ln_mean.div(&Interval::from_rational(&Rational::from(l - 1u32), prec));
        let raw: Vec<Option<Interval>> = match &self.shape {
            Shape::Poisson => orders
                .iter()
                .zip(inner)
                .map(|(l, d)| {
                    let d = d.as_ref()?;
                    // ε̂ = ln(1 + 1/(λ − 1)) = ln(λ/(λ − 1)) [PS22, Thm 6]
                    let eps_hat = Interval::from_rational(&(l.clone() / Rational::from(l - 1u32)), prec).ln();
                    let delta_hat = delta_of_renyi(orders, inner, &eps_hat, prec);
                    Some(d.add(&mean.mul(&delta_hat)).add(&term_mean(l)))
                })
                .collect(),
            Shape::Tnb(eta) => {
                let ln_inv_gamma = Interval::from_rational(&self.gamma_below(eta, prec), prec).ln().neg();
                let one = Interval::one(prec);
                // min over λ̂ of (1 − 1/λ̂) ε(λ̂) + ln(1/γ)/λ̂ [PS22, Thm 2]
                let c = least(orders.iter().zip(inner).filter_map(|(lh, d)| {
                    let inv = Interval::from_rational(&(Rational::from(1) / lh.clone()), prec);
                    Some(one.sub(&inv).mul(d.as_ref()?).add(&ln_inv_gamma.mul(&inv)))
                }));
                let c = c.map(|c| c.mul(&Interval::from_rational(&(eta.clone() + 1u32), prec)));
                orders.iter().zip(inner).map(|(l, d)| Some(d.as_ref()?.add(c.as_ref()?).add(&term_mean(l)))).collect()
            }
        };
        // non-decreasing in λ: the bound at λ is also the least bound at any larger order
        (0..raw.len()).map(|i| least(raw[i..].iter().flatten().cloned())).collect()
    }

    fn memo(&self) -> &CurveMemo {
        &self.memo
    }
}

impl LossLaw for RepeatSelect {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn symmetric(&self) -> bool {
        true
    }

    crate::noise::loss::without_loss_law!();

    /// The inner laws under the relation (their own pairs, their shifts counted); one selection per query.
    fn under(&self, neighbors: Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        match self.relation {
            Some(r) if r == neighbors => return None,
            Some(_) => return Some(fallible!(Input, "{}: composed under two neighbour relations", self.spec)),
            None => {}
        }
        let inner: Fallible<Vec<(Arc<dyn LossLaw>, u64)>> = self
            .inner
            .iter()
            .map(|(l, n)| {
                let l = match l.under(neighbors) {
                    Some(r) => r?,
                    None => l.clone(),
                };
                let k = l.shifts(neighbors)?;
                Ok((l, n * k))
            })
            .collect();
        Some(inner.map(|inner| {
            Arc::new(RepeatSelect { inner, relation: Some(neighbors), memo: CurveMemo::default(), ..self.clone() }) as Arc<dyn LossLaw>
        }))
    }

    fn shifts(&self, _neighbors: Neighbors) -> Fallible<u64> {
        Ok(1)
    }

    fn is_bound(&self) -> bool {
        true
    }

    fn renyi_only(&self) -> Option<&dyn RenyiOnly> {
        Some(self)
    }
}

#[cfg(test)]
#[path = "repeat/tests.rs"]
mod tests;
