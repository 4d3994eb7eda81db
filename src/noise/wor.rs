//! Sampling without replacement: each run of the mechanism sees a uniformly random batch of exactly m of
//! the data set's `pop` records (γ = m/pop), neighbours differ in one record's value (replace).
//!
//! With f = T(B, A) the trade-off function of the mechanism's own replace pair (symmetric: additive
//! noise, randomized response), the subsampled mechanism is C_γ(f)-DP [DRS22, Thm 9] with
//!
//!   C_γ(f) = min{f_γ, f_γ⁻¹}**,   f_γ = γ f + (1 − γ) Id,                                       (1)
//!
//! and the guarantee of T runs is the tensor power C_γ(f)^{⊗T} [DRS22, Thm 4]: one *symmetric* pair that
//! dominates every ordered pair of neighbours at every α at once. The two Poisson-type pairs of
//! `noise::subsample` do not (each dominates only for α ≥ 1 or α ≤ 1), and composing them direction by
//! direction would understate the loss [LRKS24].
//!
//! f_γ is the trade-off function of the Poisson `Remove` pair ((1 − γ)B + γA, B), whose privacy profile is
//! δ_R. For a symmetric f, C_γ(f) is f_γ where its slope is at most −1, a segment of slope −1, then f_γ⁻¹
//! [DRS22, Prop. of §4.2 on C_p]: in the language of privacy-loss laws (L = ln dA*/dB* under A*),
//!
//!   A*[L ∈ S] = A_R[L_R ∈ S]           for S ⊂ (0, ∞)      (the Remove law's positive part),
//!   A*[L = −u] = B_R[L_R = u]          for u > 0           (its mirror: the pair is symmetric),
//!   A*[L = 0]  = what remains,                                                                  (2)
//!
//! and B*[L ∈ S] = A*[−L ∈ S]. So δ*(ε) = δ_R(ε) for ε ≥ 0 — one run is exactly as private as under
//! Poisson subsampling with q = γ [BBG18, Thm 10] — while compositions differ. The profile of T runs is
//! a certified upper bound (trust `certified-bound`): tight for one run, not known to be attained for T > 1. The atom at 0 is ≥ 0
//! because A_R[L_R > 0] + B_R[L_R > 0] ≤ 1 for a symmetric f (the segment of (1) runs from x* to f_γ(x*) ≥
//! x*). Every mass of (2) is read from the Remove law's certified split at ±ℓ; the masses on the far side
//! come from the totals (1 − A*[L = +∞]), where they are at least 1/2, so no cancellation.
//!
//! The mechanism's sensitivity `mu` is its sensitivity under replace (a clipped gradient sum: 2C): the
//! pair (A, B) is one shift of it, so [`LossLaw::shifts`] is 1 under replace.
//!
//! **Add/remove.** A neighbour has one record more or fewer, and every batch still has m records. Of the
//! larger data set, a batch holds the extra record x with probability γ = m/pop (m/(pop + 1) where x was
//! added: smaller, and the pairs below grow with γ), and then m − 1 of the others: a batch B of m of the
//! others less one uniformly chosen member y. So with B drawn alike on both sides, the larger set's run is
//! (1 − γ)M(B) + γ·avg_y M(B − y + x) against M(B): the sum moves by g(x) − g(y), at most `mu` (2C for
//! gradients clipped to C, the same `mu` as under replace). By joint convexity of the hockey-stick
//! divergence (over B and y), and its growth with the shift, each run is dominated by the Poisson `Remove`
//! pair ((1 − γ)B + γA, B) of the mechanism at q = m/pop and sensitivity `mu` in one order, and by its
//! reverse in the other; runs dominated one by one compose to the dominating pairs' composition [ZDW22]
//! (adaptive composition of dominating pairs). With every other record's value equal, the runs are exactly
//! these pairs, so the result is exact. T runs under add/remove are thus T Poisson-subsampled runs, both
//! orders ([`LossLaw::under`]). m = pop is refused (the smaller neighbour has fewer than m records).

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::noise::subsample::PoissonSampled;
use crate::num::Interval;
use rug::Rational;
use std::sync::Arc;

/// Largest population (data-set size) accepted.
pub const MAX_POP: u64 = 1 << 50;

