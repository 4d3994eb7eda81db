//! DP-SGD calibration (#53 item 5): the smallest noise multiplier σ, on a stated resolution, whose
//! composition meets a target — ε at δ, or an attack target (`calibrate::target`) — certified both ways.
//! The returned σ provably meets the target (the upper end of its certified measure is at or below it) and
//! σ minus one resolution step provably does not (the lower end of its bracket is above it). Each probe
//! asks the accountant for few digits first and more only while its bracket straddles the target, so the
//! far probes of the search are cheap.
//!
//! Monotonicity: a Gaussian of standard deviation σ' > σ is the Gaussian of σ followed by independent
//! Gaussian noise of variance σ'² − σ², a post-processing that commutes with Poisson subsampling and with
//! composition; so ε(δ), the advantage and the TPR at any FPR do not increase with σ, and the search on
//! the lattice of σ is sound. This holds for `gauss:` terms (with or without `q=`) and for random
//! allocation (`alloc:`, each step's output noised on its own), the only ones a hole `sigma=?` is accepted
//! in. Random allocation (one step of t per record) is known by a bracket of its exact value that narrows
//! like h² within the work budget (`account::engines::allocation`): where the last probe's bracket still
//! straddles the target, its upper end is calibrated, a certified upper bound (the returned σ's upper end
//! meets the target, the next smaller σ's misses it; trust `certified-bound`), as the Rényi bound of k of t
//! steps is.

use crate::account::{Accountant, Certified, Engine, Options};
use crate::calibrate::hole::Hole;
use crate::calibrate::target::{show, CalibrationTarget as Target};
use crate::error::Fallible;
use crate::model::{Composition, Neighbors};
use crate::{err, fallible};
use rug::{Integer, Rational};

/// The digits asked of a probe, in order: a probe stops at the first whose bracket decides it.
const PROBE_DIGITS: [u32; 4] = [2, 3, 4, 6];
/// The largest multiple of the resolution tried before the target is declared out of reach.
const MAX_SIGMA: u32 = 1000;

/// The calibrated σ with the certified measures that prove it: `measure` at `sigma` is at or below the
/// target, `measure_below` at `below` (one resolution step less) is above it.
pub struct SigmaFit {
    pub sigma: Rational,
    pub measure: Certified,
    pub below: Rational,
    pub measure_below: Certified,
    /// compositions accounted during the search
    pub probes: usize,
}

/// A composition with one unknown σ: `gauss:sigma=?,…` among fixed terms, all under one relation.
pub struct SigmaHole(Hole);

impl SigmaHole {
    /// Exactly one term holds `sigma=?`, and that term is a `gauss:` mechanism.
    pub fn parse(terms: &[String], neighbors: Neighbors) -> Fallible<SigmaHole> {
        let check = |t: &str| {
            if !(t.starts_with("gauss:") || t.starts_with("alloc:")) || !Hole::keys(t).contains(&"sigma=?") {
                return fallible!(
                    Input,
                    "'{t}': the unknown must be the noise multiplier of a Gaussian term (gauss: or alloc:), written sigma=? (e.g. gauss:sigma=?,q=256/60000,n=14070)"
                );
            }
            Ok(())
        };
        Hole::parse(terms, neighbors, check, "1").map(SigmaHole)
    }

    /// The composition at noise multiplier σ.
    pub fn composition(&self, sigma: &Rational) -> Fallible<Composition> {
        self.0.composition(&format!("{}/{}", sigma.numer(), sigma.denom()))
    }
}

/// Whether the composition at σ meets the target, with the bracket that decides it.
fn decide(hole: &SigmaHole, sigma: &Rational, target: &Target, opts: &Options) -> Fallible<(bool, Certified)> {
    let comp = hole.composition(sigma)?;
    meets(&comp, target, opts, "give a coarser --resolution").map_err(|e| e.context(format!("at sigma = {}", show(sigma))))
}

/// Whether a composition meets the target, with the certified measure that decides it: few digits first,
/// more only while the bracket straddles the target; a miss only on a bracket of the exact guarantee (a
/// certified bound above the target proves nothing).
pub(crate) fn meets(comp: &Composition, target: &Target, opts: &Options, advice: &str) -> Fallible<(bool, Certified)> {
    let mut last = None;
    for &d in PROBE_DIGITS.iter().filter(|&&d| d <= opts.digits.max(PROBE_DIGITS[0])) {
        let acc = Accountant::new(comp.clone(), Options { digits: d, ..opts.clone() })?;
        let c = target.measure(&acc)?;
        if let Some(side) = target.decides(&c) {
            return Ok((side, c));
        }
        last = Some(c);
    }
    let c = last.ok_or_else(|| err!(Internal, "no probe ran"))?;
    // random allocation's pairs narrow like h² within the work budget, short of the digits a search needs
    // near its end: their upper end is calibrated, a certified upper bound (as the Rényi bound was)
    if c.engine() == Engine::AllocationPairs {
        let b = c.upper_end_as_bound(c.detail().to_string());
        if let Some(side) = target.decides(&b) {
            return Ok((side, b));
        }
    }
    fallible!(
        Resource,
        "the certified {} bracket [{}, {}] contains the target {}: {advice}",
        target.name(),
        c.lo_str(8),
        c.hi_str(8),
        target.show()
    )
}

