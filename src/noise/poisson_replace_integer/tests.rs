//! The replace-one pairs of the Poisson-subsampled discrete Gaussian and discrete Laplace against
//! scripts/reference/poisson_replace_others.txt (mpmath: Σ_k (A(k) − e^ε B(k))₊ over the mass functions,
//! normalisers summed directly; nothing of the code's tails or search is used).

use super::*;
use crate::noise::dgauss_loss::DiscreteGaussianLoss;
use crate::noise::dlaplace_loss::DiscreteLaplaceLoss;
use crate::noise::subsample::PoissonSampled;
use rug::ops::Pow;
use rug::Float;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The replace-one law of `base` run on a Poisson subsample with probability `qq`.
fn replace(base: Arc<dyn LossLaw>, qq: &str) -> Arc<dyn LossLaw> {
    let sampled = PoissonSampled::new(base, q(qq)).unwrap();
    sampled.under(Neighbors::Replace).expect("a replace-one pair").unwrap()
}

fn dgauss(qq: &str, s2: &str, mu: u32) -> Arc<dyn LossLaw> {
    replace(Arc::new(DiscreteGaussianLoss::new(q(s2), mu).unwrap()), qq)
}

fn dlap(qq: &str, t: &str, mu: u32) -> Arc<dyn LossLaw> {
    replace(Arc::new(DiscreteLaplaceLoss::new(q(t), mu).unwrap()), qq)
}

/// δ(ε) = A[L ≥ ε] − e^ε B[L ≥ ε] of one release, from the split at ε.
fn delta(law: &dyn LossLaw, eps: &str, p: u32) -> Interval {
    let s = law.split(Direction::Remove, &q(eps), p).unwrap();
    s.a_above.sub(&Interval::from_rational(&q(eps), p).exp().mul(&s.b_above))
}

/// The bracket holds the reference (± half a unit in its last printed place) and is narrow: relative width
/// below 1e-25, or, where the reference is 0 up to its own rounding (an exact tie, below 1e-40), below 1e-40.
fn holds(d: &Interval, want: &str, what: &str) {
    let p = d.prec();
    let w = Float::with_val(p, Float::parse(want).unwrap());
    let digits = want.split(['e', 'E']).next().unwrap();
    let places = digits.split_once('.').map(|x| x.1.len()).unwrap_or(0) as i32;
    let exp10 = want.split(['e', 'E']).nth(1).map(|e| e.parse::<i32>().unwrap()).unwrap_or(0);
    let half = Float::with_val(p, 10f64).pow(exp10 - places) / 2u32;
    let zero_row = w.to_f64() < 1e-40;
    let (lo, hi) = if zero_row {
        (Float::with_val(p, -1e-40), Float::with_val(p, 1e-40))
    } else {
        (Float::with_val(p, &w - &half), Float::with_val(p, &w + &half))
    };
    assert!(*d.lo() <= hi && lo <= *d.hi(), "{what}: [{}, {}] vs {want}", d.lo(), d.hi());
    let width = Float::with_val(64, d.hi() - d.lo()).to_f64();
    if zero_row {
        assert!(width < 1e-40, "{what}: width {width}");
    } else {
        assert!(width < 1e-25 * w.to_f64(), "{what}: width {width}");
    }
}

fn reference(kind: &str) -> Vec<(String, String, u32, String, String)> {
    include_str!("../../../scripts/reference/poisson_replace_others.txt")
        .lines()
        .filter(|l| l.starts_with(kind))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[1].to_string(), f[2].to_string(), f[3].parse().unwrap(), f[4].to_string(), f[5].to_string())
        })
        .collect()
}

#[test]
fn one_discrete_gaussian_release_holds_the_direct_sum() {
    let rows = reference("dgauss-one");
    assert_eq!(rows.len(), 3);
    for (qq, s2, mu, eps, want) in rows {
        let law = dgauss(&qq, &s2, mu);
        holds(&delta(&*law, &eps, 160), &want, &format!("dgauss q={qq} sigma2={s2} mu={mu} eps={eps}"));
    }
}

#[test]
fn one_discrete_laplace_release_holds_the_direct_sum() {
    let rows = reference("dlap-one");
    assert_eq!(rows.len(), 3);
    for (qq, t, mu, eps, want) in rows {
        let law = dlap(&qq, &t, mu);
        holds(&delta(&*law, &eps, 160), &want, &format!("dlap q={qq} scale={t} mu={mu} eps={eps}"));
    }
}

/// Both sides of every split add up to 1 under A and under B, and the masses above ℓ fall as ℓ grows.
#[test]
fn splits_are_consistent_and_monotone() {
    for law in [dgauss("0.2", "2", 1), dlap("0.3", "1", 1), dlap("0.5", "2", 1), dgauss("0.5", "1", 1)] {
        let p = 128;
        let mut last: Option<(Interval, Interval)> = None;
        for i in -40..=40 {
            let l = Rational::from((i, 16));
            let s = law.split(Direction::Remove, &l, p).unwrap();
            for (x, y) in [(&s.a_below, &s.a_above), (&s.b_below, &s.b_above)] {
                assert!(x.add(y).contains(&Float::with_val(p, 1)), "{} at {l}: {x:?} + {y:?}", law.spec());
            }
            if let Some((a, b)) = &last {
                assert!(*s.a_above.lo() <= *a.hi() && *s.b_above.lo() <= *b.hi(), "{} not monotone at {l}", law.spec());
            }
            last = Some((s.a_above.clone(), s.b_above.clone()));
        }
    }
}

