use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The two mixtures of `scripts/reference/mog.py`.
fn cases() -> Vec<(&'static str, MixtureOfGaussians)> {
    vec![
        ("mog:sigma=1,sens=1:2,probs=0.18:0.01", MixtureOfGaussians::new(q("1"), &[(q("1"), q("0.18")), (q("2"), q("0.01"))]).unwrap()),
        ("mog:sigma=3/2,sens=1/2:1,probs=1/2:1/2", MixtureOfGaussians::new(q("9/4"), &[(q("1/2"), q("1/2")), (q("1"), q("1/2"))]).unwrap()),
    ]
}

/// The reference rows of one kind: (spec, direction, value, numbers).
fn reference(kind: &str) -> Vec<(String, String, String, Vec<f64>)> {
    crate::num::reference::kind_rows(include_str!("../../../scripts/reference/mog.txt"), kind)
        .into_iter()
        .map(|f| (f[1].to_string(), f[2].to_string(), f[3].to_string(), f[4..].iter().map(|x| x.parse().unwrap()).collect()))
        .collect()
}

fn holds(i: &Interval, x: f64, rel: f64) -> bool {
    let slack = rel * x.abs() + 1e-300;
    i.lo().to_f64() <= x + slack && x - slack <= i.hi().to_f64()
}

/// A[L ≥ ℓ] and B[L ≥ ℓ] of both pairs against mpmath's quadrature of the densities over {x ≥ x*}
/// (`scripts/reference/mog.py`), at 128 bits: the enclosures hold them (to f64's reading of 35 digits) and are
/// narrow; both sides of every split add to 1.
#[test]
fn splits_hold_the_quadrature_of_the_densities() {
    let rows = reference("split");
    assert_eq!(rows.len(), 16);
    for (spec, m) in cases() {
        for (_, dir, l, v) in rows.iter().filter(|r| r.0 == spec) {
            let d = if dir == "remove" { Direction::Remove } else { Direction::Add };
            let s = m.split(d, &q(l), 128).unwrap();
            assert!(holds(&s.a_above, v[0], 1e-15) && holds(&s.b_above, v[1], 1e-15), "{spec} {dir} {l}: {s:?} against {v:?}");
            for (x, y) in [(&s.a_above, &s.a_below), (&s.b_above, &s.b_below)] {
                let t = x.add(y);
                assert!(holds(&t, 1.0, 0.0), "{spec} {dir} {l}: total {t:?}");
                assert!(x.width().to_f64() < 1e-30, "{spec} {dir} {l}: wide {x:?}");
            }
        }
    }
}

/// The planning quantiles lie in the support and order as the masses they stand for.
#[test]
fn quantiles_lie_in_the_support_and_order() {
    for (spec, m) in cases() {
        for d in [Direction::Remove, Direction::Add] {
            let r = m.range(d);
            let (lo, hi) = (r.lo.to_f64(-1.0), r.hi.to_f64(1.0));
            let up: Vec<f64> = [-1.0, -10.0, -100.0].iter().map(|p| m.quantile(d, *p, true)).collect();
            let down: Vec<f64> = [-1.0, -10.0, -100.0].iter().map(|p| m.quantile(d, *p, false)).collect();
            for x in up.iter().chain(&down) {
                assert!(*x >= lo - 1e-9 && *x <= hi + 1e-9, "{spec} {d:?}: {x} outside [{lo}, {hi}]");
            }
            assert!(up[0] <= up[1] && up[1] <= up[2], "{spec} {d:?}: upper quantiles {up:?}");
            assert!(down[0] >= down[1] && down[1] >= down[2], "{spec} {d:?}: lower quantiles {down:?}");
        }
    }
}

/// Canonical form: zero sensitivities and probabilities drop, equal ones merge, one positive sensitivity is
/// the Poisson-subsampled Gaussian; bad mixtures are refused.
#[test]
fn the_canonical_form_and_refusals() {
    let m = MixtureOfGaussians::new(q("1"), &[(q("0"), q("1/2")), (q("2"), q("1/8")), (q("1"), q("1/4")), (q("2"), q("1/8"))]).unwrap();
    assert_eq!(m.spec(), "mog:sigma2=1,sens=1:2,probs=1/4:1/4");
    let one = MixtureOfGaussians::new(q("4"), &[(q("1"), q("1/10"))]).unwrap().simplest().unwrap();
    assert_eq!(one.spec(), "gauss:sigma2=4,mu=1,q=1/10");
    for (parts, why) in [
        (vec![(q("1"), q("3/4")), (q("2"), q("1/2"))], "above 1"),
        (vec![(q("0"), q("1"))], "no positive sensitivity"),
        (vec![(q("-1"), q("1"))], "non-negative"),
    ] {
        let e = MixtureOfGaussians::new(q("1"), &parts).unwrap_err();
        assert!(e.message().contains(why), "{parts:?}: {e}");
    }
}