/// The smallest σ = k·resolution (k ≥ 1) meeting ε(δ) ≤ target, with its certificate (module doc).
pub fn smallest_sigma(hole: &SigmaHole, target: &Target, resolution: &Rational, opts: &Options) -> Fallible<SigmaFit> {
    target.check()?;
    if *resolution <= 0 {
        return fallible!(Input, "the resolution must be positive");
    }
    let at = |k: &Integer| Rational::from(resolution * k);
    let max_k = Integer::from((Rational::from(MAX_SIGMA) / resolution).ceil_ref());
    let mut probes = 0;
    let mut probe = |k: &Integer| -> Fallible<(bool, Certified)> {
        probes += 1;
        decide(hole, &at(k), target, opts)
    };
    // a bracket [k_lo, k_hi] with k_lo missing the target and k_hi meeting it, by doubling or halving from σ = 1
    let inv: Rational = 1 / resolution.clone();
    let mut k = Integer::from(inv.ceil_ref()).max(Integer::from(1));
    let (mut lo, mut hi) = match probe(&k)? {
        (true, c) => (None, Some((k.clone(), c))),
        (false, c) => (Some((k.clone(), c)), None),
    };
    while lo.is_none() {
        if k == 1 {
            return fallible!(
                Input,
                "every sigma on the resolution meets the target, down to sigma = {}: give a finer --resolution",
                show(&at(&k))
            );
        }
        k = Integer::from(&k / 2).max(Integer::from(1));
        match probe(&k)? {
            (true, c) => hi = Some((k.clone(), c)),
            (false, c) => lo = Some((k.clone(), c)),
        }
    }
    let mut lo = lo.expect("invariant: the loop above sets one end");
    while hi.is_none() {
        if k >= max_k {
            return fallible!(Input, "the target {} is not met even at sigma = {}", target.name(), show(&at(&k)));
        }
        k = Integer::from(&k * 2).min(max_k.clone());
        match probe(&k)? {
            (true, c) => hi = Some((k.clone(), c)),
            (false, c) => lo = (k.clone(), c),
        }
    }
    let mut hi = hi.expect("invariant: the loop above sets the upper end");
    while Integer::from(&hi.0 - &lo.0) > 1 {
        let mid = Integer::from(&lo.0 + &hi.0) / 2;
        match probe(&mid)? {
            (true, c) => hi = (mid, c),
            (false, c) => lo = (mid, c),
        }
    }
    Ok(SigmaFit { sigma: at(&hi.0), measure: hi.1, below: at(&lo.0), measure_below: lo.1, probes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Trust;

    /// (n, delta, target, resolution, sigma, eps at sigma, eps at sigma - resolution) of
    /// scripts/reference/sigma_calibration.txt (mpmath quadrature of the Gaussian's privacy profile).
    fn reference() -> Vec<[String; 7]> {
        let text = include_str!("../../scripts/reference/sigma_calibration.txt");
        crate::num::reference::rows(text).into_iter().map(|v| std::array::from_fn(|i| v[i].to_string())).collect()
    }

    /// The bracket meets the reference's rounding interval (the engines' test helper).
    fn holds(c: &Certified, value: &str) {
        assert!(crate::account::engines::holds(&c.interval(), value), "[{}, {}] misses {value}", c.lo_str(25), c.hi_str(25));
    }

    #[test]
    fn the_gaussian_noise_multiplier_is_the_mpmath_one() {
        let rows = reference();
        assert_eq!(rows.len(), 4);
        for [n, delta, target, res, sigma, eps_at, eps_below] in rows {
            let hole = SigmaHole::parse(&[format!("gauss:sigma=?,n={n}")], Neighbors::AddRemove).unwrap();
            let q = |s: &str| crate::num::parse_rational(s).unwrap();
            let t = Target::Epsilon { delta: q(&delta), eps: q(&target) };
            let fit = smallest_sigma(&hole, &t, &q(&res), &Options::default()).unwrap();
            assert_eq!(fit.sigma, q(&sigma), "n = {n}");
            assert_eq!(fit.below, &fit.sigma - q(&res));
            holds(&fit.measure, &eps_at);
            holds(&fit.measure_below, &eps_below);
            // the certificate: the answer meets the target, one step less provably does not
            assert!(*fit.measure.hi() <= q(&target) && *fit.measure_below.lo() > q(&target));
        }
    }

    /// Attack targets on n Gaussian steps (μ-GDP, μ = √n/σ): the smallest σ whose advantage, or TPR at a
    /// stated FPR, is at or below the target, and the measures at σ and one resolution step below, from
    /// scripts/reference/attack_gaussian.txt (mpmath: the closed forms [DRS22, §2.3] solved for σ).
    #[test]
    fn attack_targets_give_the_mpmath_noise_multiplier() {
        let rows = crate::num::reference::rows(include_str!("../../scripts/reference/attack_gaussian.txt"));
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let mut seen = 0;
        for r in rows.iter().filter(|r| r[0] == "advantage" || r[0] == "tpr") {
            let [kind, fpr, n, target, res, sigma, at, below, at_below] = [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]];
            let t = if kind == "advantage" { Target::Advantage(q(target)) } else { Target::Tpr { tpr: q(target), fpr: q(fpr) } };
            let hole = SigmaHole::parse(&[format!("gauss:sigma=?,n={n}")], Neighbors::AddRemove).unwrap();
            let fit = smallest_sigma(&hole, &t, &q(res), &Options::default()).unwrap();
            assert_eq!((&fit.sigma, &fit.below), (&q(sigma), &q(below)), "{r:?}");
            holds(&fit.measure, at);
            holds(&fit.measure_below, at_below);
            assert!(*fit.measure.hi() <= q(target) && *fit.measure_below.lo() > q(target), "{r:?}");
            seen += 1;
        }
        assert_eq!(seen, 4);
    }

    #[test]
    fn a_subsampled_composition_is_calibrated_with_its_certificate() {
        // (the DP-SGD setting itself, MNIST, is the heavy CLI test dp_sgd_noise_multiplier_for_epsilon_8)
        let hole = SigmaHole::parse(&["gauss:sigma=?,q=1/10,n=10".to_string()], Neighbors::AddRemove).unwrap();
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let t = Target::Epsilon { delta: q("1e-5"), eps: q("1") };
        let fit = smallest_sigma(&hole, &t, &q("0.1"), &Options::default()).unwrap();
        assert!(*fit.measure.hi() <= 1 && *fit.measure_below.lo() > 1);
        assert_eq!(fit.measure_below.trust(), Trust::Exact);
        // Poisson subsampling only helps: the answer is below the Gaussian's for the same 10 steps
        let plain = SigmaHole::parse(&["gauss:sigma=?,n=10".to_string()], Neighbors::AddRemove).unwrap();
        let full = smallest_sigma(&plain, &t, &q("0.1"), &Options::default()).unwrap();
        assert!(fit.sigma < full.sigma, "{} vs {}", fit.sigma, full.sigma);
    }

    /// Fixed-size batches (`sampling=wor`) are accounted by a certified upper bound: the search calibrates the
    /// bound (monotone in σ as the guarantee is), the returned σ meets the target, and both measures carry
    /// the bound's trust (the next σ's bound misses; that the mechanism misses is not shown). With the whole
    /// data set in every batch the law is the Gaussian's own: the same σ as the plain Gaussian of that
    /// sensitivity, exact.
    #[test]
    fn fixed_size_batches_calibrate_their_bound() {
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let t = Target::Epsilon { delta: q("1e-5"), eps: q("2") };
        let fit_of = |spec: &str, nb: Neighbors| {
            let hole = SigmaHole::parse(&[spec.to_string()], nb).unwrap();
            smallest_sigma(&hole, &t, &q("0.1"), &Options::default()).unwrap()
        };
        let wor = fit_of("gauss:sigma=?,mu=2,sampling=wor,m=5,pop=50,n=300", Neighbors::Replace);
        assert!(*wor.measure.hi() <= 2 && *wor.measure_below.lo() > 2);
        assert_eq!((wor.measure.trust(), wor.measure_below.trust()), (Trust::Bound, Trust::Bound));
        assert_eq!(wor.below, wor.sigma.clone() - q("0.1"));
        let whole = fit_of("gauss:sigma=?,mu=2,sampling=wor,m=50,pop=50,n=300", Neighbors::Replace);
        let plain = fit_of("gauss:sigma=?,mu=2,n=300", Neighbors::AddRemove);
        assert_eq!((&whole.sigma, whole.measure.trust()), (&plain.sigma, Trust::Exact));
        // batches of a tenth amplify: less noise than the whole data set needs
        assert!(wor.sigma < whole.sigma, "{} vs {}", wor.sigma, whole.sigma);
    }

    #[test]
    fn a_hole_outside_a_gaussian_sigma_is_refused() {
        for terms in [
            vec!["gauss:sigma=1,n=10".to_string()],
            vec!["laplace:scale=?,n=10".to_string()],
            vec!["gauss:sigma=?,n=?".to_string()],
            vec!["gauss:sigma=?,n=10".to_string(), "gauss:sigma=?,n=3".to_string()],
            vec!["gauss:sigma=?,n=0".to_string()],
        ] {
            let e = SigmaHole::parse(&terms, Neighbors::AddRemove).err().unwrap_or_else(|| panic!("{terms:?} accepted"));
            assert_eq!(e.kind(), crate::error::ErrorKind::Input, "{terms:?}: {e}");
        }
    }
}
