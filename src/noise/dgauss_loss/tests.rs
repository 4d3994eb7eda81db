use super::*;
use crate::noise::loss::directions;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The rows `KIND …` of scripts/reference/lattice_loss_laws.txt (mpmath, brute-force sums over the integer
/// outputs with L = ln(A(x)/B(x)) from the pmfs; 40 digits).
pub(crate) fn reference_rows(kind: &str) -> Vec<Vec<String>> {
    let text = include_str!("../../../scripts/reference/lattice_loss_laws.txt");
    crate::num::reference::kind_rows(text, kind).into_iter().map(|f| f.into_iter().map(String::from).collect()).collect()
}

/// `v` holds the decimal `want` up to a relative 1e-35 (the reference's 40 digits).
pub(crate) fn holds(v: &Interval, want: &str) -> bool {
    let w = Float::with_val(256, Float::parse(want).unwrap());
    let slack = Float::with_val(256, &w * 1e-35f64).abs() + Float::with_val(256, 1e-300f64);
    *v.lo() <= Float::with_val(256, &w + &slack) && *v.hi() >= Float::with_val(256, &w - &slack)
}

/// The four masses of (2) against the brute-force sums, in both directions (the add pair A = N_Z(μ, σ²),
/// B = N_Z(0, σ²) has the same law: the law is symmetric, and asked in either direction it answers the
/// same), including thresholds on the lattice η + sℤ (ℓ = 1/8 at σ² = 4: the atom is on the upper side).
#[test]
fn split_matches_brute_force_sums_both_directions() {
    let rows = reference_rows("dgauss");
    assert_eq!(rows.len(), 12);
    for r in rows {
        let (s2, mu, dir, l) = (&r[1], r[2].parse::<u32>().unwrap(), &r[3], &r[4]);
        let law = DiscreteGaussianLoss::new(q(s2), mu).unwrap();
        let d = if dir == "remove" { Direction::Remove } else { Direction::Add };
        let s = law.split(d, &q(l), 128).unwrap();
        for (got, want, what) in
            [(&s.a_below, &r[5], "A[L<l]"), (&s.a_above, &r[6], "A[L>=l]"), (&s.b_below, &r[7], "B[L<l]"), (&s.b_above, &r[8], "B[L>=l]")]
        {
            assert!(holds(got, want), "σ²={s2} μ={mu} {dir} ℓ={l} {what}: {got} vs {want}");
            assert!(got.width().to_f64() < 1e-30, "{got}");
        }
    }
    assert_eq!(directions(&DiscreteGaussianLoss::new(q("4"), 1).unwrap()), &[Direction::Remove]);
}

/// The other members of the slot: no mass at ±∞; ρ = μ²/(2σ²); the lattice η + sℤ; the spelling; scaling
/// multiplies σ²; tails far beyond the truncation radius are bounded (not summed) and stay certified.
#[test]
fn infinite_rho_lattice_scaled_and_far_tails() {
    let law = DiscreteGaussianLoss::new(q("4"), 3).unwrap();
    let (ai, bi) = law.infinite(Direction::Remove, 64).unwrap();
    assert!(*ai.hi() == 0 && *bi.hi() == 0);
    assert_eq!(law.rho(), Some(q("9/8")));
    assert_eq!(law.pure_epsilon(), None);
    assert_eq!((law.lattice(), law.lattice_offset()), (Some(q("3/4")), q("9/8")));
    assert_eq!(law.spec(), "dgauss:sigma2=4,mu=3");
    assert_eq!(law.scaled(&q("2")).unwrap().unwrap().spec(), "dgauss:sigma2=8,mu=3");
    // ℓ = ±10⁶: thresholds of X near ∓1.3·10⁶, far beyond the radius (~40)
    let top = law.split(Direction::Remove, &q("1000000"), 128).unwrap();
    assert!(*top.a_above.hi() < 1e-300 && top.a_below.contains(&Float::with_val(128, 1)) && *top.a_above.lo() == 0);
    let bottom = law.split(Direction::Remove, &q("-1000000"), 128).unwrap();
    assert!(*bottom.a_below.hi() < 1e-300 && bottom.b_above.contains(&Float::with_val(128, 1)));
    // a planning quantile: A[L ≥ ℓ] ≈ 1e-10 lies above the mean η
    assert!(law.quantile(Direction::Remove, -23.0, true) > 9.0 / 8.0);
    assert!(DiscreteGaussianLoss::new(q("0"), 1).is_err() && DiscreteGaussianLoss::new(q("1"), 0).is_err());
    // too wide for the term-by-term tails: refused as a resource limit, not a panic or a hang
    let wide = DiscreteGaussianLoss::new(q("1e14"), 1).unwrap();
    assert_eq!(wide.split(Direction::Remove, &q("0"), 64).unwrap_err().kind(), crate::error::ErrorKind::Resource);
}
