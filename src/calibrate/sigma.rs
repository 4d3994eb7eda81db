//! DP-SGD calibration (#53 item 5): the smallest noise multiplier σ, on a stated resolution, whose
//! composition meets a target ε at δ — certified both ways. The returned σ provably meets the target (the
//! upper end of its certified ε bracket is at or below it) and σ minus one resolution step provably does
//! not (the lower end of its bracket is above it). Each probe asks the accountant for few digits first and
//! more only while its bracket straddles the target, so the far probes of the search are cheap.
//!
//! Monotonicity: a Gaussian of standard deviation σ' > σ is the Gaussian of σ followed by independent
//! Gaussian noise of variance σ'² − σ², a post-processing that commutes with Poisson subsampling and with
//! composition; so ε(δ) does not increase with σ and the search on the lattice of σ is sound. This holds
//! for `gauss:` terms (with or without `q=`), the only ones a hole `sigma=?` is accepted in.

use crate::account::{Accountant, Certified, Options, Trust};
use crate::calibrate::hole::Hole;
use crate::error::Fallible;
use crate::model::{Composition, Neighbors};
use crate::{err, fallible};
use rug::{Integer, Rational};

/// The digits asked of a probe, in order: a probe stops at the first whose bracket decides it.
const PROBE_DIGITS: [u32; 4] = [2, 3, 4, 6];
/// The largest multiple of the resolution tried before the target is declared out of reach.
const MAX_SIGMA: u32 = 1000;

/// The calibrated σ with the certified ε brackets that prove it: `eps` at `sigma` is at or below the
/// target, `eps_below` at `below` (one resolution step less) is above it.
pub struct SigmaFit {
    pub sigma: Rational,
    pub eps: Certified,
    pub below: Rational,
    pub eps_below: Certified,
    /// compositions accounted during the search
    pub probes: usize,
}

/// A composition with one unknown σ: `gauss:sigma=?,…` among fixed terms, all under one relation.
pub struct SigmaHole(Hole);

