use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn gauss(sigma2: &str, mu: &str) -> Arc<dyn LossLaw> {
    let mut p = crate::noise::params::Params::parse("t", &format!("sigma2={sigma2},mu={mu}")).unwrap();
    Arc::new(crate::noise::gauss::Gaussian::from_params(&mut p).unwrap())
}

fn laplace(scale: &str) -> Arc<dyn LossLaw> {
    let mut p = crate::noise::params::Params::parse("t", &format!("scale={scale}")).unwrap();
    Arc::new(crate::noise::laplace::Laplace::from_params(&mut p).unwrap())
}

fn contains(i: &Interval, x: f64) -> bool {
    i.lo().to_f64() <= x && x <= i.hi().to_f64()
}

/// Both laws of (2) are probability laws: at every split the two sides (and the infinite mass) add to 1,
/// and the atom at 0 — the masses in [0, tiny) — is not negative.
#[test]
fn the_pair_is_a_pair_of_probability_laws() {
    for base in [gauss("1", "2"), gauss("1/4", "1"), laplace("1")] {
        let w = SampledWithoutReplacement::new(base, 3, 10).unwrap();
        let (ai, bi) = w.infinite(Direction::Remove, 128).unwrap();
        for l in ["-3", "-1/2", "0", "1/1000", "1/2", "3"] {
            let s = w.split(Direction::Remove, &q(l), 128).unwrap();
            let ta = s.a_below.add(&s.a_above).add(&ai);
            let tb = s.b_below.add(&s.b_above).add(&bi);
            assert!(contains(&ta, 1.0) && contains(&tb, 1.0), "{l}: {ta:?} {tb:?}");
            assert!(ta.hi().to_f64() - ta.lo().to_f64() < 1e-25, "{l}: {ta:?}");
        }
        // the atom at 0: A*[0 <= L < 1e-30] >= 0 up to the enclosure
        let s0 = w.split(Direction::Remove, &q("0"), 128).unwrap();
        let s1 = w.split(Direction::Remove, &q("1/1000000000000000000000000000000"), 128).unwrap();
        let atom = s0.a_above.sub(&s1.a_above);
        assert!(atom.hi().to_f64() > 0.0, "{atom:?}");
    }
}

/// The pair is symmetric: B*[L ≥ ℓ] = A*[L < −ℓ] (continuous laws: no atom at ±ℓ), and A*[L ≥ ℓ] for ℓ > 0
/// is the Poisson Remove law's (2).
#[test]
fn symmetric_and_equal_to_the_remove_law_above_zero() {
    let base = gauss("1", "2");
    let w = SampledWithoutReplacement::new(base.clone(), 1, 4).unwrap();
    let r = PoissonSampled::new(base, q("1/4")).unwrap();
    for l in ["1/10", "1", "5/2"] {
        let up = w.split(Direction::Remove, &q(l), 128).unwrap();
        let down = w.split(Direction::Remove, &-q(l), 128).unwrap();
        let (b, a) = (up.b_above.to_f64(), down.a_below.to_f64());
        assert!((b - a).abs() <= 1e-12 * a, "{l}: {b} {a}");
        let rem = r.split(Direction::Remove, &q(l), 128).unwrap();
        assert_eq!(up.a_above.to_f64(), rem.a_above.to_f64());
    }
}

#[test]
fn refusals_say_what_to_give() {
    let e = SampledWithoutReplacement::new(gauss("1", "1"), 0, 10).unwrap_err().to_string();
    assert!(e.contains("batch size m between 1 and pop = 10"), "{e}");
    let e = SampledWithoutReplacement::new(gauss("1", "1"), 11, 10).unwrap_err().to_string();
    assert!(e.contains("got 11"), "{e}");
    let w = SampledWithoutReplacement::new(gauss("1", "1"), 2, 10).unwrap();
    assert_eq!(w.shifts(Neighbors::Replace).unwrap(), 1);
    // under add/remove the composition takes the Poisson pair at q = m/pop instead (`under`); the symmetric
    // law itself is never composed there, and m = pop has no smaller neighbour to draw from
    assert!(w.shifts(Neighbors::AddRemove).is_err());
    assert!(w.under(Neighbors::Replace).is_none());
    let poisson = w.under(Neighbors::AddRemove).unwrap().unwrap();
    assert_eq!(poisson.spec(), "gauss:sigma2=1,mu=1,q=1/5");
    assert_eq!(poisson.shifts(Neighbors::AddRemove).unwrap(), 1);
    let all = SampledWithoutReplacement::new(gauss("1", "1"), 10, 10).unwrap();
    let e = all.under(Neighbors::AddRemove).unwrap().unwrap_err().to_string();
    assert!(e.contains("give m < pop, or --neighbors replace"), "{e}");
    assert_eq!(w.spec(), "gauss:sigma2=1,mu=1,sampling=wor,m=2,pop=10");
}
