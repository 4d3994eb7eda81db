//! The ε of one mechanism a budget allows: the largest ε, on a stated resolution, such that the
//! composition with one `epsilon=?` term (n releases at that ε, among fixed terms) meets a target (ε at δ,
//! or an attack target, `calibrate::target`). The returned ε's guarantee provably meets the target and the
//! one at ε plus one resolution step provably misses it. Four kinds take the hole:
//!
//! * `expmech:epsilon=?`, the exponential mechanism: its bound is calibrated, as for random allocation
//!   (trust `certified-bound`: `noise::bounded_range`). An ε-bounded-range mechanism is ε′-bounded-range
//!   for every ε′ > ε, so both bounds of `noise::bounded_range` can only grow with ε: the class's dominating
//!   pair at ε has the trade-off function inf over the smaller class, at least the one at ε′ (a
//!   post-processing of the pair at ε′, so its compositions' divergences are no larger), and the class's
//!   Rényi divergences are suprema over the smaller class; the conversion of Rényi divergences is monotone
//!   in them, and so is the smaller of two monotone bounds.
//! * `dp:epsilon=?[,delta=D]`, a stated guarantee: the worst case f_{ε,δ} [KOV15] decreases pointwise in ε.
//! * `rr:epsilon=?[,k=K]`, k-ary randomized response: its channel keeps the letter with weight
//!   a(ε) = (e^ε − 1)/(e^ε + k − 1) and draws a uniform letter otherwise; such channels compose by
//!   multiplying their weights, so the channel at ε is the one at ε′ > ε followed by the one of weight
//!   a(ε)/a(ε′): a post-processing.
//! * `laplace:epsilon=?`, the Laplace mechanism at scale μ/ε, a shift a = ε of a log-concave density: the
//!   likelihood ratio is monotone in the output, the most powerful tests are thresholds, and the
//!   trade-off function F(F⁻¹(1 − α) − a) (F the noise's distribution function) decreases with a.
//!   Refused with `q=` under replace: that pair mixes three shifts (`noise/poisson_replace*.rs`), which no
//!   one kernel carries from ε′ to ε, and its order in ε is not shown here.
//!
//! In each, the trade-off function at ε is at least the one at ε′ > ε, so the pair at ε is a
//! post-processing of the pair at ε′ (Blackwell's theorem, [DRS22, §2]), and the order survives what the
//! terms add: Poisson sampling (`q=`; the kernel carries the record-free output to itself), batches
//! without replacement (C_γ [DRS22, Thm 9] is monotone in f) and composition (the kernel applied to one
//! factor of the product). So ε(δ), the advantage and the TPR at any FPR do not decrease with ε, and the
//! search on the lattice of ε is sound.

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

/// The kinds whose ε can be the unknown (module doc: each is monotone in it).
const KINDS: [&str; 4] = ["expmech:", "dp:", "rr:", "laplace:"];

/// A composition with one unknown ε of one mechanism: `expmech:epsilon=?`, `dp:epsilon=?`, `rr:epsilon=?`
/// or `laplace:epsilon=?` among fixed terms.
pub struct EpsilonHole(Hole);

