//! The replace-one pair of the Poisson-subsampled Laplace mechanism against
//! scripts/reference/poisson_replace_others.txt (mpmath quadrature of (A − e^ε B)₊ over the densities, split
//! at a root found by bisection; checked there also against the tails at the root).

use super::*;
use crate::noise::laplace::Laplace;
use crate::noise::subsample::PoissonSampled;
use rug::Float;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn law(qq: &str, b: &str, mu: &str) -> Arc<dyn LossLaw> {
    let sampled = PoissonSampled::new(Arc::new(Laplace::new(q(b), q(mu)).unwrap()), q(qq)).unwrap();
    sampled.under(Neighbors::Replace).expect("a replace-one pair").unwrap()
}

fn delta(law: &dyn LossLaw, eps: &str, p: u32) -> Interval {
    let s = law.split(Direction::Remove, &q(eps), p).unwrap();
    s.a_above.sub(&Interval::from_rational(&q(eps), p).exp().mul(&s.b_above))
}

#[test]
fn one_release_holds_the_quadrature() {
    let rows = crate::num::reference::kind_rows(include_str!("../../../scripts/reference/poisson_replace_others.txt"), "laplace-one");
    assert_eq!(rows.len(), 4);
    let p = 160;
    for f in rows {
        let (qq, b, mu, eps, want) = (f[1], f[2], f[3], f[4], f[5]);
        let d = delta(&*law(qq, b, mu), eps, p);
        let w = Float::with_val(p, Float::parse(want).unwrap());
        let width = Float::with_val(64, d.hi() - d.lo()).to_f64();
        if w.to_f64() < 1e-40 {
            // q = ½, ε = a: the top atom sits at ε and δ is 0 (the quadrature's rounding printed)
            assert!(d.contains(&Float::with_val(p, 0)) && width < 1e-40, "q={qq} b={b} eps={eps}: {d:?}");
            continue;
        }
        // the reference to 30 significant digits: ± 1e-29 relative covers its last place
        let tol = Float::with_val(p, &w * Float::with_val(p, 1e-29));
        assert!(
            *d.lo() <= Float::with_val(p, &w + &tol) && Float::with_val(p, &w - &tol) <= *d.hi(),
            "q={qq} b={b} mu={mu} eps={eps}: [{}, {}] vs {want}",
            d.lo(),
            d.hi()
        );
        assert!(width < 1e-25 * w.to_f64(), "q={qq} b={b} eps={eps}: width {width}");
    }
}

#[test]
fn splits_are_consistent_and_monotone() {
    let p = 128;
    for l in [law("0.2", "1", "1"), law("0.5", "1", "1"), law("0.05", "2", "3")] {
        let mut last: Option<Interval> = None;
        for i in -40..=40 {
            let t = Rational::from((i, 20));
            let s = l.split(Direction::Remove, &t, p).unwrap();
            for (x, y) in [(&s.a_below, &s.a_above), (&s.b_below, &s.b_above)] {
                assert!(x.add(y).contains(&Float::with_val(p, 1)), "{} at {t}", l.spec());
            }
            if let Some(a) = &last {
                assert!(*s.a_above.lo() <= *a.hi(), "{} not monotone at {t}", l.spec());
            }
            last = Some(s.a_above.clone());
        }
    }
}

/// The atoms: at q = ½ and b = Δ = 1 the top atom's loss is exactly 1 and holds A-mass ½ + ½e^{−1}·½ =
/// q/2 + r e^{−a}/2 (the Laplace CDF at 0 and at −Δ, by hand); just above it nothing is left.
#[test]
fn the_top_atom_is_exact() {
    let l = law("0.5", "1", "1");
    let s = l.split(Direction::Remove, &q("1"), 128).unwrap();
    let want = 0.25 + 0.25 * (-1f64).exp();
    assert!((s.a_above.to_f64() - want).abs() < 1e-15, "{:?}", s.a_above);
    assert!(Float::with_val(64, s.a_above.hi() - s.a_above.lo()).to_f64() < 1e-30);
    let above = l.split(Direction::Remove, &(q("1") + Rational::from((1, 1u64 << 40))), 128).unwrap();
    assert_eq!(above.a_above.to_f64(), 0.0);
    match l.range(Direction::Remove).hi {
        End::Atom(t) => assert!((t.to_f64() - 1.0).abs() < 1e-30),
        e => panic!("{e:?}"),
    }
}

#[test]
fn at_q_one_the_pair_is_the_laplace_mechanism_with_twice_the_sensitivity() {
    let (l, doubled) = (law("1", "2", "1"), Laplace::new(q("2"), q("2")).unwrap());
    for t in ["-1", "0", "1/3", "1"] {
        let (a, b) = (l.split(Direction::Remove, &q(t), 128).unwrap(), doubled.split(Direction::Remove, &q(t), 128).unwrap());
        assert_eq!((a.a_above.to_f64(), a.b_above.to_f64()), (b.a_above.to_f64(), b.b_above.to_f64()), "at {t}");
    }
    assert_eq!(l.pure_epsilon(), Some(q("1")));
}
