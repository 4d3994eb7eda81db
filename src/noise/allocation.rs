//! Random allocation of the Gaussian mechanism (balls in bins): in each epoch every record is placed in one
//! of T steps, uniformly and independently of the others, and each step releases the sum of its records'
//! contributions (sensitivity μ, e.g. clipped gradients) plus N(0, σ²) noise. `alloc:sigma=S,steps=T[,mu=M]`,
//! `n=E` epochs. Under add/remove neighbours only.
//!
//! * **The pair.** With every other record contributing 0, one epoch's T outputs are
//!   A = (1/T) Σ_t N(μe_t, σ²I) with the record and B = N(0, σ²I) without; [FS25] show this pair dominates
//!   random allocation of the Gaussian (for adaptive steps as well), and epochs reshuffle independently, so
//!   E epochs are dominated by the E-fold product.
//! * **What is certified: the exact value, bracketed** (one step per record, ε and δ): the pair's epochs as
//!   finite pairs that dominate it and that it dominates (`allocation::pairs`, the engine
//!   `account::engines::allocation`); the pair is also the mechanism's own output on that input, so its
//!   divergences are exact.
//! * **Otherwise an upper bound through Rényi divergences** (k > 1, the trade-off function, budgets too
//!   small for the pairs). The pair has no known privacy-loss law in closed form, but its Rényi divergences have the moments of one likelihood ratio
//!   (`allocation::moments`): D_α(A‖B) = ln E_B[M^α]/(α − 1) exactly at integer α, and
//!   D_α(B‖A) = ln E_B[M^{−(α−1)}]/(α − 1) bounded from above at integer α. Between integers both use that
//!   β ↦ ln E[M^β] is convex (Hölder), so it lies below its chords. Neither direction exceeds the one-step
//!   Gaussian's αμ²/(2σ²) (m ↦ m^β is convex for β ≥ 1 and β ≤ 0, and M is a mean: Jensen), which caps
//!   both where the noise is small, and stands in for orders beyond the moments' reach. Divergences of
//!   independent products add [Mir17, Prop. 1] and the total converts to (ε, δ) at the best order [CKS20, Prop. 12]
//!   (`account::rdp_bound`): trust `certified-bound`. The exact ε can only be lower; a lower bound of it is
//!   `tightdp shuffle --neighbors add-remove`'s (`attack::shuffle`, the same pair).
//! * One step (T = 1) is the Gaussian mechanism: E[M^β] = e^{μ²β(β−1)/(2σ²)} exactly, for every real β.
//! * k of the T steps for each record (`k=K`): `selected`, the composition of k one-step allocations.

pub mod moments;
pub mod pairs;
pub mod selected;

use crate::error::Fallible;
use crate::noise::loss::{Direction, LossLaw};
use crate::num::format::fmt_rational;
use crate::num::Interval;
use crate::{err, fallible};
use moments::{positive_moments, s_needed, PsiGrid, MAX_ORDER};
use rug::Rational;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The precision of the negative moments' grid: the bound is an upper bound at any precision, and 64 bits
/// keep t·ln ψ to far below the conversion's slack.
const GRID_PREC: u32 = 64;

/// Random allocation of the Gaussian mechanism, one record in one of `steps` steps per epoch (module doc).
#[derive(Debug)]
pub struct RandomAllocation {
    sigma2: Rational,
    mu: Rational,
    steps: u64,
    /// μ²/σ²: the pair in standard units
    mu2: Rational,
    /// E[M^a], a = 0, 1, …, at one precision
    positive: Mutex<Option<(u32, Vec<Interval>)>>,
    /// the grid of ψ's bounds and the negative moments' bounds read off it
    negative: Mutex<Option<(PsiGrid, BTreeMap<u64, Option<Interval>>)>>,
}

impl Clone for RandomAllocation {
    fn clone(&self) -> Self {
        RandomAllocation::new(self.sigma2.clone(), self.mu.clone(), self.steps).expect("a clone of a valid law")
    }
}

impl RandomAllocation {
    /// σ² the noise variance, μ the sensitivity, `steps` the steps of one epoch (each record in one).
    pub fn new(sigma2: Rational, mu: Rational, steps: u64) -> Fallible<RandomAllocation> {
        if sigma2 <= 0 || mu <= 0 {
            return fallible!(Input, "random allocation needs a positive noise and a positive sensitivity");
        }
        if steps == 0 {
            return fallible!(Input, "random allocation needs at least one step per epoch");
        }
        let mu2 = Rational::from(&mu * &mu) / sigma2.clone();
        Ok(RandomAllocation { sigma2, mu, steps, mu2, positive: Mutex::new(None), negative: Mutex::new(None) })
    }

