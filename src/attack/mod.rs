//! What an attacker can do: certified operational measures of a composition's tight f-DP guarantee.
//!
//! A membership test between neighbouring data sets has a type I error α (false positive rate, FPR) and
//! a type II error β; its power is the true positive rate TPR = 1 − β. The trade-off function f(α) is the
//! smallest β of any test at level α (Dong, Roth and Su 2022, "Gaussian differential privacy", JRSS-B,
//! Definition 2.1). Following Kulynych et al. 2024 ("Attack-aware noise calibration for differential
//! privacy", NeurIPS; the `riskcal` package), the operational measures are read off f:
//!
//! * **TPR at FPR α**: 1 − f(α) (the most powerful test at that false-alarm rate);
//! * **FPR at TPR t**: the smallest α with 1 − f(α) ≥ t, i.e. f⁻¹(1 − t) = f(1 − t) since the
//!   trade-off of these symmetric mechanisms is symmetric (f = f⁻¹; Dong–Roth–Su Prop. 2.4);
//! * **advantage** sup_tests (TPR − FPR) = 1 − min_α (α + f(α)) = δ(0) (Dong–Roth–Su Prop. 2.12 with
//!   ε = 0: δ(ε) = 1 + f*(−e^ε));
//! * **Bayes success** of the best membership test for a prior p of membership:
//!   max_α [p (1 − f(α)) + (1 − p)(1 − α)] = 1 − p · min_α [f(α) + ((1 − p)/p) α]. By the duality above,
//!   min_α [f(α) + e^ε α] = 1 − δ(ε), so for p ≤ 1/2 (ε = ln((1 − p)/p) ≥ 0) the success is
//!   1 − p (1 − δ(ln((1 − p)/p))), and by the symmetry f = f⁻¹ the case p > 1/2 is the same with p and
//!   1 − p exchanged: success = 1 − m (1 − δ(|ln((1 − p)/p)|)), m = min(p, 1 − p). No privacy (δ ≡ 1)
//!   gives 1; perfect privacy (δ(ε) = 0 for ε ≥ 0) gives max(p, 1 − p), the trivial guess.
//! * **posterior** of the attacker who flags a record at FPR α: p·TPR / (p·TPR + (1 − p)·α).
//! * **reconstruction success** (reconstruction robustness, ReRo): an attacker who reconstructs a record
//!   from the output, where the best guess without the output succeeds with probability κ (the prior's
//!   largest mass on one success region), succeeds with probability at most 1 − f(κ) [KHZR23], [HMB23]:
//!   success is a test between the two neighbouring outputs whose level under the one without the record
//!   is at most κ, so its power is at most the most powerful test's at level κ. The number is the TPR at
//!   FPR κ, read as a reconstruction bound.
//!
//! Every measure is a certified bracket from the accountant's certified f(α) and δ(ε) brackets, carried
//! through outward-rounded interval arithmetic (δ at the irrational ε = ln((1 − p)/p) through its
//! monotonicity: δ(ε) ∈ [δ(ε_hi).lo, δ(ε_lo).hi] for rationals ε_lo ≤ ε ≤ ε_hi).
//!
//! The Bureau's side: its accounting reports the family of (ε_BS(δ), δ) pairs of the zCDP conversion
//! ε = ρ + 2√(ρ log 1/δ). An (ε, δ)-DP guarantee implies f(α) ≥ max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))
//! (Dong–Roth–Su Prop. 2.5); the family implies the supremum over δ. `bureau_tradeoff` evaluates that
//! supremum on a grid of δ in double precision: the grid's supremum is below the true one, so the TPR it
//! implies is at or above the Bureau-implied bound — an approximation in the Bureau's favour, labelled so.

pub mod shuffle;

use crate::account::{Accountant, Certified, Map};
use crate::error::Fallible;
use crate::fallible;
use crate::num::Interval;
use rug::Rational;

/// Working precision of the derived brackets.
const PREC: u32 = 256;

