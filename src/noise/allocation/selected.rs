//! Random allocation of k of T steps per epoch (k > 1): each record is used in k steps drawn uniformly
//! from the T, `alloc:sigma=S,steps=T,k=K[,mu=M]`, `n=E` epochs, add/remove neighbours.
//!
//! * **The decomposition** [FS25]. Write T = k·t₀ + r (0 ≤ r < k). A uniform k-subset of the steps is
//!   drawn by shuffling the steps into k − r groups of t₀ and r groups of t₀ + 1 (a partition that does
//!   not depend on the data) and taking one uniform step of each group: the law of the chosen set is
//!   invariant under every permutation of the steps and it always has k members, so it is uniform. Given
//!   the partition (data-independent), the k-of-T pair E_S N(μ1_S, σ²I) against N(0, σ²I) is the product
//!   of the groups' one-step pairs, since different groups' outputs are independent; the hockey-stick and
//!   Rényi divergences are jointly convex, so the mixture over partitions is dominated by that composition.
//!   That this pair dominates k-of-T allocation of any (adaptive) steps rests on [FS25], as for k = 1; their
//!   `random-allocation` package and dp_accounting's `allocation_directional_pld` bound it the same way.
//! * **What is certified.** Rényi divergences of a composition add [Mir17, Prop. 1]: one epoch's D_α is
//!   at most (k − r)·D_α(t₀) + r·D_α(t₀ + 1), each term the one-of-tᵢ law's upper bound
//!   (`RandomAllocation`). Trust `certified-bound`, as for k = 1.
//! * k = T is k Gaussian releases (t₀ = 1): exactly kαμ²/(2σ²) in both directions.

use super::RandomAllocation;
use crate::error::Fallible;
use crate::fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::format::fmt_rational;
use crate::num::Interval;
use rug::Rational;

/// k of `steps` steps per epoch for each record (module doc): the one-of-t₀ law `k − r` times and the
/// one-of-(t₀ + 1) law `r` times.
#[derive(Debug, Clone)]
pub struct SelectedAllocation {
    selected: u64,
    steps: u64,
    /// (the one-step-per-record law of a group, how many groups of that size)
    parts: Vec<(RandomAllocation, u64)>,
}

impl SelectedAllocation {
    /// σ² the noise variance, μ the sensitivity, `selected` of `steps` steps per epoch for each record.
    pub fn new(sigma2: Rational, mu: Rational, steps: u64, selected: u64) -> Fallible<SelectedAllocation> {
        if selected == 0 || selected > steps {
            return fallible!(
                Input,
                "random allocation: k (the steps each record is in) must be between 1 and the steps of an epoch ({steps}), got {selected}"
            );
        }
        let (t0, r) = (steps / selected, steps % selected);
        let mut parts = vec![(RandomAllocation::new(sigma2.clone(), mu.clone(), t0)?, selected - r)];
        if r > 0 {
            parts.push((RandomAllocation::new(sigma2, mu, t0 + 1)?, r));
        }
        Ok(SelectedAllocation { selected, steps, parts })
    }
}

impl LossLaw for SelectedAllocation {
    fn spec(&self) -> String {
        let one = &self.parts[0].0;
        format!("alloc:sigma2={},mu={},steps={},k={}", fmt_rational(&one.sigma2), fmt_rational(&one.mu), self.steps, self.selected)
    }

    fn symmetric(&self) -> bool {
        self.parts.iter().all(|(p, _)| p.symmetric())
    }

    /// The groups' one-step allocations, whose composition dominates the law (module doc).
    fn allocation(&self) -> Option<(Rational, Vec<(u64, u64)>)> {
        Some((self.parts[0].0.mu2.clone(), self.parts.iter().map(|(p, n)| (p.steps, *n)).collect()))
    }

    /// Σ count·D_α(part): the composition of the groups' one-step allocations (module doc).
    fn renyi(&self, dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        let mut total = Interval::zero(prec);
        for (part, count) in &self.parts {
            match part.divergence(dir, alpha, prec) {
                Ok(d) => total = total.add(&d.mul_u64(*count)),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(total))
    }

    super::allocation_law!();
}

#[cfg(test)]
#[path = "selected_tests.rs"]
mod tests;