    /// From `--mech alloc:sigma=S,steps=T[,k=K][,mu=M]` (or `sigma2=`); k > 1 is `selected::SelectedAllocation`.
    pub fn law_from_params(p: &mut crate::noise::params::Params) -> Fallible<Arc<dyn LossLaw>> {
        let sigma2 = p.variance("sigma (the noise multiplier)")?;
        let mu = p.positive_or("mu", Rational::from(1))?;
        let v = p.take("steps").ok_or_else(|| err!(Input, "mechanism '{}': missing steps (the steps of one epoch)", p.spec()))?;
        let steps = v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|x| (1..=1u64 << 40).contains(x))
            .ok_or_else(|| err!(Input, "mechanism '{}': steps must be a whole number between 1 and 2^40, got '{v}'", p.spec()))?;
        let k = match p.take("k") {
            None => 1,
            Some(v) => v.trim().parse::<u64>().ok().filter(|k| (1..=steps).contains(k)).ok_or_else(|| {
                err!(
                    Input,
                    "mechanism '{}': k (the steps each record is in) must be a whole number from 1 to steps ({steps}), got '{v}'",
                    p.spec()
                )
            })?,
        };
        let context = |e: crate::error::Error| e.context(format!("mechanism '{}'", p.spec()));
        if k > 1 {
            return Ok(Arc::new(selected::SelectedAllocation::new(sigma2, mu, steps, k).map_err(context)?));
        }
        let law = RandomAllocation::new(sigma2, mu, steps).map_err(context)?;
        Ok(Arc::new(law))
    }

    /// ln E_B[M^β] at the integer β ≥ 0 (Remove) or ln E_B[M^{−β}] (Add): exact, or an upper bound (Add).
    fn ln_moment(&self, dir: Direction, beta: u64, prec: u32) -> Fallible<Interval> {
        if beta == 0 || (beta == 1 && dir == Direction::Remove) {
            return Ok(Interval::zero(prec));
        }
        if beta > MAX_ORDER {
            return fallible!(Resource, "{}: Renyi orders above {MAX_ORDER} are not computed", self.spec());
        }
        match dir {
            Direction::Remove => Ok(self.positive_moment(beta, prec).ln()),
            Direction::Add => {
                // m ↦ m^{−β} is convex and M a mean of the Xᵢ: E[M^{−β}] ≤ E[X^{−β}] = e^{μ²β(β+1)/2} (Jensen),
                // the one-step Gaussian's, which caps the bound where the noise is small
                let k = Rational::from(beta * (beta + 1));
                let gauss = Interval::from_rational(&((&self.mu2 * k) / 2u32), prec);
                match self.negative_moment(beta) {
                    Some(m) => {
                        let m = m.ln();
                        Ok(if m.hi() <= gauss.hi() { m } else { gauss })
                    }
                    None => Ok(gauss),
                }
            }
        }
    }

    fn positive_moment(&self, a: u64, prec: u32) -> Interval {
        let mut cache = self.positive.lock().unwrap_or_else(|e| e.into_inner());
        match &*cache {
            Some((p, m)) if *p == prec && m.len() as u64 > a => return m[a as usize].clone(),
            _ => {}
        }
        let degree = (a + 1).next_power_of_two().clamp(64, MAX_ORDER + 1) as usize;
        let m = positive_moments(self.steps, &self.mu2, degree.max(a as usize + 1), prec);
        let v = m[a as usize].clone();
        *cache = Some((prec, m));
        v
    }

    fn negative_moment(&self, b: u64) -> Option<Interval> {
        let mut cache = self.negative.lock().unwrap_or_else(|e| e.into_inner());
        let need = s_needed(self.steps, self.mu2.to_f64(), b);
        if cache.as_ref().is_none_or(|(g, _)| g.end() < need) {
            // room for orders up to twice this one: the orders come in increasing
            let reach = s_needed(self.steps, self.mu2.to_f64(), (2 * b).clamp(64, MAX_ORDER));
            *cache = Some((PsiGrid::new(self.steps, &self.mu2, reach.max(need), GRID_PREC), BTreeMap::new()));
        }
        let (grid, memo) = cache.as_mut().expect("set above");
        memo.entry(b).or_insert_with(|| grid.negative_moment(b)).clone()
    }

    /// An upper bound of D_α in direction `dir` (module doc): at integer α the moment's, between integers
    /// the chord of the convex β ↦ ln E[M^β].
    fn divergence(&self, dir: Direction, alpha: &Rational, prec: u32) -> Fallible<Interval> {
        if *alpha <= 1 {
            return fallible!(Input, "the Renyi order alpha must be greater than 1, got {}", fmt_rational(alpha));
        }
        // the one-step Gaussian's D_α = αμ²/(2σ²); exact at one step, and a cap at any other: m ↦ m^β is
        // convex for β ≥ 1 and β ≤ 0 and M is a mean of the Xᵢ, so E[M^β] ≤ E[X^β] (Jensen)
        let gauss = Interval::from_rational(&(Rational::from(&self.mu2 * alpha) / 2u32), prec);
        if self.steps == 1 {
            return Ok(gauss);
        }
        // the moment's order: β = α for Remove (E[M^α]), α − 1 for Add (E[M^{−(α−1)}])
        let x = match dir {
            Direction::Remove => alpha.clone(),
            Direction::Add => Rational::from(alpha - 1u32),
        };
        let own = match self.chord(dir, &x, prec) {
            Ok(g) => g.div(&Interval::from_rational(&Rational::from(alpha - 1u32), prec)),
            Err(e) if e.kind() == crate::error::ErrorKind::Resource => return Ok(gauss),
            Err(e) => return Err(e),
        };
        Ok(if own.hi() <= gauss.hi() { own } else { gauss })
    }

    /// An upper bound of ln E[M^x] (Remove) or ln E[M^{−x}] (Add) at the real x ≥ 0: the moment's at an
    /// integer, else the chord between the integers around x (β ↦ ln E[M^β] is convex).
    fn chord(&self, dir: Direction, x: &Rational, prec: u32) -> Fallible<Interval> {
        let c =
            x.clone().floor().numer().to_u64().ok_or_else(|| err!(Resource, "{}: Renyi order {} is too large", self.spec(), x.to_f64()))?;
        let f = x.clone() - Rational::from(c);
        if f == 0 {
            return self.ln_moment(dir, c, prec);
        }
        let fi = Interval::from_rational(&f, prec);
        let lo = self.ln_moment(dir, c, prec)?;
        let hi = self.ln_moment(dir, c + 1, prec)?;
        Ok(Interval::one(prec).sub(&fi).mul(&lo).add(&fi.mul(&hi)))
    }
}

