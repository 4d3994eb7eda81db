//! From Rényi divergences at finitely many orders to (ε, δ)-DP, certified: the conversions the RDP
//! accountants use, evaluated in interval arithmetic. Every order gives a valid bound, so the best of a
//! finite set is one too; each returns the enclosure of the bound at the order it chose (the smallest
//! upper end).
//!
//! * [CKS20, Prop. 12]: a mechanism with D_α ≤ τ (both directions) is (ε, δ)-DP with
//!   δ = e^{(α−1)(τ − ε + ln(1 − 1/α))}/α, equivalently ε = τ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1).
//! * For orders near 1 also δ ≤ TV ≤ √(1 − e^{−KL}) [BH79] with KL ≤ D_α (D_α is non-decreasing in α
//!   [vEH14, Thm 3]): dp_accounting's `compute_delta` takes the smaller of the two as well.
//! * δ ≤ 1 always.

use crate::num::Interval;
use rug::Rational;

/// The enclosure among `candidates` with the smallest upper end (None if there is none).
pub fn least(candidates: impl IntoIterator<Item = Interval>) -> Option<Interval> {
    candidates.into_iter().fold(None, |best: Option<Interval>, c| match best {
        Some(b) if b.hi() <= c.hi() => Some(b),
        _ => Some(c),
    })
}

/// δ at `eps` from upper bounds `d[i]` of D_α at `orders[i]` (None: infinite), both directions.
pub fn delta_of_renyi(orders: &[Rational], d: &[Option<Interval>], eps: &Interval, prec: u32) -> Interval {
    let one = Interval::one(prec);
    let mut cands = vec![one.clone()];
    for (a, tau) in orders.iter().zip(d) {
        let Some(tau) = tau else { continue };
        let ai = Interval::from_rational(a, prec);
        let am1 = Interval::from_rational(&Rational::from(a - 1u32), prec);
        let ln_frac = Interval::from_rational(&(Rational::from(a - 1u32) / a.clone()), prec).ln();
        let cks = am1.mul(&tau.sub(eps).add(&ln_frac)).sub(&ai.ln()).exp();
        cands.push(cks);
        // Bretagnolle–Huber through KL ≤ D_α
        let bh = one.sub(&tau.neg().exp());
        if bh.is_nonneg() {
            cands.push(bh.sqrt());
        }
    }
    least(cands).unwrap_or(one)
}

/// ε at `delta` (0 < δ < 1) from upper bounds `d[i]` of D_α at `orders[i]` (None: infinite); None if no
/// order gives a finite bound. Negative bounds are clamped at 0 (ε ≥ 0 holds anyway).
pub fn epsilon_of_renyi(orders: &[Rational], d: &[Option<Interval>], delta: &Rational, prec: u32) -> Option<Interval> {
    let ln_delta = Interval::from_rational(delta, prec).ln();
    let cands = orders.iter().zip(d).filter_map(|(a, tau)| {
        let tau = tau.as_ref()?;
        let ai = Interval::from_rational(a, prec);
        let am1 = Interval::from_rational(&Rational::from(a - 1u32), prec);
        let ln_frac = Interval::from_rational(&(Rational::from(a - 1u32) / a.clone()), prec).ln();
        Some(tau.add(&ln_frac).sub(&ln_delta.add(&ai.ln()).div(&am1)))
    });
    least(cands).map(|e| e.max(&Interval::zero(prec)))
}

/// The orders of dp_accounting's RDP accountant (`DEFAULT_RDP_ORDERS`): 1.1, 1.2, …, 10.9, 11, 12, …, 63,
/// 128, 256, 512, 1024, as exact rationals.
pub fn default_orders() -> Vec<Rational> {
    let mut v: Vec<Rational> = (1..100).map(|x| Rational::from(1) + Rational::from((x, 10))).collect();
    v.extend((11..64).map(Rational::from));
    v.extend([128, 256, 512, 1024].map(Rational::from));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Gaussian of σ = 1 has D_α = α/2 [Mir17]: dp_accounting's RDP accountant (its own code, run
    /// once with dp-accounting 0.6.0: `RdpAccountant().compose(GaussianDpEvent(1)).get_epsilon(1e-5)` =
    /// 4.728507067217623) picks the same orders, so the certified value agrees to its float rounding.
    #[test]
    fn the_gaussian_matches_dp_accountings_rdp_accountant() {
        let orders = default_orders();
        assert_eq!(orders.len(), 156);
        let d: Vec<Option<Interval>> = orders.iter().map(|a| Some(Interval::from_rational(&(a.clone() / 2u32), 128))).collect();
        let e = epsilon_of_renyi(&orders, &d, &Rational::from((1, 100_000)), 128).unwrap();
        assert!(e.width().to_f64() < 1e-30);
        assert!((e.to_f64() - 4.728_507_067_217_623).abs() < 1e-9, "{}", e.to_f64());
        let dl = delta_of_renyi(&orders, &d, &e, 128);
        assert!(dl.hi().to_f64() <= 1e-5 * (1.0 + 1e-9), "{}", dl.to_f64());
        // an infinite divergence everywhere gives no epsilon and the trivial delta
        let none = vec![None; orders.len()];
        assert!(epsilon_of_renyi(&orders, &none, &Rational::from((1, 100)), 64).is_none());
        assert_eq!(delta_of_renyi(&orders, &none, &Interval::one(64), 64).to_f64(), 1.0);
    }
}