/// The attack advantage sup (TPR − FPR) = δ(0), certified.
pub fn advantage(acc: &Accountant) -> Fallible<Certified> {
    let d = acc.delta(&Rational::from(0))?.delta;
    let detail = format!("delta(0); {}", d.describe());
    Ok(d.restated(detail))
}

/// TPR of the most powerful test at FPR α: 1 − f(α), certified.
pub fn tpr_at_fpr(acc: &Accountant, alpha: &Rational) -> Fallible<Certified> {
    check_unit("FPR", alpha)?;
    let f = acc.tradeoff(alpha)?;
    f.map(&Map::Complement, PREC, format!("1 - f(alpha); {}", f.describe()))
}

/// The reconstruction-robustness bound at baseline success κ ∈ (0, 1): 1 − f(κ) [KHZR23], [HMB23] (module
/// doc), certified.
pub fn reconstruction_success(acc: &Accountant, kappa: &Rational) -> Fallible<Certified> {
    if !(*kappa > 0 && *kappa < 1) {
        return fallible!(
            Input,
            "the reconstruction prior (the success of the best guess without the data) must be in (0, 1), got {}",
            crate::num::format::fmt_rational(kappa)
        );
    }
    let f = acc.tradeoff(kappa)?;
    f.map(&Map::Complement, PREC, format!("1 - f(kappa), the reconstruction-robustness bound; {}", f.describe()))
}

/// Success probability of the best membership test (Bayes) for a prior p ∈ (0, 1), certified.
pub fn bayes_success(acc: &Accountant, p: &Rational) -> Fallible<Certified> {
    if !(*p > 0 && *p < 1) {
        return fallible!(Input, "the prior must be in (0, 1), got {}", crate::num::format::fmt_rational(p));
    }
    let one = Rational::from(1);
    let half = Rational::from((1, 2));
    let m = if *p <= half { p.clone() } else { one.clone() - p.clone() };
    // ε* = ln((1 − m)/m) ≥ 0, enclosed; δ at it through δ's monotonicity (the accountant's)
    let ratio = (one.clone() - m.clone()) / m.clone();
    let e = Interval::from_rational(&ratio, PREC).ln();
    let delta = acc.delta_enclosed(&e)?;
    // 1 − m (1 − δ)
    let detail = format!("1 - m (1 - delta(ln((1 - m)/m))), m = min(p, 1 - p); {}", delta.describe());
    delta.map(&Map::TowardOne(m), PREC, detail)
}

fn check_unit(what: &str, x: &Rational) -> Fallible<()> {
    if *x < 0 || *x > 1 {
        return fallible!(Input, "the {what} must be in [0, 1], got {}", crate::num::format::fmt_rational(x));
    }
    Ok(())
}

/// The Bureau's accounting as a family of (ε_BS(δ), δ) pairs of zCDP ρ, on a grid of 2000 δ values
/// log-spaced in [1e-300, 1) (each pair's ε, e^ε and e^−ε computed once, then shared by every α).
struct BureauCurve {
    delta: Vec<f64>,
    exp_eps: Vec<f64>,
    exp_neg_eps: Vec<f64>,
}

impl BureauCurve {
    fn new(rho: f64) -> BureauCurve {
        let (mut delta, mut exp_eps, mut exp_neg_eps) = (Vec::with_capacity(2000), Vec::with_capacity(2000), Vec::with_capacity(2000));
        for i in 0..2000 {
            let ld = -300.0 * (1.0 - i as f64 / 1999.0);
            let d = 10f64.powf(ld).min(1.0 - 1e-16);
            let eps = rho + 2.0 * (rho * (1.0 / d).ln()).sqrt();
            delta.push(d);
            exp_eps.push(eps.exp());
            exp_neg_eps.push((-eps).exp());
        }
        BureauCurve { delta, exp_eps, exp_neg_eps }
    }

    /// f_B(α) = sup over the pairs of max(1 − δ − e^ε α, e^−ε (1 − δ − α)) (Dong–Roth–Su, Prop. 2.5).
    fn tradeoff(&self, alpha: f64) -> f64 {
        let mut best = 0.0f64;
        for i in 0..self.delta.len() {
            best = best.max(self.pair(i, alpha));
        }
        best
    }