/// At q = 1 the pair is the mechanism with shift 2Δ (dp_accounting's note on REPLACE): the same splits.
#[test]
fn at_q_one_the_pair_is_the_mechanism_with_twice_the_shift() {
    let p = 128;
    for (law, doubled) in [
        (dgauss("1", "3", 1), Arc::new(DiscreteGaussianLoss::new(q("3"), 2).unwrap()) as Arc<dyn LossLaw>),
        (dlap("1", "2", 1), Arc::new(DiscreteLaplaceLoss::new(q("2"), 2).unwrap()) as Arc<dyn LossLaw>),
    ] {
        for l in ["-1", "0", "1/3", "2/3", "1"] {
            let (a, b) = (law.split(Direction::Remove, &q(l), p).unwrap(), doubled.split(Direction::Remove, &q(l), p).unwrap());
            assert_eq!(a.a_above.to_f64(), b.a_above.to_f64(), "{} at {l}", law.spec());
            assert_eq!(a.b_above.to_f64(), b.b_above.to_f64(), "{} at {l}", law.spec());
        }
        assert_eq!(law.lattice(), doubled.lattice());
    }
}

/// The exact ties of the Lindemann–Weierstrass argument: L(0) = 0, and at q = ½ the discrete Laplace's top
/// atom is a = Δ/t itself (ln((e^a + 1)/(e^{−a} + 1)) = a). Near-ties are decided by intervals.
#[test]
fn ties_are_decided_exactly() {
    let (a, na) = (q("1/2"), q("-1/2"));
    assert_eq!(compare_loss(&a, &na, &q("1/2"), &q("1/2"), 64), Some(Ordering::Equal));
    assert_eq!(compare_loss(&q("-3/4"), &q("-3/4"), &q("1/5"), &q("0"), 64), Some(Ordering::Equal));
    // a hair away from the tie: decided, on the right side
    assert_eq!(compare_loss(&a, &na, &q("1/2"), &(q("1/2") + Rational::from((1, 1u64 << 60))), 64), Some(Ordering::Less));
    assert_eq!(compare_loss(&a, &na, &q("1/2"), &(q("1/2") - Rational::from((1, 1u64 << 60))), 64), Some(Ordering::Greater));
    // not a tie at another q: L_max = ln((q e^a + r)/(q e^{−a} + r)) < a
    assert_eq!(compare_loss(&a, &na, &q("1/3"), &q("1/2"), 64), Some(Ordering::Less));
    // the discrete Laplace at q = ½, Δ/t = ½: the atom at ε = ½ is at ℓ = ε, so δ(½) = 0 exactly
    let law = dlap("0.5", "2", 1);
    let d = delta(&*law, "1/2", 128);
    assert!(d.contains(&Float::with_val(128, 0)) && Float::with_val(64, d.hi() - d.lo()).to_f64() < 1e-35, "{d:?}");
}

#[test]
fn the_discrete_laplace_pair_has_atoms_at_both_ends() {
    let law = dlap("0.3", "1", 1);
    let r = law.range(Direction::Remove);
    // L_max = ln((0.3 e + 0.7)/(0.3/e + 0.7)) (by hand: 0.62591…)
    let top = ((0.3 * 1f64.exp() + 0.7) / (0.3 / 1f64.exp() + 0.7)).ln();
    match (&r.lo, &r.hi) {
        (End::Atom(lo), End::Atom(hi)) => {
            assert!((hi.to_f64() - top).abs() < 1e-15 && (lo.to_f64() + top).abs() < 1e-15, "{r:?}");
        }
        _ => panic!("{r:?}"),
    }
    // beyond the top atom nothing is above; at or below the bottom one everything
    let s = law.split(Direction::Remove, &q("0.7"), 128).unwrap();
    assert_eq!((s.a_above.to_f64(), s.b_above.to_f64()), (0.0, 0.0));
    let s = law.split(Direction::Remove, &q("-0.7"), 128).unwrap();
    assert_eq!((s.a_above.to_f64(), s.b_above.to_f64()), (1.0, 1.0));
    assert!(matches!(dgauss("0.2", "2", 1).range(Direction::Remove).lo, End::Open));
}

/// The planning quantiles land where the certified masses say.
#[test]
fn quantiles_match_the_masses() {
    for law in [dgauss("0.2", "2", 1), dlap("0.3", "1", 1)] {
        for ln_p in [-5.0f64, -20.0] {
            let l = law.quantile(Direction::Remove, ln_p, true);
            let lq = Rational::from_f64(l).unwrap();
            let s = law.split(Direction::Remove, &lq, 128).unwrap();
            // the upper tail at the planned point is within a factor e^3 of the target (discreteness aside)
            let got = s.a_above.to_f64().ln();
            assert!(got >= ln_p - 3.0, "{} ln_p {ln_p}: l {l}, ln A[L >= l] {got}", law.spec());
        }
    }
}

/// Calibration scales the noise of the subsampled mechanism and takes the pair again.
#[test]
fn the_pair_scales_with_its_noise() {
    let s = dgauss("0.2", "2", 1).scaled(&q("2")).unwrap().unwrap();
    assert_eq!(s.spec(), "dgauss:sigma2=4,mu=1,q=1/5 (replace-one pair)");
    let want = dgauss("0.2", "4", 1);
    let (a, b) = (s.split(Direction::Remove, &q("1/3"), 128).unwrap(), want.split(Direction::Remove, &q("1/3"), 128).unwrap());
    assert_eq!(a.a_above.to_f64(), b.a_above.to_f64());
    let l = dlap("0.3", "1", 1).scaled(&q("3")).unwrap().unwrap();
    assert_eq!(l.spec(), "dlap:scale=3,mu=1,q=3/10 (replace-one pair)");
}
