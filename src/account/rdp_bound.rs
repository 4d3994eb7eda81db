//! Compositions that hold a mechanism known only by a bound on its Rényi divergences (repeat-and-select,
//! `noise::repeat`; random allocation, `noise::allocation`). The whole composition is then accounted as the RDP accountants do: Rényi divergences
//! add up over independent mechanisms [Mir17, Prop. 1], every other mechanism enters by its own certified
//! D_α (`account::renyi`: formulas, atoms, moment generating functions; a stated zCDP guarantee by ρα), on
//! dp_accounting's orders, and the total is converted at the best of them [CKS20, Prop. 12]
//! (`noise::renyi_dp`). The result is a certified *bound* (trust `certified-bound`): the value printed is
//! the enclosure of the bound at the order chosen, and the composition's exact profile can only be lower.

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
                    None => return fallible!(Input, "{}: no Renyi divergence of it is finite, so no epsilon follows from them", self.comp.describe()),
                },
                Query::Delta(eps) => delta_of_renyi(&orders, &d, &Interval::from_rational(eps, prec), prec),
                Query::Tradeoff(_) => {
                    return fallible!(
                        Input,
                        "the trade-off function of a composition holding a mechanism known by Renyi bounds only (repeat-and-select, random allocation) is not computed (give epsilon or delta; it is accounted through Renyi divergences)"
                    )
                }
            };
            worst = Some(match worst {
                Some(w) if w.hi() >= v.hi() => w,
                _ => v,
            });
        }
        let v = worst.expect("law_directions gives at least one direction");
        let detail = format!(
            "Renyi divergences on dp_accounting's {} orders added up and converted at the best order ({} known only by Renyi bounds)",
            orders.len(),
            only_renyi(&laws)
        );
        Certified::new(v, Engine::Renyi, Trust::Bound, detail)
    }
}

/// The laws known by Rényi bounds only, by their spellings.
fn only_renyi(laws: &[(std::sync::Arc<dyn crate::noise::loss::LossLaw>, u64)]) -> String {
    let specs: Vec<String> = laws.iter().filter(|(l, _)| l.rdp_only()).map(|(l, _)| l.spec()).collect();
    specs.join(", ")
}
