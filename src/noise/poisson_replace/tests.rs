//! The replace-one pair of the Poisson-subsampled Gaussian against scripts/reference/poisson_replace_gaussian.txt
//! (mpmath quadrature of (A − e^ε B)₊ over the densities, split at a root found by bisection).

use super::*;
use crate::noise::gauss::Gaussian;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn law(qq: &str, sigma2: &str, mu: &str) -> PoissonReplaceGaussian {
    let g = Gaussian::new(q(sigma2), q(mu)).unwrap();
    PoissonReplaceGaussian::new(g.eta(), q(qq), "test".into()).unwrap()
}

/// δ(ε) = A[L ≥ ε] − e^ε B[L ≥ ε] from the split holds the quadrature to 25 digits or more.
#[test]
fn one_release_holds_the_quadrature() {
    let p = 160;
    for (qq, s2, mu, eps, want) in [
        ("0.2", "0.5", "1", "0.5", "0.0584178208436279872835721032965"),
        ("0.01", "1", "1", "0.01", "0.0033275794476181508459147104028"),
        ("1", "4", "1", "0.5", "0.238421708134876628318156163154"),
        ("0.3", "2", "1", "0", "0.156149963343913961304823996168"),
    ] {
        let l = law(qq, s2, mu);
        let s = l.split(Direction::Remove, &q(eps), p).unwrap();
        let d = s.a_above.sub(&Interval::from_rational(&q(eps), p).exp().mul(&s.b_above));
        let w = rug::Float::with_val(p, rug::Float::parse(want).unwrap());
        // the reference stands for ± half a unit in its last printed place
        let places = want.split_once('.').unwrap().1.len() as u32;
        let half = rug::Float::with_val(p, rug::Float::u_pow_u(10, places)).recip() / 2u32;
        assert!(
            *d.lo() <= rug::Float::with_val(p, &w + &half) && rug::Float::with_val(p, &w - &half) <= *d.hi(),
            "q={qq} sigma2={s2}: [{}, {}] vs {want}",
            d.lo(),
            d.hi()
        );
        assert!(rug::Float::with_val(64, d.hi() - d.lo()).to_f64() < 1e-25 * w.to_f64(), "{d:?}");
        // both sides of the split add up to 1 under A and under B
        for (lo, hi) in [(&s.a_below, &s.a_above), (&s.b_below, &s.b_above)] {
            let t = lo.add(hi);
            assert!(t.lo().to_f64() <= 1.0 + 1e-30 && t.hi().to_f64() >= 1.0 - 1e-30, "{t:?}");
        }
    }
}

/// The pair is its own mirror: A[L ≥ ℓ] = B[L ≤ −ℓ]; and at q = 1 it is the Gaussian of twice the
/// sensitivity (its η four times the Gaussian's).
#[test]
fn mirror_and_full_sampling() {
    let p = 128;
    let l = law("0.3", "2", "1");
    for t in ["0.7", "-0.2", "3"] {
        let a = l.split(Direction::Remove, &q(t), p).unwrap().a_above;
        // B[L ≤ −ℓ] = 1 − B[L > −ℓ] ⊇ B[L < −ℓ] here (no atoms): b_below at −ℓ plus nothing at the point
        let b = l.split(Direction::Remove, &(-q(t)), p).unwrap();
        let mirror = b.b_below;
        assert!(a.lo() <= mirror.hi() && mirror.lo() <= a.hi(), "ℓ = {t}: {a:?} vs {mirror:?}");
    }
    let full = law("1", "4", "1");
    let g2 = Gaussian::new(q("1"), q("1")).unwrap(); // η = 1/2 = 4 × 1/8
    for t in ["0.1", "1", "-0.5"] {
        let (a, b) = (full.split(Direction::Remove, &q(t), p).unwrap(), g2.split(Direction::Remove, &q(t), p).unwrap());
        assert!(a.a_above.lo() <= b.a_above.hi() && b.a_above.lo() <= a.a_above.hi(), "ℓ = {t}");
        assert!(a.b_above.lo() <= b.b_above.hi() && b.b_above.lo() <= a.b_above.hi(), "ℓ = {t}");
    }
}

/// The planning quantiles bracket the median and move the right way.
#[test]
fn quantiles_are_ordered() {
    let l = law("0.2", "0.5", "1");
    let (lo, mid, hi) = (
        l.quantile(Direction::Remove, 0.01f64.ln(), false),
        l.quantile(Direction::Remove, 0.5f64.ln(), true),
        l.quantile(Direction::Remove, 0.01f64.ln(), true),
    );
    assert!(lo < mid && mid < hi, "{lo} {mid} {hi}");
    // A[L ≥ hi] ≈ 1%
    let s = l.split(Direction::Remove, &Rational::from_f64(hi).unwrap(), 64).unwrap();
    assert!((s.a_above.to_f64() - 0.01).abs() < 1e-3, "{:?}", s.a_above);
}