    /// max(1 − δ − e^ε α, e^−ε (1 − δ − α)) of pair i, in double precision.
    #[inline]
    fn pair(&self, i: usize, alpha: f64) -> f64 {
        let (d, ee, en) = (self.delta[i], self.exp_eps[i], self.exp_neg_eps[i]);
        let a = 1.0 - d - ee * alpha;
        let b = en * (1.0 - d - alpha);
        a.max(b)
    }
}

/// [`BureauCurve::tradeoff`] at a non-decreasing sequence of α, with the same values. Each pair's
/// value as computed is non-increasing in α (α enters through ee·α and 1 − δ − α, both rounded
/// monotonically), so its value at an earlier α bounds it now: a pair whose bound is not above the
/// running maximum cannot change it (the maximum of floats does not depend on the order) and is
/// skipped. The bounds sit in a max-heap, so only the few pairs above the maximum are evaluated.
struct TradeoffSweep<'a> {
    curve: &'a BureauCurve,
    /// (bound, pair): each pair's value at the α where it was last evaluated (+∞ before)
    heap: std::collections::BinaryHeap<(Bound, usize)>,
    last_alpha: f64,
}

/// An f64 ordered by `total_cmp`. A bound is NaN only after a NaN α, and the next α (NaN or not) starts
/// afresh: NaN bounds never order the search.
#[derive(Clone, Copy, PartialEq)]
struct Bound(f64);

impl Eq for Bound {}