/// A mechanism run on a batch of m of pop records drawn without replacement, under replace neighbours.
#[derive(Clone, Debug)]
pub struct SampledWithoutReplacement {
    /// the Poisson-type law with q = m/pop, whose `Remove` direction gives (2)
    inner: PoissonSampled,
    m: u64,
    pop: u64,
}

impl SampledWithoutReplacement {
    pub fn new(base: Arc<dyn LossLaw>, m: u64, pop: u64) -> Fallible<SampledWithoutReplacement> {
        if !(1..=MAX_POP).contains(&pop) {
            return crate::fallible!(Input, "sampling without replacement needs a population pop between 1 and {MAX_POP}, got {pop}");
        }
        if !(1..=pop).contains(&m) {
            return crate::fallible!(Input, "sampling without replacement needs a batch size m between 1 and pop = {pop}, got {m}");
        }
        if let Some(why) = base.not_subsampled() {
            return crate::fallible!(Input, "sampling without replacement is not defined for {why}");
        }
        if !base.symmetric() {
            return crate::fallible!(
                Input,
                "sampling without replacement of a mechanism whose two directions differ ({}) is not supported",
                base.spec()
            );
        }
        let inner = PoissonSampled::new(base, Rational::from((m, pop)))?;
        Ok(SampledWithoutReplacement { inner, m, pop })
    }

    fn base_spec(&self) -> String {
        // the Poisson law's spelling minus its ",q=…"
        let s = self.inner.spec();
        match s.rfind(",q=") {
            Some(i) => s[..i].to_string(),
            None => s,
        }
    }

    /// (B_R[L_R > 0], A_R[L_R > 0]) — strictly above 0, where the mechanism's own loss law may have an atom
    /// (a lattice through 0: the discrete Gaussian at even μ²/σ²… , randomized response with k ≥ 3) that the
    /// Remove split at 0 could only enclose with its whole mass: L_R > 0 ⟺ L > 0, and above 0 the next loss
    /// of a lattice law is the lattice's first positive point; a law without a lattice has no atom at 0
    /// (its atoms are at its ends).
    fn above_zero_strict(&self, p: u32) -> Fallible<(Interval, Interval)> {
        let base = self.inner.base();
        let z = match base.lattice() {
            Some(step) => {
                // the least element of offset + step·ℤ that is > 0
                let a = base.lattice_offset();
                let m = Rational::from((-Rational::from(&a / &step)).floor_ref()) + 1u32;
                a + step * m
            }
            None => Rational::from(0),
        };
        let s = base.split(Direction::Remove, &z, p)?;
        let qi = Interval::from_rational(self.inner.q(), p);
        let a_r = Interval::one(p).sub(&qi).mul(&s.b_above).add(&qi.mul(&s.a_above));
        Ok((s.b_above, a_r))
    }

    /// A*[L = +∞] = B*[L = −∞] = γ·A[L = +∞].
    fn a_inf(&self, prec: u32) -> Fallible<Interval> {
        Ok(self.inner.infinite(Direction::Remove, prec)?.0)
    }
}