impl EpsilonHole {
    /// Exactly one term holds `epsilon=?`, and that term is of a kind of [`KINDS`].
    pub fn parse(terms: &[String], neighbors: Neighbors) -> Fallible<EpsilonHole> {
        let check = |t: &str| {
            if !KINDS.iter().any(|k| t.starts_with(k)) || !Hole::keys(t).contains(&"epsilon=?") {
                return fallible!(
                    Input,
                    "'{t}': an unknown epsilon is written epsilon=? in an expmech:, dp:, rr: or laplace: term (e.g. expmech:epsilon=?,n=10 or dp:epsilon=?,q=1/100,n=1000)"
                );
            }
            if t.starts_with("laplace:") && neighbors == Neighbors::Replace && Hole::keys(t).iter().any(|k| k.starts_with("q=")) {
                return fallible!(
                    Input,
                    "'{t}': the Laplace mechanism's epsilon is not calibrated on a Poisson sample under replace neighbours (its pair mixes three shifts, whose order in epsilon is not shown); calibrate it under add-remove or on fixed-size batches (sampling=wor,m=M,pop=P)"
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

    /// The largest ε of `term` (one `epsilon=?`) within `target` at δ = 1e-5 on the resolution 1/100.
    fn fit(term: &str, nb: Neighbors, target: &str) -> EpsilonFit {
        let hole = EpsilonHole::parse(&[term.to_string()], nb).unwrap();
        let t = Target::Epsilon { delta: q("1e-5"), eps: q(target) };
        let fit = largest_epsilon(&hole, &t, &q("1/100"), &Options::default()).unwrap();
        assert!(*fit.measure.hi() <= *t.value() && *fit.measure_above.lo() > *t.value(), "{term}");
        fit
    }

    /// A stated guarantee, randomized response and the Laplace mechanism, against a reference ε of each at
    /// ε₀ (mpmath, independent of the code). The search decides at up to 6 digits, so each target sits a
    /// few millionths above the reference: ε₀ meets it, its bracket holds the reference, ε₀ + 1/100 misses.
    /// - 100 × (1, 0)-DP on a Poisson sample of 1/10: 4.73235464450878418173976774654218
    ///   (`scripts/reference/poisson_approx_dp.txt`).
    /// - 50 reports of binary randomized response at ε₀ = 1: 45.676142751655838404328901406403
    ///   (`scripts/reference/randomized_response_epsilon.txt`).
    /// - 100 Laplace releases at ε₀ = 1/10: 4.220347325080359582009961
    ///   (`scripts/reference/laplace_many.txt`).
    #[test]
    fn other_mechanisms_recover_the_reference_epsilon() {
        let cases = [
            ("dp:epsilon=?,q=1/10,n=100", Neighbors::AddRemove, "4.73237", "4.73235464450878418173976774654218", "1"),
            ("rr:epsilon=?,n=50", Neighbors::Replace, "45.6763", "45.676142751655838404328901406403", "1"),
            ("laplace:epsilon=?,n=100", Neighbors::AddRemove, "4.22036", "4.220347325080359582009961", "1/10"),
        ];
        for (term, nb, target, reference, eps) in cases {
            let f = fit(term, nb, target);
            assert_eq!((f.epsilon.clone(), f.above.clone()), (q(eps), q(eps) + q("1/100")), "{term}");
            assert!(*f.measure.lo() <= q(reference) && q(reference) <= *f.measure.hi(), "{term}");
        }
        // A stated guarantee's bound is trusted as a bound; randomized response's is exact.
        assert_eq!(fit(cases[0].0, cases[0].1, cases[0].2).measure.trust(), crate::account::Trust::Bound);
        assert_eq!(fit(cases[1].0, cases[1].1, cases[1].2).measure.trust(), crate::account::Trust::Exact);
    }

    #[test]
    fn bad_holes_and_unreachable_targets_are_refused() {
        for terms in [vec!["expmech:epsilon=1,n=3"], vec!["gauss:epsilon=?"], vec!["expmech:epsilon=?,n=?"], vec!["dp:epsilon=1,delta=?"]] {
            let t: Vec<String> = terms.iter().map(|s| s.to_string()).collect();
            assert!(EpsilonHole::parse(&t, Neighbors::AddRemove).is_err(), "{terms:?}");
        }
        // The Laplace mechanism on a Poisson sample under replace: its order in ε is not shown.
        let t = ["laplace:epsilon=?,q=1/10,n=10".to_string()];
        assert!(EpsilonHole::parse(&t, Neighbors::AddRemove).is_ok());
        let e = EpsilonHole::parse(&t, Neighbors::Replace).err().unwrap().to_string();
        assert!(e.contains("not calibrated on a Poisson sample under replace"), "{e}");
        let hole = EpsilonHole::parse(&["expmech:epsilon=?,n=1000".to_string()], Neighbors::AddRemove).unwrap();
        let e = largest_epsilon(&hole, &Target::Epsilon { delta: q("1e-5"), eps: q("1/100") }, &q("1/10"), &Options::default());
        assert!(e.err().unwrap().to_string().contains("missed even at epsilon = 0.1"));
        let hole = EpsilonHole::parse(&["expmech:epsilon=?".to_string()], Neighbors::AddRemove).unwrap();
        let e = largest_epsilon(&hole, &Target::Epsilon { delta: q("1e-5"), eps: q("5000") }, &q("1"), &Options::default());
        assert!(e.err().unwrap().to_string().contains("met even at epsilon = 1000"));
    }
}
