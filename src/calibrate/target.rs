//! What a DP-SGD calibration (`sigma`, `steps`) must meet: a target ε at δ, or a target on the most
//! powerful membership-inference test — its advantage sup(TPR − FPR), or its TPR at a stated FPR — as
//! riskcal calibrates DP-SGD to attack risk. Each is a certified measure of the composition's
//! accountant that does not increase with the noise and does not decrease with the number of steps (both
//! are post-processings), so the calibration searches stay sound for every target.
//!
//! The measures: the advantage is δ(0), the total variation of the worse neighbouring pair; the TPR at
//! FPR α is 1 − f(α), f the trade-off function [DRS22, Prop. 2.12] (what `attack` prints; `src/attack`
//! sits above this layer, so the two lines are here again).

use crate::account::{Accountant, Certified, Map};
use crate::error::Fallible;
use crate::fallible;
use rug::Rational;

/// Working precision of the complement 1 − f(α) (the accountant's bracket is at most 36 digits wide).
const PREC: u32 = 256;

/// A calibration target (module doc).
#[derive(Clone, Debug)]
pub enum CalibrationTarget {
    /// ε(δ) ≤ `eps`
    Epsilon { delta: Rational, eps: Rational },
    /// sup(TPR − FPR) = δ(0) ≤ the value
    Advantage(Rational),
    /// TPR of the most powerful test at FPR `fpr`, 1 − f(fpr), ≤ `tpr`
    Tpr { tpr: Rational, fpr: Rational },
}

impl CalibrationTarget {
    /// Refuse targets that no noise can meet or that need none (one line each, in the CLI's words).
    pub fn check(&self) -> Fallible<()> {
        match self {
            CalibrationTarget::Epsilon { eps, .. } if *eps <= 0 => fallible!(Input, "target-epsilon must be positive"),
            CalibrationTarget::Advantage(a) if !(*a > 0 && *a < 1) => fallible!(
                Input,
                "--target-advantage must be in (0, 1): the advantage of finite noise is above 0, and 1 needs no noise; got {}",
                show(a)
            ),
            CalibrationTarget::Tpr { fpr, .. } if !(*fpr > 0 && *fpr < 1) => {
                fallible!(Input, "--at-fpr must be in (0, 1), got {}", show(fpr))
            }
            CalibrationTarget::Tpr { tpr, fpr } if !(*tpr > *fpr && *tpr < 1) => fallible!(
                Input,
                "--target-tpr must be in (FPR, 1) = ({}, 1): no test has TPR below its FPR, whatever the noise; got {}",
                show(fpr),
                show(tpr)
            ),
            _ => Ok(()),
        }
    }

    /// The bound the measure must not exceed.
    pub fn value(&self) -> &Rational {
        match self {
            CalibrationTarget::Epsilon { eps, .. } => eps,
            CalibrationTarget::Advantage(a) => a,
            CalibrationTarget::Tpr { tpr, .. } => tpr,
        }
    }

    /// The measure's name in messages: "epsilon", "advantage", "TPR at FPR 0.01".
    pub fn name(&self) -> String {
        match self {
            CalibrationTarget::Epsilon { .. } => "epsilon".into(),
            CalibrationTarget::Advantage(_) => "advantage".into(),
            CalibrationTarget::Tpr { fpr, .. } => format!("TPR at FPR {}", show(fpr)),
        }
    }

    /// The certified measure of an accountant's composition.
    pub fn measure(&self, acc: &Accountant) -> Fallible<Certified> {
        match self {
            CalibrationTarget::Epsilon { delta, .. } => acc.epsilon(delta),
            CalibrationTarget::Advantage(_) => {
                let d = acc.delta(&Rational::from(0))?.delta;
                let detail = format!("delta(0); {}", d.describe());
                Ok(d.restated(detail))
            }
            CalibrationTarget::Tpr { fpr, .. } => {
                let f = acc.tradeoff(fpr)?;
                f.map(&Map::Complement, PREC, format!("1 - f(alpha); {}", f.describe()))
            }
        }
    }