impl SigmaHole {
    /// Exactly one term holds `sigma=?`, and that term is a `gauss:` mechanism.
    pub fn parse(terms: &[String], neighbors: Neighbors) -> Fallible<SigmaHole> {
        let check = |t: &str| {
            if !t.starts_with("gauss:") || !Hole::keys(t).contains(&"sigma=?") {
                return fallible!(
                    Input,
                    "'{t}': the unknown must be the noise multiplier of a Gaussian term, written sigma=? (e.g. gauss:sigma=?,q=256/60000,n=14070)"
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

/// Whether the composition at σ meets ε(δ) ≤ target, with the bracket that decides it.
fn decide(hole: &SigmaHole, sigma: &Rational, delta: &Rational, target: &Rational, opts: &Options) -> Fallible<(bool, Certified)> {
    let comp = hole.composition(sigma)?;
    meets(&comp, delta, target, opts, "give a coarser --resolution").map_err(|e| e.context(format!("at sigma = {}", show(sigma))))
}

/// Whether a composition meets ε(δ) ≤ target, with the certified bracket that decides it: few digits
/// first, more only while the bracket straddles the target; a miss only on a bracket of the exact
/// guarantee (a certified bound above the target proves nothing).
pub(crate) fn meets(comp: &Composition, delta: &Rational, target: &Rational, opts: &Options, advice: &str) -> Fallible<(bool, Certified)> {
    let mut last = None;
    for &d in PROBE_DIGITS.iter().filter(|&&d| d <= opts.digits.max(PROBE_DIGITS[0])) {
        let acc = Accountant::new(comp.clone(), Options { digits: d, ..opts.clone() })?;
        let c = acc.epsilon(delta)?;
        if *c.hi() <= *target {
            return Ok((true, c));
        }
        // only a bracket of the exact guarantee proves that the target is missed
        if *c.lo() > *target && c.trust() == Trust::Exact {
            return Ok((false, c));
        }
        last = Some(c);
    }
    let c = last.ok_or_else(|| err!(Internal, "no probe ran"))?;
    fallible!(Resource, "the certified epsilon bracket [{}, {}] contains the target {}: {advice}", c.lo_str(8), c.hi_str(8), show(target))
}

/// The smallest σ = k·resolution (k ≥ 1) meeting ε(δ) ≤ target, with its certificate (module doc).
pub fn smallest_sigma(hole: &SigmaHole, delta: &Rational, target: &Rational, resolution: &Rational, opts: &Options) -> Fallible<SigmaFit> {
    if *resolution <= 0 || *target <= 0 {
        return fallible!(Input, "the resolution and the target epsilon must be positive");
    }
    let at = |k: &Integer| Rational::from(resolution * k);
    let max_k = Integer::from((Rational::from(MAX_SIGMA) / resolution).ceil_ref());
    let mut probes = 0;
    let mut probe = |k: &Integer| -> Fallible<(bool, Certified)> {
        probes += 1;
        decide(hole, &at(k), delta, target, opts)
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
    let mut lo = lo.unwrap();
    while hi.is_none() {
        if k >= max_k {
            return fallible!(Input, "the target epsilon is not met even at sigma = {}", show(&at(&k)));
        }
        k = Integer::from(&k * 2).min(max_k.clone());
        match probe(&k)? {
            (true, c) => hi = Some((k.clone(), c)),
            (false, c) => lo = (k.clone(), c),
        }
    }
    let mut hi = hi.unwrap();
    while Integer::from(&hi.0 - &lo.0) > 1 {
        let mid = Integer::from(&lo.0 + &hi.0) / 2;
        match probe(&mid)? {
            (true, c) => hi = (mid, c),
            (false, c) => lo = (mid, c),
        }
    }
    Ok(SigmaFit { sigma: at(&hi.0), eps: hi.1, below: at(&lo.0), eps_below: lo.1, probes })
}

/// A rational (σ, a target) as a decimal for messages.
pub(crate) fn show(s: &Rational) -> String {
    crate::num::format::fmt_nearest(&rug::Float::with_val(64, s), 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (n, delta, target, resolution, sigma, eps at sigma, eps at sigma - resolution) of
    /// scripts/reference/sigma_calibration.txt (mpmath quadrature of the Gaussian's privacy profile).
    fn reference() -> Vec<[String; 7]> {
        let text = include_str!("../../scripts/reference/sigma_calibration.txt");
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let v: Vec<String> = l.split_whitespace().map(String::from).collect();
                std::array::from_fn(|i| v[i].clone())
            })
            .collect()
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
            let fit = smallest_sigma(&hole, &q(&delta), &q(&target), &q(&res), &Options::default()).unwrap();
            assert_eq!(fit.sigma, q(&sigma), "n = {n}");
            assert_eq!(fit.below, &fit.sigma - q(&res));
            holds(&fit.eps, &eps_at);
            holds(&fit.eps_below, &eps_below);
            // the certificate: the answer meets the target, one step less provably does not
            assert!(*fit.eps.hi() <= q(&target) && *fit.eps_below.lo() > q(&target));
        }
    }

    #[test]
    fn a_subsampled_composition_is_calibrated_with_its_certificate() {
        // (the DP-SGD setting itself, MNIST, is the heavy CLI test dp_sgd_noise_multiplier_for_epsilon_8)
        let hole = SigmaHole::parse(&["gauss:sigma=?,q=1/10,n=10".to_string()], Neighbors::AddRemove).unwrap();
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let fit = smallest_sigma(&hole, &q("1e-5"), &q("1"), &q("0.1"), &Options::default()).unwrap();
        assert!(*fit.eps.hi() <= 1 && *fit.eps_below.lo() > 1);
        assert_eq!(fit.eps_below.trust(), Trust::Exact);
        // Poisson subsampling only helps: the answer is below the Gaussian's for the same 10 steps
        let plain = SigmaHole::parse(&["gauss:sigma=?,n=10".to_string()], Neighbors::AddRemove).unwrap();
        let full = smallest_sigma(&plain, &q("1e-5"), &q("1"), &q("0.1"), &Options::default()).unwrap();
        assert!(fit.sigma < full.sigma, "{} vs {}", fit.sigma, full.sigma);
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
