use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn rel(s: &str) -> Relation {
    if s == "add-remove" {
        Relation::AddRemove
    } else {
        Relation::Replace
    }
}

fn reference(kind: &str) -> Vec<Vec<&'static str>> {
    crate::num::reference::kind_rows(include_str!("../../scripts/reference/shuffle.txt"), kind)
}

/// The per-epoch probabilities of the largest output against mpmath's closed forms
/// (scripts/reference/shuffle.{py,txt}, 25 digits).
#[test]
fn the_largest_outputs_tails_hold_mpmaths() {
    let rows = reference("above");
    assert_eq!(rows.len(), 3);
    for r in rows {
        let s = Shuffle::new(q(r[2]), r[3].parse().unwrap(), 1, rel(r[4])).unwrap();
        let (p, qq) = s.above(&q(r[1]), 256);
        for (iv, want) in [(p, r[5]), (qq, r[6])] {
            // the reference's 25 digits against the enclosure's midpoint (the enclosure is far narrower)
            let w = q(want);
            let off = rug::Float::with_val(256, iv.mid() - &w).abs().to_f64();
            assert!(off < 1e-23 * w.to_f64() && iv.width().to_f64() < 1e-60, "{r:?}: {iv:?}");
        }
        // the f64 search's values agree
        let (pf, qf) = s.above_f64(q(r[1]).to_f64());
        assert!((pf - q(r[5]).to_f64()).abs() < 1e-12 && (qf - q(r[6]).to_f64()).abs() < 1e-12);
    }
}

/// Two steps, one epoch: the test's bound lies below the exact δ of the whole pair (mpmath's integral,
/// scripts/reference/shuffle.txt), and not far below (the largest output is nearly the sufficient statistic).
#[test]
fn the_bound_lies_below_the_exact_two_step_delta() {
    for r in reference("delta_t2") {
        let s = Shuffle::new(q(r[2]), 2, 1, Relation::AddRemove).unwrap();
        let b = s.delta_lower(&q(r[1])).unwrap().unwrap();
        let exact = q(r[3]).to_f64();
        assert!(b.value.hi().to_f64() <= exact, "{r:?}: {:?} above {exact}", b.value);
        assert!(b.value.lo().to_f64() >= 0.8 * exact, "{r:?}: {:?} far below {exact}", b.value);
        // and the ε lower bound at that δ (slightly less) stays below ε
        let e = s.epsilon_lower(&Rational::from_f64(0.99 * exact).unwrap()).unwrap().unwrap();
        assert!(e.value.hi().to_f64() < q(r[1]).to_f64() * 1.001 + 1e-9, "{r:?}: {:?}", e.value);
    }
}

/// More epochs give larger lower bounds; a stronger noise smaller ones; the certified enclosure is narrow.
#[test]
fn the_bound_grows_with_epochs_and_falls_with_noise() {
    let eps = |sigma: &str, epochs| {
        let b = Shuffle::new(q(sigma), 100, epochs, Relation::AddRemove).unwrap().epsilon_lower(&q("1e-5")).unwrap().unwrap();
        assert!(b.value.width().to_f64() < 1e-12 * b.value.to_f64(), "{:?}", b.value);
        b.value.lo().to_f64()
    };
    let (e1, e10, noisy) = (eps("0.7", 1), eps("0.7", 10), eps("1.5", 1));
    assert!(e10 > e1 && e1 > noisy && noisy > 0.0, "{e1} {e10} {noisy}");
}

#[test]
fn bad_settings_are_refused() {
    assert!(Shuffle::new(q("0"), 10, 1, Relation::AddRemove).is_err());
    assert!(Shuffle::new(q("1"), 1, 1, Relation::AddRemove).is_err());
    assert!(Shuffle::new(q("1"), 10, 0, Relation::AddRemove).is_err());
    let s = Shuffle::new(q("1"), 10, 1, Relation::Replace).unwrap();
    assert!(s.epsilon_lower(&q("0")).is_err() && s.epsilon_lower(&q("1")).is_err() && s.delta_lower(&q("-1")).is_err());
    // a huge noise: the outputs' tails differ by less than δ, so no test gives a positive ε (at σ = 1000 one
    // still does: ~1e-4)
    let quiet = Shuffle::new(q("10000000"), 10, 1, Relation::AddRemove).unwrap();
    assert!(quiet.epsilon_lower(&q("1e-5")).unwrap().is_none());
}
