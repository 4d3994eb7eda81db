//! Compositions that hold a mechanism known only by a bound on its Rényi divergences (repeat-and-select,
//! `noise::repeat`; random allocation, `noise::allocation`). The whole composition is then accounted as the RDP accountants do: Rényi divergences
//! add up over independent mechanisms [Mir17, Prop. 1], every other mechanism enters by its own certified
//! D_α (`account::renyi`: formulas, atoms, moment generating functions; a stated zCDP guarantee by ρα), on
//! dp_accounting's orders, and the total is converted at the best of them [CKS20, Prop. 12]
//! (`noise::renyi_dp`). The result is a certified *bound* (trust `certified-bound`): the value printed is
//! the enclosure of the bound at the order chosen, and the composition's exact profile can only be lower.
//! The trade-off function f(α) is bounded from below through those δ(ε): f(α) ≥ 1 − δ(ε) − e^ε α at the
//! best ε found (`tradeoff_of_renyi`), so the attack measures built on it are bounds too.

use super::renyi::{curve, law_directions};
use super::vocabulary::Query;
use super::{Accountant, Certified, Engine, Trust};
use crate::error::Fallible;
use crate::fallible;
use crate::noise::renyi_dp::{default_orders, delta_of_renyi, epsilon_of_renyi};
use crate::num::Interval;

/// Digits asked of each divergence: the conversion's bound is far looser than this.
const DIVERGENCE_DIGITS: u32 = 12;

impl Accountant {
    pub(super) fn rdp_bound(&self, q: Query) -> Fallible<Certified> {
        let laws = self.comp.law_shifts()?;
        let prec = 128;
        let orders = default_orders();
        let mut worst: Option<Interval> = None;
        for dir in law_directions(&laws) {
            let d = curve(&laws, dir, &orders, prec, DIVERGENCE_DIGITS)?;
            let v = match &q {
                Query::Epsilon(delta) => match epsilon_of_renyi(&orders, &d, delta, prec) {
                    Some(e) => e,
                    None => {
                        return fallible!(
                            Input,
                            "{}: no Renyi divergence of it is finite, so no epsilon follows from them",
                            self.comp.describe()
                        )
                    }
                },
                Query::Delta(eps) => delta_of_renyi(&orders, &d, &Interval::from_rational(eps, prec), prec),
                Query::Tradeoff(alpha) => tradeoff_of_renyi(&orders, &d, alpha, prec),
            };
            // the worse direction: the larger epsilon or delta, the smaller trade-off
            let worse = match &q {
                Query::Tradeoff(_) => |w: &Interval, v: &Interval| w.lo() <= v.lo(),
                _ => |w: &Interval, v: &Interval| w.hi() >= v.hi(),
            };
            worst = Some(match worst {
                Some(w) if worse(&w, &v) => w,
                _ => v,
            });
        }
        let v = worst.expect("law_directions gives at least one direction");
        let detail = format!(
            "Renyi divergences on dp_accounting's {} orders added up and converted at the best order ({})",
            orders.len(),
            only_renyi(&laws)
        );
        Certified::new(v, Engine::Renyi, Trust::Bound, detail)
    }
}

/// Why the composition went through Rényi divergences: the laws known by Rényi bounds only, or else those
/// whose class has sharper ones than their loss law (`LossLaw::renyi_sharper`), by their spellings.
fn only_renyi(laws: &[(std::sync::Arc<dyn crate::noise::loss::LossLaw>, u64)]) -> String {
    let specs = |keep: fn(&dyn crate::noise::loss::LossLaw) -> bool| -> String {
        let s: Vec<String> = laws.iter().filter(|(l, _)| keep(l.as_ref())).map(|(l, _)| l.spec()).collect();
        s.join(", ")
    };
    let only = specs(|l| l.rdp_only());
    if only.is_empty() {
        format!(
            "the class's Renyi divergences of {}, below its dominating pair's: the smaller of the two bounds",
            specs(|l| l.renyi_sharper())
        )
    } else {
        format!("{only} known only by Renyi bounds")
    }
}

/// Points of epsilon tried for the trade-off bound: 0 and a geometric grid up to `TRADEOFF_EPS_MAX`.
const TRADEOFF_POINTS: usize = 160;
const TRADEOFF_EPS_MAX: f64 = 60.0;

