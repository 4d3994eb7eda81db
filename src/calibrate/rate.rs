//! The sampling rate a budget allows (#53 item 5, "or the sampling rate"): the largest Poisson sampling
//! probability q, on a stated resolution, whose composition meets a target (ε at δ, or an attack target,
//! `calibrate::target`) — certified both ways. The returned q provably meets the target (the upper end of
//! its certified measure is at or below it) and q plus one resolution step provably does not (the lower
//! end of its bracket is above it, a bracket of the exact guarantee).
//!
//! Monotonicity: for q < q', each step's dominating pair at q is a post-processing of the pair at q' by
//! one Markov kernel — keep the output with probability q/q', else replace it by a fresh draw of the
//! record-free output distribution P. It maps (1 − q')P + q'Q to (1 − q)P + qQ and P to P (add/remove),
//! and likewise both mixtures of the replace pair; the product of the kernels does the same to the
//! composed pairs. Hockey-stick divergences cannot grow under a kernel, so ε(δ), the advantage and the TPR
//! at any FPR do not decrease with q, and the bisection on the lattice of q is sound for any term with a
//! `q=?` hole.

use crate::account::{Certified, Options};
use crate::calibrate::hole::Hole;
use crate::calibrate::search::{down_to_a_meet, refine_largest};
use crate::calibrate::sigma::meets;
use crate::calibrate::target::{show, CalibrationTarget as Target};
use crate::error::Fallible;
use crate::fallible;
use crate::model::{Composition, Neighbors};
use rug::{Integer, Rational};

/// The calibrated sampling rate with the certified measures that prove it: `measure` at `q` is at or
/// below the target, `measure_above` at `above` (one resolution step more) is above it.
pub struct RateFit {
    pub q: Rational,
    pub measure: Certified,
    pub above: Rational,
    pub measure_above: Certified,
    /// compositions accounted during the search
    pub probes: usize,
}

/// A composition with one unknown sampling rate: `…,q=?` in one term among fixed ones.
pub struct RateHole(Hole);

impl RateHole {
    /// Exactly one term holds `q=?` and no other `?`.
    pub fn parse(terms: &[String], neighbors: Neighbors) -> Fallible<RateHole> {
        let check = |t: &str| {
            if !Hole::keys(t).contains(&"q=?") {
                return fallible!(Input, "'{t}': the unknown sampling rate is written q=? (e.g. gauss:sigma=1.1,q=?,n=14070)");
            }
            Ok(())
        };
        Hole::parse(terms, neighbors, check, "1/2").map(RateHole)
    }

    /// The composition at sampling rate q.
    pub fn composition(&self, q: &Rational) -> Fallible<Composition> {
        self.0.composition(&format!("{}/{}", q.numer(), q.denom()))
    }
}

/// The largest q = k·resolution ≤ 1 (k ≥ 1) meeting the target, with its certificate (module doc): the
/// top of the lattice first (q = 1 meeting it needs no subsampling, and is refused), then down by factors
/// of 16 to a rate that meets it, then interpolation on (ln q, ln m) safeguarded by bisection.
pub fn largest_rate(hole: &RateHole, target: &Target, resolution: &Rational, opts: &Options) -> Fallible<RateFit> {
    target.check()?;
    if *resolution <= 0 || *resolution > 1 {
        return fallible!(Input, "--resolution must be in (0, 1]");
    }
    let at = |k: &Integer| Rational::from(resolution * k);
    let top = Integer::from((Rational::from(1) / resolution).floor_ref());
    let mut probes = 0;
    let mut probe = |k: &Integer| -> Fallible<(bool, Certified)> {
        probes += 1;
        let comp = hole.composition(&at(k))?;
        meets(&comp, target, opts, "give a coarser --resolution").map_err(|e| e.context(format!("at q = {}", show(&at(k)))))
    };
    let hi = match probe(&top)? {
        (false, c) => (top.clone(), c),
        (true, _) => {
            return fallible!(
                Input,
                "the target {} is met even at q = {}: every sampling rate on the resolution meets it",
                target.name(),
                show(&at(&top))
            )
        }
    };
    // down by factors of 16 until a rate meets the target: a tiny rate is the dearest composition to
    // account (a spiky loss law), so the bottom of the lattice is probed only when the answer is near it
    let (lo, hi) = down_to_a_meet(hi, "q", resolution, target, &mut probe)?;
    let (lo, hi) = refine_largest(lo, hi, target.value(), &mut probe)?;
    Ok(RateFit { q: at(&lo.0), measure: lo.1, above: at(&hi.0), measure_above: hi.1, probes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// q = 1 is no subsampling, so for n Gaussian steps the answer brackets the Gaussian's own target: at
    /// σ = 2 and n = 10 (μ = √10/2 ≈ 1.58, advantage 2Φ(0.79) − 1 = 0.570) a target of 0.571 is met by
    /// every q and refused; the certificate holds both ways for a smaller target, on the tilted engine.
    #[test]
    fn a_subsampled_gaussian_rate_carries_its_certificate() {
        let hole = RateHole::parse(&["gauss:sigma=2,q=?,n=10".to_string()], Neighbors::AddRemove).unwrap();
        let fit = largest_rate(&hole, &Target::Advantage(q("0.2")), &q("0.01"), &Options::default()).unwrap();
        assert!(*fit.measure.hi() <= q("0.2") && *fit.measure_above.lo() > q("0.2"), "q = {}", fit.q);
        assert_eq!(fit.above, &fit.q + q("0.01"));
        assert_eq!(fit.measure_above.trust(), crate::account::Trust::Exact);
        // the measure grows with q: ε at the answer is below ε at one step more, and below q = 1's
        let e = Target::Epsilon { delta: q("1e-5"), eps: q("2") };
        let f = largest_rate(&hole, &e, &q("0.01"), &Options::default()).unwrap();
        assert!(*f.measure.hi() <= 2 && *f.measure_above.lo() > 2 && f.q < 1);
        let all = largest_rate(&hole, &Target::Advantage(q("0.571")), &q("0.01"), &Options::default()).err().unwrap();
        assert!(all.to_string().contains("met even at q = 1"), "{all}");
    }

    #[test]
    fn bad_holes_and_unreachable_targets_are_refused() {
        for terms in [vec!["gauss:sigma=1,q=0.1,n=10"], vec!["gauss:sigma=?,q=?,n=10"], vec!["gauss:sigma=1,q=?,n=?"]] {
            let t: Vec<String> = terms.iter().map(|s| s.to_string()).collect();
            assert!(RateHole::parse(&t, Neighbors::AddRemove).is_err(), "{terms:?}");
        }
        // one pure-DP step of ε = 1 already misses ε ≤ 1/2 at the smallest rate 1/2 (ε(q) = ln(1 + q(e − 1)) = 0.62)
        let hole = RateHole::parse(&["laplace:scale=1,q=?".to_string()], Neighbors::AddRemove).unwrap();
        let e = largest_rate(&hole, &Target::Epsilon { delta: q("1e-5"), eps: q("1/2") }, &q("1/2"), &Options::default()).err().unwrap();
        assert!(e.to_string().contains("missed even at q = 0.5"), "{e}");
    }
}
