//! Compositions that hold a stated ρ-zCDP guarantee (`zcdp:rho=R`, `noise::blackbox::Zcdp`). Such a
//! mechanism has no privacy-loss law, only its ρ, so the whole composition is accounted through ρ: zCDP
//! composes additively [BS16, Lemma 2.3], every other mechanism enters by its own ρ (the discrete and
//! continuous Gaussian μ²/(2σ²) [CKS20], [BS16], a pure ε-DP one ε²/2 [BS16, Prop. 1.4]), and the total
//! is converted by the optimal conversion [CKS20, Prop. 12] (δ(ε) at one Rényi order α, which is a valid
//! bound at every α > 1; the order is searched, the bound at it enclosed). The result is a certified
//! *bound* (trust `certified-bound`): the composition's exact profile can only be lower. The trade-off
//! function is bounded from below through the same divergences, D_α ≤ ρα on dp_accounting's orders
//! (`rdp_bound::tradeoff_of_renyi`: f(α) ≥ 1 − δ(ε) − e^ε α at the best ε), as for the laws known only by
//! Rényi bounds.

use super::vocabulary::Query;
use super::{Accountant, Certified, Engine, Trust};
use crate::budget::zcdp::{delta_cks, eps_cks};
use crate::error::Fallible;
use crate::fallible;
use crate::model::Noise;
use crate::num::format::fmt_nearest;
use rug::Float;

impl Accountant {
    pub(super) fn rho_bound(&self, q: Query) -> Fallible<Certified> {
        let without: Vec<String> = self
            .comp
            .groups()
            .iter()
            .filter(|g| g.rho().is_none())
            .map(|g| match &g.noise {
                Noise::Law(l) => l.0.spec(),
                n => n.describe(),
            })
            .collect();
        let Some(rho) = self.comp.rho() else {
            return fallible!(
                Input,
                "a zCDP guarantee composes only through rho, and {} has none (an (epsilon, delta)-DP guarantee with delta > 0 has no rho)",
                without.join(", ")
            );
        };
        let p = self.work_prec();
        let detail = |a: &Float| {
            format!(
                "zCDP: total rho = {} (a zCDP guarantee is known only through rho); optimal conversion at Renyi order {}",
                fmt_nearest(&Float::with_val(64, &rho), 12),
                fmt_nearest(a, 6)
            )
        };
        match q {
            Query::Epsilon(d) => {
                let (e, a) = eps_cks(&rho, d, p);
                Certified::new(e, Engine::ZcdpCks, Trust::Bound, detail(&a))
            }
            Query::Delta(e) => {
                let (d, a) = delta_cks(&rho, e, p);
                Certified::new(d, Engine::ZcdpCks, Trust::Bound, detail(&a))
            }
            Query::Tradeoff(alpha) => {
                let orders = crate::noise::renyi_dp::default_orders();
                let d: Vec<Option<crate::num::Interval>> =
                    orders.iter().map(|a| Some(crate::num::Interval::from_rational(&(rho.clone() * a), p))).collect();
                let f = super::rdp_bound::tradeoff_of_renyi(&orders, &d, alpha, p);
                let detail = format!(
                    "zCDP: total rho = {} (a zCDP guarantee is known only through rho); f(alpha) >= 1 - delta(eps) - e^eps alpha at the best eps, delta(eps) from D_alpha <= rho alpha on dp_accounting's {} orders",
                    fmt_nearest(&Float::with_val(64, &rho), 12),
                    orders.len()
                );
                Certified::new(f, Engine::ZcdpCks, Trust::Bound, detail)
            }
        }
    }
}