impl LossLaw for SampledWithoutReplacement {
    fn spec(&self) -> String {
        format!("{},sampling=wor,m={},pop={}", self.base_spec(), self.m, self.pop)
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// C_γ(f)^{⊗T} is a certified *bound*: attained for one run (the data sets of
    /// `scripts/reference/wor_subsampled_gaussian.py` (a)), but whether some adaptive choice of T runs
    /// attains its tensor power is not known [LRKS24] — results say `certified-bound`, not exact. With
    /// m = pop every run sees the whole data set: C_1(f) = f, the mechanism itself, exact.
    fn is_bound(&self) -> bool {
        self.m != self.pop
    }

    /// With the whole data set in every batch (m = pop) the law is the Gaussian's own (the closed forms
    /// answer); otherwise none.
    fn gaussian_eta(&self) -> Option<Rational> {
        if self.m == self.pop {
            self.inner.base().gaussian_eta()
        } else {
            None
        }
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let p = prec + 32;
        let finite = Interval::one(p).sub(&self.a_inf(p)?);
        if *l > 0 {
            // (2), positive part: the Remove law's masses at or above ℓ
            let s = self.inner.split(Direction::Remove, l, p)?;
            let b_below = finite.sub(&s.b_above);
            Ok(Split { a_below: s.a_below, a_above: s.a_above, b_below, b_above: s.b_above })
        } else {
            // below ℓ ≤ 0 is the mirror of above −ℓ ≥ 0: A*[L < ℓ] = B_R[L_R > −ℓ], B*[L < ℓ] = A_R[L_R > −ℓ]
            let (a_below, b_below) = if *l == 0 {
                self.above_zero_strict(p)?
            } else {
                // −ℓ > 0 is rational, its preimage under g transcendental: the Remove split's bracket of
                // the preimage encloses both the strict and the non-strict side
                let s = self.inner.split(Direction::Remove, &Rational::from(-l), p)?;
                (s.b_above, s.a_above)
            };
            Ok(Split { a_above: finite.sub(&a_below), b_above: finite.sub(&b_below), a_below, b_below })
        }
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        let a = self.a_inf(prec)?;
        Ok((a.clone(), a))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        let hi = self.inner.range(Direction::Remove).hi;
        let lo = match &hi {
            End::Open => End::Open,
            End::Atom(i) => End::Atom(i.neg()),
            End::Limit(i) => End::Limit(i.neg()),
        };
        LossRange { lo, hi }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        // planning only: the upper tail is the Remove law's; the lower tail is the mirror of B_R's upper
        // tail, which is thinner than A_R's — the mirrored A_R quantile lies beyond it
        let t = self.inner.quantile(Direction::Remove, ln_p, true).max(0.0);
        if upper {
            t
        } else {
            -t
        }
    }

    /// A mechanism with finitely many losses and one positive loss a under the Remove pair (a stated
    /// guarantee: a = ln(1 − γ + γe^ε); randomized response): the law (2) has the finite losses −a, 0 and a
    /// only, on aℤ.
    fn enclosed_lattice(&self, prec: u32) -> Option<Interval> {
        let f = self.inner.finite(Direction::Remove, prec)?.ok()?;
        let mut positive = f.atoms.iter().filter(|(l, a, _)| *l.lo() > 0 && *a.hi() > 0);
        let (step, ..) = positive.next()?;
        let undecided = f.atoms.iter().any(|(l, ..)| *l.lo() <= 0 && *l.hi() > 0);
        (positive.next().is_none() && !undecided).then(|| step.clone())
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        None
    }

    /// The pair is the replace pair (one shift of the replace sensitivity). Under add/remove the law is
    /// replaced by the Poisson pair ([`LossLaw::under`]), so this law is never composed there.
    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        match neighbors {
            Neighbors::Replace => Ok(1),
            Neighbors::AddRemove => {
                crate::fallible!(Internal, "{}: the fixed-size batches' symmetric pair composed under add/remove", self.spec())
            }
        }
    }

    /// Under add/remove: the Poisson pair of the mechanism at q = m/pop, whose sensitivity is `mu`, the
    /// distance a record's displacement moves the batch's sum (module doc, "Add/remove").
    fn under(&self, neighbors: Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        if neighbors != Neighbors::AddRemove {
            return None;
        }
        if self.m == self.pop {
            return Some(crate::fallible!(
                Input,
                "{}: under add/remove the neighbour with one record fewer has fewer than m = pop = {} records to draw a batch from; give m < pop, or --neighbors replace",
                self.spec(),
                self.pop
            ));
        }
        Some(Ok(Arc::new(self.inner.clone())))
    }

    /// The Gaussian's and the Laplace mechanism's laws (2) have certified moment generating functions
    /// (`noise::mgf_wor`); with the whole data set in every batch (m = pop) the pair is the mechanism's own.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        use crate::noise::mgf::Mgf;
        let q = self.inner.q().clone();
        if self.m == self.pop {
            return self.inner.base().mgf();
        }
        if let Some(eta) = self.inner.base().gaussian_eta() {
            return Some(Mgf::WorGaussian { q, eta });
        }
        match self.inner.base().mgf()? {
            Mgf::Laplace { eps0 } => Some(Mgf::WorLaplace { q, eps0 }),
            _ => None,
        }
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        let b = self.inner.base().scaled(c)?;
        Some(b.and_then(|b| SampledWithoutReplacement::new(b, self.m, self.pop).map(|s| Arc::new(s) as Arc<dyn LossLaw>)))
    }
}

#[cfg(test)]
mod tests;