impl PartialOrd for Bound {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Bound {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl<'a> TradeoffSweep<'a> {
    fn new(curve: &'a BureauCurve) -> TradeoffSweep<'a> {
        TradeoffSweep { curve, heap: Self::fresh(curve), last_alpha: f64::NEG_INFINITY }
    }

    fn fresh(curve: &BureauCurve) -> std::collections::BinaryHeap<(Bound, usize)> {
        (0..curve.delta.len()).map(|i| (Bound(f64::INFINITY), i)).collect()
    }

    fn tradeoff(&mut self, alpha: f64) -> f64 {
        if !(alpha >= self.last_alpha) {
            // out of order (or NaN): no bound carries over
            self.heap = Self::fresh(self.curve);
        }
        self.last_alpha = alpha;
        let mut best = 0.0f64;
        let mut seen = Vec::new();
        while let Some(&(Bound(b), i)) = self.heap.peek() {
            if !(b > best) {
                break;
            }
            self.heap.pop();
            let v = self.curve.pair(i, alpha);
            best = best.max(v);
            seen.push((Bound(v), i));
        }
        self.heap.extend(seen);
        best
    }
}

/// The trade-off implied by the Bureau's accounting (the (ε_BS(δ), δ) family of zCDP ρ), at α, in double
/// precision on a grid of 2000 δ values log-spaced in [1e-300, 1): an approximation in the Bureau's
/// favour (see the module notes), not a certified value.
pub fn bureau_tradeoff(rho: f64, alpha: f64) -> f64 {
    BureauCurve::new(rho).tradeoff(alpha)
}

/// The Bureau-implied advantage: 1 − min_α (α + f_B(α)), on a grid of α (approximate, see above).
pub fn bureau_advantage(rho: f64) -> f64 {
    let c = BureauCurve::new(rho);
    let mut f = TradeoffSweep::new(&c);
    let mut m = 1.0f64;
    for i in 0..=2000 {
        let a = i as f64 / 4000.0; // the minimum of α + f(α) sits at α ≤ 1/2 for symmetric f
        m = m.min(a + f.tradeoff(a));
    }
    1.0 - m
}

/// Bayes success implied by the Bureau's accounting for prior p: 1 − min_α [p f_B(α) + (1 − p) α].
pub fn bureau_bayes_success(rho: f64, p: f64) -> f64 {
    let c = BureauCurve::new(rho);
    let mut f = TradeoffSweep::new(&c);
    let mut m = f64::INFINITY;
    for i in 0..=4000 {
        let a = (i as f64 / 4000.0).powi(3);
        m = m.min(p * f.tradeoff(a) + (1.0 - p) * a);
    }
    1.0 - m.min(p.min(1.0 - p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Options;
    use crate::model::Composition;

    /// Independent reference: the pair P = law of (X1, X2), Q = law of (X1 + 1, X2 + 1), X_i ~ N_Z(0, σ²)
    /// enumerated on [-R, R]² in double precision from exp(−x²/(2σ²)) with a directly summed normaliser
    /// (no lattice, no θ-function, no privacy profile). Neyman–Pearson: sort outcomes by Q/P.
    struct Np {
        p: Vec<f64>,
        q: Vec<f64>,
    }

    fn reference(sigma2: f64) -> Np {
        let r = 25i64; // the mass beyond 25 is below e^-200: far under the double-precision tolerance
        let w = |x: i64| (-(x * x) as f64 / (2.0 * sigma2)).exp();
        let z: f64 = (-r - 1..=r + 1).map(w).sum();
        let pmf = |x: i64| w(x) / z;
        let mut cells: Vec<(f64, f64)> = Vec::new();
        for a in -r..=r {
            for b in -r..=r {
                cells.push((pmf(a) * pmf(b), pmf(a - 1) * pmf(b - 1)));
            }
        }
        cells.sort_by(|x, y| (y.1 / y.0).partial_cmp(&(x.1 / x.0)).unwrap());
        Np { p: cells.iter().map(|c| c.0).collect(), q: cells.iter().map(|c| c.1).collect() }
    }

    impl Np {
        /// TPR of the most powerful (randomised) test at FPR α.
        fn tpr(&self, alpha: f64) -> f64 {
            let (mut fp, mut tp) = (0.0, 0.0);
            for (p, q) in self.p.iter().zip(&self.q) {
                if fp + p <= alpha {
                    fp += p;
                    tp += q;
                } else {
                    return tp + q * (alpha - fp) / p;
                }
            }
            tp
        }
        fn advantage(&self) -> f64 {
            self.p.iter().zip(&self.q).map(|(p, q)| (q - p).max(0.0)).sum()
        }
        /// max over tests of prior·TPR + (1 − prior)(1 − FPR) = Σ max(prior·Q, (1 − prior)·P)
        fn bayes(&self, prior: f64) -> f64 {
            self.p.iter().zip(&self.q).map(|(p, q)| (prior * q).max((1.0 - prior) * p)).sum()
        }
    }

    fn within(c: &Certified, x: f64, tol: f64) -> bool {
        c.lo().to_f64() - tol <= x && x <= c.hi().to_f64() + tol
    }

    #[test]
    fn measures_match_neyman_pearson_on_a_product_space() {
        let sigma2 = 1.5;
        let np = reference(sigma2);
        let comp = Composition::gaussian(Rational::from((3, 2)), 2, 1).unwrap();
        let acc = Accountant::new(comp, Options::default()).unwrap();
        let tol = 1e-12; // the reference is double precision
        let adv = advantage(&acc).unwrap();
        assert!(within(&adv, np.advantage(), tol), "advantage {adv} vs {}", np.advantage());
        for a in ["1/10000", "1/1000", "1/100", "1/10", "1/2"] {
            let alpha = crate::num::parse_rational(a).unwrap();
            let t = tpr_at_fpr(&acc, &alpha).unwrap();
            let want = np.tpr(alpha.to_f64());
            assert!(within(&t, want, tol), "TPR at {a}: {t} vs {want}");
        }
        for pr in ["1/2", "1/1000", "9/10"] {
            let p = crate::num::parse_rational(pr).unwrap();
            let b = bayes_success(&acc, &p).unwrap();
            let want = np.bayes(p.to_f64());
            assert!(within(&b, want, tol), "Bayes success at p = {pr}: {b} vs {want}");
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        let acc = Accountant::new(Composition::gaussian(Rational::from(2), 1, 1).unwrap(), Options::default()).unwrap();
        assert!(tpr_at_fpr(&acc, &Rational::from(2)).is_err());
        assert!(bayes_success(&acc, &Rational::from(0)).is_err());
        assert!(bayes_success(&acc, &Rational::from(1)).is_err());
    }

    /// The sweep gives the direct maximum bit for bit, along the grids of the Bureau measures and after
    /// a step back in α.
    #[test]
    fn tradeoff_sweep_matches_the_direct_maximum() {
        for rho in [0.01, 0.3, 2.63, 15.0] {
            let c = BureauCurve::new(rho);
            let mut s = TradeoffSweep::new(&c);
            for i in 0..=4000 {
                let a = (i as f64 / 4000.0).powi(3);
                assert_eq!(s.tradeoff(a).to_bits(), c.tradeoff(a).to_bits(), "rho {rho}, alpha {a}");
            }
            for a in [0.25, 0.0, 1e-4, 1e-4, 0.5] {
                assert_eq!(s.tradeoff(a).to_bits(), c.tradeoff(a).to_bits(), "rho {rho}, alpha {a}");
            }
        }
    }

    /// The Bureau-implied measures are weaker (larger attack success) than the exact ones.
    #[test]
    fn bureau_side_is_weaker() {
        let acc = Accountant::new(Composition::gaussian(Rational::from((50000, 10001)), 10, 1).unwrap(), Options::default()).unwrap();
        let rho = acc.rho().unwrap().to_f64();
        let exact = advantage(&acc).unwrap().hi().to_f64();
        assert!(bureau_advantage(rho) > exact, "{} vs {exact}", bureau_advantage(rho));
        let t = tpr_at_fpr(&acc, &Rational::from((1, 1000))).unwrap().hi().to_f64();
        assert!(1.0 - bureau_tradeoff(rho, 1e-3) > t);
    }

    /// The reconstruction bound against scripts/reference/reconstruction.txt (mpmath: the Neyman–Pearson
    /// test in the data space, the Gaussian's closed form and the Laplace mechanism's, whose loss has atoms),
    /// each bracket holds the reference, and is as narrow as the 20 digits of f(κ) make it: a width of at most
    /// 1e-20 f(κ), relative to 1 − f(κ) (f ≈ 0.997 at κ = 1/1000 on the Laplace row: 18 digits of 1 − f).
    /// Priors outside (0, 1) are refused.
    #[test]
    fn reconstruction_bounds_hold_the_neyman_pearson_references() {
        use crate::model::spec::parse_mech;
        use crate::model::Neighbors;
        use rug::Float;
        for r in crate::num::reference::rows(include_str!("../../scripts/reference/reconstruction.txt")) {
            let comp = Composition::new(vec![parse_mech(r[0]).unwrap()], Neighbors::AddRemove).unwrap();
            let acc = Accountant::new(comp, Options::default()).unwrap();
            let c = reconstruction_success(&acc, &crate::num::parse_rational(r[1]).unwrap()).unwrap();
            let want = Float::with_val(256, Float::parse(r[2]).unwrap());
            let slack = Float::with_val(256, &want * 1e-33f64);
            assert!(*c.lo() <= Float::with_val(256, &want + &slack) && Float::with_val(256, &want - &slack) <= *c.hi(), "{r:?}: {c:?}");
            let one_minus = want.to_f64();
            assert!(c.log10_rel_width() <= -20.0 + ((1.0 - one_minus) / one_minus).log10(), "{r:?}: {c:?}");
        }
        let acc = Accountant::new(
            Composition::new(vec![parse_mech("gauss:sigma=1").unwrap()], Neighbors::AddRemove).unwrap(),
            Options::default(),
        )
        .unwrap();
        for bad in ["0", "1", "3/2"] {
            let e = reconstruction_success(&acc, &crate::num::parse_rational(bad).unwrap()).unwrap_err();
            assert!(e.message().contains("reconstruction prior"), "{bad}: {e:?}");
        }
    }
}
