use super::*;
use crate::noise::dgauss_loss::tests::{holds, reference_rows};
use rug::Float;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The four masses of (1) against the brute-force sums of scripts/reference/lattice_loss_laws.txt, both
/// directions, thresholds on the atoms (ℓ = ±1/2 at b = 2, μ = 1) and between them.
#[test]
fn split_matches_brute_force_sums_both_directions() {
    let rows = reference_rows("dlap");
    assert_eq!(rows.len(), 12);
    for r in rows {
        let (b, mu, dir, l) = (&r[1], r[2].parse::<u32>().unwrap(), &r[3], &r[4]);
        let law = DiscreteLaplaceLoss::new(q(b), mu).unwrap();
        let d = if dir == "remove" { Direction::Remove } else { Direction::Add };
        let s = law.split(d, &q(l), 128).unwrap();
        for (got, want, what) in
            [(&s.a_below, &r[5], "A[L<l]"), (&s.a_above, &r[6], "A[L>=l]"), (&s.b_below, &r[7], "B[L<l]"), (&s.b_above, &r[8], "B[L>=l]")]
        {
            assert!(holds(got, want), "b={b} μ={mu} {dir} ℓ={l} {what}: {got} vs {want}");
            assert!(got.width().to_f64() < 1e-30, "{got}");
        }
    }
}

/// Outside [−μ/b, μ/b] the split is trivial; ε₀ = μ/b, ρ = ε₀²/2; the lattice μ/b + (2/b)ℤ.
#[test]
fn ends_pure_epsilon_rho_and_lattice() {
    let law = DiscreteLaplaceLoss::new(q("2"), 3).unwrap();
    let past = law.split(Direction::Remove, &q("1.6"), 64).unwrap();
    assert!(*past.a_above.hi() == 0 && past.b_below.contains(&Float::with_val(64, 1)));
    let below = law.split(Direction::Add, &q("-3/2"), 64).unwrap();
    assert!(*below.a_below.hi() == 0 && below.b_above.contains(&Float::with_val(64, 1)));
    assert_eq!((law.pure_epsilon(), law.rho()), (Some(q("3/2")), Some(q("9/8"))));
    assert_eq!((law.lattice(), law.lattice_offset()), (Some(q("1")), q("3/2")));
    assert_eq!(law.spec(), "dlap:scale=2,mu=3");
    assert_eq!(law.scaled(&q("1/2")).unwrap().unwrap().spec(), "dlap:scale=1,mu=3");
    for (ln_p, upper) in [(-1.0, true), (-30.0, true), (-30.0, false), (-0.1, false)] {
        let l = law.quantile(Direction::Remove, ln_p, upper);
        assert!(l.is_finite() && (-1.5..=1.5).contains(&l), "{ln_p} {upper}: {l}");
    }
    assert!(DiscreteLaplaceLoss::new(q("0"), 1).is_err() && DiscreteLaplaceLoss::new(q("1"), 0).is_err());
}
