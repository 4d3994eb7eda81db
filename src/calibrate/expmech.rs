//! The ε of one exponential mechanism a budget allows: the largest ε, on a stated resolution, such that the
//! composition with `expmech:epsilon=?` (n releases at that ε, among fixed terms) meets a target (ε at δ,
//! or an attack target, `calibrate::target`). The returned ε's bound provably meets the target and the
//! bound at ε plus one resolution step provably misses it; the bound is calibrated, as for random
//! allocation (trust `certified-bound`: `noise::bounded_range`).
//!
//! Monotonicity: an ε-bounded-range mechanism is ε′-bounded-range for every ε′ > ε, so both bounds of
//! `noise::bounded_range` can only grow with ε: the class's dominating pair at ε has the trade-off function
//! inf over the smaller class, at least the one at ε′ (a post-processing of the pair at ε′, so its
//! compositions' divergences are no larger), and the class's Rényi divergences are suprema over the
//! smaller class; the conversion of Rényi divergences is monotone in them, and so is the smaller of two
//! monotone bounds. The search on the lattice of ε is sound.

use crate::account::{Certified, Options};
use crate::calibrate::hole::Hole;
use crate::calibrate::search::{down_to_a_meet, refine_largest};
use crate::calibrate::sigma::meets;
use crate::calibrate::target::{show, CalibrationTarget as Target};
use crate::error::Fallible;
use crate::fallible;
use crate::model::{Composition, Neighbors};
use rug::{Integer, Rational};

/// The largest ε tried before the target is declared met everywhere.
const MAX_EPSILON: u32 = 1000;

/// The calibrated ε with the certified measures that prove it: `measure` at `epsilon` is at or below the
/// target, `measure_above` at `above` (one resolution step more) is above it.
pub struct EpsilonFit {
    pub epsilon: Rational,
    pub measure: Certified,
    pub above: Rational,
    pub measure_above: Certified,
    /// compositions accounted during the search
    pub probes: usize,
}

/// A composition with one unknown ε of exponential mechanisms: `expmech:epsilon=?` among fixed terms.
pub struct EpsilonHole(Hole);

impl EpsilonHole {
    /// Exactly one term holds `epsilon=?`, and that term is an `expmech:` term.
    pub fn parse(terms: &[String], neighbors: Neighbors) -> Fallible<EpsilonHole> {
        let check = |t: &str| {
            if !t.starts_with("expmech:") || !Hole::keys(t).contains(&"epsilon=?") {
                return fallible!(
                    Input,
                    "'{t}': an unknown epsilon is the exponential mechanism's, written expmech:epsilon=? (e.g. expmech:epsilon=?,n=10)"
                );
            }
            Ok(())
        };
        Hole::parse(terms, neighbors, check, "1").map(EpsilonHole)
    }

    /// The composition at ε.
    pub fn composition(&self, eps: &Rational) -> Fallible<Composition> {
        self.0.composition(&format!("{}/{}", eps.numer(), eps.denom()))
    }
}

/// The largest ε = k·resolution (k ≥ 1) meeting the target, with its certificate (module doc): ε = 1
/// first, then up or down by factors of 16 to a bracket, then interpolation safeguarded by bisection.
pub fn largest_epsilon(hole: &EpsilonHole, target: &Target, resolution: &Rational, opts: &Options) -> Fallible<EpsilonFit> {
    target.check()?;
    if *resolution <= 0 || *resolution > 1 {
        return fallible!(Input, "--resolution must be in (0, 1]");
    }
    let at = |k: &Integer| Rational::from(resolution * k);
    let top = Integer::from((Rational::from(MAX_EPSILON) / resolution).floor_ref());
    let mut probes = 0;
    let mut probe = |k: &Integer| -> Fallible<(bool, Certified)> {
        probes += 1;
        let comp = hole.composition(&at(k))?;
        meets(&comp, target, opts, "give a coarser --resolution").map_err(|e| e.context(format!("at epsilon = {}", show(&at(k)))))
    };
    let start = Integer::from((Rational::from(1) / resolution).ceil_ref());
    let (lo, hi) = match probe(&start)? {
        (true, c) => {
            let mut lo = (start, c);
            loop {
                if lo.0 >= top {
                    return fallible!(Input, "the target {} is met even at epsilon = {}", target.name(), show(&at(&lo.0)));
                }
                let k = Integer::from(&lo.0 * 16).min(top.clone());
                match probe(&k)? {
                    (true, c) => lo = (k, c),
                    (false, c) => break (lo, (k, c)),
                }
            }
        }
        (false, c) => down_to_a_meet((start, c), "epsilon", resolution, target, &mut probe)?,
    };
    let (lo, hi) = refine_largest(lo, hi, target.value(), &mut probe)?;
    Ok(EpsilonFit { epsilon: at(&lo.0), measure: lo.1, above: at(&hi.0), measure_above: hi.1, probes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// The largest ε of three releases within ε = 1.3866624… (scripts/reference/bounded_range.txt: mpmath's
    /// Rényi route at ε = 1/2, n = 3, 1.38666240903489116397980710922) is 1/2 on the resolution 1/100:
    /// 1/2 meets it (the value itself), 51/100 misses.
    #[test]
    fn three_releases_recover_the_reference_epsilon() {
        let hole = EpsilonHole::parse(&["expmech:epsilon=?,n=3".to_string()], Neighbors::AddRemove).unwrap();
        let t = Target::Epsilon { delta: q("1e-5"), eps: q("1.3866624090348911639798071093") };
        let fit = largest_epsilon(&hole, &t, &q("1/100"), &Options::default()).unwrap();
        assert_eq!((fit.epsilon.clone(), fit.above.clone()), (q("1/2"), q("51/100")));
        assert!(*fit.measure.hi() <= *t.value() && *fit.measure_above.lo() > *t.value());
        assert_eq!(fit.measure.trust(), crate::account::Trust::Bound);
    }

    #[test]
    fn bad_holes_and_unreachable_targets_are_refused() {
        for terms in [vec!["expmech:epsilon=1,n=3"], vec!["laplace:epsilon=?"], vec!["expmech:epsilon=?,n=?"]] {
            let t: Vec<String> = terms.iter().map(|s| s.to_string()).collect();
            assert!(EpsilonHole::parse(&t, Neighbors::AddRemove).is_err(), "{terms:?}");
        }
        let hole = EpsilonHole::parse(&["expmech:epsilon=?,n=1000".to_string()], Neighbors::AddRemove).unwrap();
        let e = largest_epsilon(&hole, &Target::Epsilon { delta: q("1e-5"), eps: q("1/100") }, &q("1/10"), &Options::default());
        assert!(e.err().unwrap().to_string().contains("missed even at epsilon = 0.1"));
        let hole = EpsilonHole::parse(&["expmech:epsilon=?".to_string()], Neighbors::AddRemove).unwrap();
        let e = largest_epsilon(&hole, &Target::Epsilon { delta: q("1e-5"), eps: q("5000") }, &q("1"), &Options::default());
        assert!(e.err().unwrap().to_string().contains("met even at epsilon = 1000"));
    }
}