/// A certified lower bound of the trade-off function f(α) of a pair whose hockey-stick divergences are
/// bounded by `delta_of_renyi`: every test's type II error is at least 1 − δ(ε) − e^ε α, for every ε ≥ 0
/// (the test's rejection region S has Q(S) ≤ e^ε P(S) + δ(ε): the duality of [DRS22, Prop. 2.12]; both directions are bounded, so
/// either order of the pair). The best ε of a grid (in f64, then refined) is taken and enclosed; 0 at worst.
/// The search only chooses ε, so it runs on the f64 model of the bound (`Cks64`); the value returned is the
/// certified enclosure at the ε chosen.
pub(super) fn tradeoff_of_renyi(orders: &[rug::Rational], d: &[Option<Interval>], alpha: &rug::Rational, prec: u32) -> Interval {
    let a = Interval::from_rational(alpha, prec);
    let certified = |eps: f64| -> Interval {
        let e = Interval::from_rational(&rug::Rational::from_f64(eps).unwrap_or_default(), prec);
        Interval::one(prec).sub(&delta_of_renyi(orders, d, &e, prec)).sub(&e.exp().mul(&a))
    };
    let model = Cks64::new(orders, d);
    let af = alpha.to_f64();
    let at = |eps: f64| 1.0 - model.delta(eps) - eps.exp() * af;
    let grid: Vec<f64> = std::iter::once(0.0)
        .chain((0..TRADEOFF_POINTS).map(|i| 1e-4 * (TRADEOFF_EPS_MAX / 1e-4).powf(i as f64 / (TRADEOFF_POINTS - 1) as f64)))
        .collect();
    let values: Vec<f64> = grid.iter().map(|&e| at(e)).collect();
    let best = (0..grid.len()).max_by(|&i, &j| values[i].total_cmp(&values[j])).unwrap_or(0);
    // golden-section refinement between the best point's neighbours (f64 midpoints; any point is valid)
    let (mut lo, mut hi) = (grid[best.saturating_sub(1)], grid[(best + 1).min(grid.len() - 1)]);
    let mut best_eps = grid[best];
    let mut best_val = values[best];
    for _ in 0..24 {
        let (m1, m2) = (lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo));
        let (v1, v2) = (at(m1), at(m2));
        for (m, v) in [(m1, v1), (m2, v2)] {
            if v > best_val {
                best_val = v;
                best_eps = m;
            }
        }
        if v1 >= v2 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    certified(best_eps).max(&Interval::zero(prec))
}

/// `delta_of_renyi` in f64, for choosing test points only: per order the ε-free part of the [CKS20,
/// Prop. 12] bound, c = (α − 1)(τ + ln(1 − 1/α)) − ln α, so that the bound at ε is e^{c − (α − 1)ε}, and
/// the Bretagnolle–Huber bound √(1 − e^{−τ}), which does not depend on ε (τ the upper end of D_α).
struct Cks64 {
    /// (α − 1, c) per order with a finite bound
    cks: Vec<(f64, f64)>,
    /// the least Bretagnolle–Huber bound, and 1
    flat: f64,
}

impl Cks64 {
    fn new(orders: &[rug::Rational], d: &[Option<Interval>]) -> Cks64 {
        let mut cks = Vec::with_capacity(orders.len());
        let mut flat = 1.0f64;
        for (a, tau) in orders.iter().zip(d) {
            let Some(tau) = tau else { continue };
            let (a, t) = (a.to_f64(), tau.hi().to_f64());
            cks.push((a - 1.0, (a - 1.0) * (t + (1.0 - 1.0 / a).ln()) - a.ln()));
            if t >= 0.0 {
                flat = flat.min((1.0 - (-t).exp()).sqrt());
            }
        }
        Cks64 { cks, flat }
    }

    fn delta(&self, eps: f64) -> f64 {
        self.cks.iter().fold(self.flat, |m, &(am1, c)| m.min((c - am1 * eps).exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f64 model the ε search runs on is `delta_of_renyi` (within f64 rounding) at every ε tried, with
    /// finite and infinite orders: τ = 5α/4 (ten σ = 2 Gaussian releases) and a curve infinite above α = 2.
    #[test]
    fn the_search_model_is_the_certified_bound() {
        let orders = default_orders();
        for cut in [None, Some(rug::Rational::from(2))] {
            let d: Vec<Option<Interval>> = orders
                .iter()
                .map(|a| match &cut {
                    Some(c) if a > c => None,
                    _ => Some(Interval::from_rational(&(rug::Rational::from((5, 4)) * a), 128)),
                })
                .collect();
            let model = Cks64::new(&orders, &d);
            for eps in [0.0, 1e-3, 0.5, 2.0, 5.0, 9.0, 20.0] {
                let e = Interval::from_rational(&rug::Rational::from_f64(eps).unwrap(), 128);
                let want = delta_of_renyi(&orders, &d, &e, 128).mid().to_f64();
                let got = model.delta(eps);
                assert!((got - want).abs() <= 1e-12 * want.max(1e-300), "eps = {eps}: {got} against {want}");
            }
        }
    }
}