    /// Whether the measure `c` decides the target: Some(true) when its upper end is at or below the
    /// bound, Some(false) when its lower end is above it, None while it straddles the bound. A measure of
    /// trust `certified-bound` (fixed-size batches: an upper bound of the guarantee, monotone in σ, the steps
    /// and q as the guarantee is) decides the calibration of that bound: its miss shows that the bound, not
    /// the mechanism, misses the target, and the calibration's `trust` column says so.
    pub fn decides(&self, c: &Certified) -> Option<bool> {
        if *c.hi() <= *self.value() {
            Some(true)
        } else if *c.lo() > *self.value() {
            Some(false)
        } else {
            None
        }
    }

    /// A target's bound in messages.
    pub fn show(&self) -> String {
        show(self.value())
    }
}

/// A rational (σ, a target) as a decimal for messages.
pub(crate) fn show(s: &Rational) -> String {
    crate::num::format::fmt_nearest(&rug::Float::with_val(64, s), 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Options;
    use crate::model::{spec::parse_mech, Composition, Neighbors};

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    fn acc(spec: &str) -> Accountant {
        let comp = Composition::new(vec![parse_mech(spec).unwrap()], Neighbors::AddRemove).unwrap();
        Accountant::new(comp, Options::default()).unwrap()
    }

    /// One Gaussian of σ = 2 (μ = 1/2): advantage 2Φ(μ/2) − 1 and TPR at FPR 0.1 1 − Φ(Φ⁻¹(0.9) − μ)
    /// [DRS22, §2.3], from scripts/reference/attack_gaussian.txt (mpmath, 40 digits).
    #[test]
    fn measures_are_the_gaussian_closed_forms() {
        let rows = crate::num::reference::rows(include_str!("../../scripts/reference/attack_gaussian.txt"));
        let want = |k: &str| rows.iter().find(|r| r[0] == "measure" && r[1] == k).unwrap()[2];
        let a = acc("gauss:sigma=2");
        let adv = CalibrationTarget::Advantage(q("0.2")).measure(&a).unwrap();
        let tpr = CalibrationTarget::Tpr { tpr: q("0.5"), fpr: q("0.1") }.measure(&a).unwrap();
        assert!(crate::account::engines::holds(&adv.interval(), want("advantage")), "{adv:?}");
        assert!(crate::account::engines::holds(&tpr.interval(), want("tpr_at_0.1")), "{tpr:?}");
        // decided both ways around the value, undecided never on these narrow brackets
        assert_eq!(CalibrationTarget::Advantage(q("0.2")).decides(&adv), Some(true));
        assert_eq!(CalibrationTarget::Advantage(q("0.19")).decides(&adv), Some(false));
        assert_eq!(CalibrationTarget::Tpr { tpr: q("0.22"), fpr: q("0.1") }.decides(&tpr), Some(true));
        assert_eq!(CalibrationTarget::Tpr { tpr: q("0.217"), fpr: q("0.1") }.decides(&tpr), Some(false));
    }

    #[test]
    fn impossible_targets_are_refused() {
        for (t, words) in [
            (CalibrationTarget::Advantage(q("1")), "(0, 1)"),
            (CalibrationTarget::Advantage(q("0")), "(0, 1)"),
            (CalibrationTarget::Tpr { tpr: q("0.05"), fpr: q("0.1") }, "no test has TPR below its FPR"),
            (CalibrationTarget::Tpr { tpr: q("0.5"), fpr: q("1") }, "--at-fpr"),
            (CalibrationTarget::Epsilon { delta: q("1e-5"), eps: q("0") }, "positive"),
        ] {
            let e = t.check().err().unwrap().to_string();
            assert!(e.contains(words), "{t:?}: {e}");
        }
        assert!(CalibrationTarget::Advantage(q("0.1")).check().is_ok());
    }
}