/// What every random-allocation law shares, inside its `impl LossLaw` (`RandomAllocation`, and
/// `allocation::selected` for k of T): no loss law (split and infinite decline, [`without_loss_law`]), add/remove
/// neighbours only, an upper bound known through Rényi divergences only, its batches its own (no `q=`).
///
/// [`without_loss_law`]: crate::noise::loss::without_loss_law
macro_rules! allocation_law {
    () => {
        crate::noise::loss::without_loss_law!(by |law: &Self| crate::noise::allocation::no_loss_law(law.spec()));

        fn shifts(&self, neighbors: crate::noise::neighbors::Neighbors) -> crate::error::Fallible<u64> {
            match neighbors {
                crate::noise::neighbors::Neighbors::AddRemove => Ok(1),
                crate::noise::neighbors::Neighbors::Replace => crate::fallible!(
                    Input,
                    "{}: random allocation is accounted under add/remove neighbours only (give --neighbors add-remove)",
                    self.spec()
                ),
            }
        }

        fn is_bound(&self) -> bool {
            true
        }

        fn rdp_only(&self) -> bool {
            true
        }

        fn not_subsampled(&self) -> Option<String> {
            Some(format!("{}, which samples its own batches", self.spec()))
        }
    };
}
pub(crate) use allocation_law;

/// The error of [`allocation_law`]'s `split` and `infinite`.
pub(crate) fn no_loss_law(spec: String) -> crate::error::Error {
    err!(Declined, "{spec}: random allocation has no privacy-loss law here; it is accounted through Renyi divergences")
}

impl LossLaw for RandomAllocation {
    fn spec(&self) -> String {
        format!("alloc:sigma2={},mu={},steps={}", fmt_rational(&self.sigma2), fmt_rational(&self.mu), self.steps)
    }

    fn symmetric(&self) -> bool {
        self.steps == 1
    }

    fn renyi(&self, dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        Some(self.divergence(dir, alpha, prec))
    }

    fn allocation(&self) -> Option<(Rational, Vec<(u64, u64)>)> {
        Some((self.mu2.clone(), vec![(self.steps, 1)]))
    }

    allocation_law!();
}

#[cfg(test)]
mod tests;
