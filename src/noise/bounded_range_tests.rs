//! The bounded-range pair against mpmath's two-point pairs (`scripts/reference/bounded_range.txt`: the
//! supremum over t found by a search, not the closed forms used here), its Rényi divergences against the
//! class's supremum and the zCDP bound ε²/8 [CR21], and the refusals.

use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// Rows "kind eps x value" of `bounded_range.txt`, the parameters as exact rationals.
fn reference(kind: &str) -> Vec<(Rational, Rational, f64)> {
    crate::num::reference::kind_rows(include_str!("../../scripts/reference/bounded_range.txt"), kind)
        .into_iter()
        .map(|r| (q(r[1]), q(r[2]), r[3].parse().unwrap()))
        .collect()
}

/// One release: δ(ε′) = A[L ≥ ε′] − e^{ε′} B[L ≥ ε′] from the split is the largest δ(ε′) of the two-point
/// pairs (mpmath's search over t), to 15 digits; each side's two halves add to 1.
#[test]
fn one_release_is_the_supremum_of_the_two_point_pairs() {
    let rows = reference("single");
    assert_eq!(rows.len(), 3);
    for (eps, e1, want) in rows {
        let law = BoundedRange::new(eps.clone()).unwrap();
        let s = law.split(Direction::Remove, &e1, 128).unwrap();
        let d = s.a_above.sub(&Interval::from_rational(&e1, 128).exp().mul(&s.b_above));
        assert!((d.to_f64() - want).abs() <= 1e-15 * want, "eps = {eps}, eps' = {e1}: {} against {want}", d.to_f64());
        assert!(d.width() < 1e-30);
        for (below, above) in [(&s.a_below, &s.a_above), (&s.b_below, &s.b_above)] {
            let total = below.add(above);
            assert!(*total.lo() <= 1 && *total.hi() >= 1 && total.width() < 1e-30);
        }
    }
    // outside (−ε, ε) everything lies on one side
    let law = BoundedRange::new(q("1/2")).unwrap();
    assert_eq!(law.split(Direction::Remove, &q("1/2"), 64).unwrap().a_above.to_f64(), 0.0);
    assert_eq!(law.split(Direction::Remove, &q("-1/2"), 64).unwrap().b_below.to_f64(), 0.0);
}

/// D_α is the class's supremum (mpmath's search over t) to 14 digits, at most αε²/8 [CR21], and below the
/// dominating pair's own ln M(α − 1)/(α − 1), which is why a composition is also bounded through it.
#[test]
fn renyi_is_the_supremum_over_the_class() {
    let rows = reference("renyi");
    assert_eq!(rows.len(), 5);
    for (eps, alpha, want) in rows {
        let law = BoundedRange::new(eps.clone()).unwrap();
        let d = law.renyi(Direction::Remove, &alpha, 128).unwrap().unwrap();
        assert!((d.to_f64() - want).abs() <= 1e-14 * want, "eps = {eps}, alpha = {alpha}: {} against {want}", d.to_f64());
        assert!(d.width() < 1e-25);
        let zcdp = (alpha.to_f64()) * eps.to_f64().powi(2) / 8.0;
        assert!(d.to_f64() <= zcdp, "{} above alpha eps^2/8 = {zcdp}", d.to_f64());
        let beta = Rational::from(&alpha - 1u32);
        let m =
            crate::noise::mgf_bounded_range::line(&eps, &rug::Float::with_val(128, beta.to_f64()), &rug::Float::with_val(64, 0), 0, 128);
        let own = m[0].re().to_f64().ln() / beta.to_f64();
        assert!(d.to_f64() < own, "the class's {} not below the pair's {own}", d.to_f64());
    }
    assert!(BoundedRange::new(q("1")).unwrap().renyi(Direction::Remove, &q("1"), 64).unwrap().is_err());
    // a tiny ε (1e-300, found by trying the CLI: 1 − e^{−βε} cancelled to an interval holding 0, a division
    // by it panicked): D_α ≈ αε²/8 = 2.5e-601 lies in an enclosure whose width is the working precision's
    // absolute rounding (terms of size ε cancel to ε²), far below any ε that matters
    let eps = q("1e-300");
    for alpha in ["2", "1024"] {
        let d = BoundedRange::new(eps.clone()).unwrap().renyi(Direction::Remove, &q(alpha), 128).unwrap().unwrap();
        let first = rug::Float::with_val(2048, &(Rational::from(&eps * &eps) * q(alpha) / 8u32));
        assert!(*d.lo() <= first && first <= *d.hi() && *d.hi() < 1e-40, "alpha = {alpha}: {d:?}");
    }
}

/// The planning quantile inverts (1) on both sides, within the support.
#[test]
fn the_quantile_inverts_the_split() {
    let law = BoundedRange::new(q("2")).unwrap();
    for p in [1e-6, 0.01, 0.3, 0.9] {
        let up = law.quantile(Direction::Remove, f64::ln(p), true);
        let s = law.split(Direction::Remove, &Rational::from_f64(up).unwrap(), 64).unwrap();
        assert!((s.a_above.to_f64() - p).abs() < 1e-9 * p.max(1e-3), "upper {p}: {}", s.a_above.to_f64());
        let down = law.quantile(Direction::Remove, f64::ln(p), false);
        let s = law.split(Direction::Remove, &Rational::from_f64(down).unwrap(), 64).unwrap();
        assert!((s.a_below.to_f64() - p).abs() < 1e-9 * p.max(1e-3), "lower {p}: {}", s.a_below.to_f64());
    }
}

#[test]
fn bad_parameters_are_refused() {
    assert!(BoundedRange::new(q("0")).is_err() && BoundedRange::new(q("-1")).is_err());
    let mut p = crate::noise::params::Params::parse("expmech", "scale=1").unwrap();
    assert!(BoundedRange::from_params(&mut p).unwrap_err().to_string().contains("epsilon"));
    let law = BoundedRange::new(q("1/2")).unwrap();
    assert_eq!((law.spec(), law.pure_epsilon(), law.is_bound()), ("expmech:epsilon=1/2".to_string(), Some(q("1/2")), true));
    assert_eq!(law.rho(), Some(q("1/32")));
    assert_eq!(law.scaled(&q("2")).unwrap().unwrap().spec(), "expmech:epsilon=1/4");
}
