//! The law's divergences (the moments themselves are checked in `moments_tests.rs`): the Gaussian at one
//! step, the chord between integer orders against mpmath's moments, and the refusals.

use super::*;
use crate::noise::neighbors::Neighbors;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// mpmath's E[M^a] of `scripts/reference/allocation.txt` for (t, μ², a).
fn positive_reference(t: &str, mu2: &str, a: &str) -> f64 {
    crate::num::reference::rows(include_str!("../../../scripts/reference/allocation.txt"))
        .into_iter()
        .find(|r| r[0] == "positive" && r[1] == t && r[2] == mu2 && r[3] == a)
        .unwrap_or_else(|| panic!("no reference row for t = {t}, mu2 = {mu2}, a = {a}"))[4]
        .parse()
        .unwrap()
}

#[test]
fn one_step_is_the_gaussian_mechanism() {
    // σ = 2, μ = 1: D_α = α/8 in both directions, at integer and fractional orders
    let law = RandomAllocation::new(q("4"), q("1"), 1).unwrap();
    assert!(law.symmetric());
    for a in ["3/2", "2", "7", "1024"] {
        let want = q(a) / 8u32;
        for dir in [Direction::Remove, Direction::Add] {
            let d = law.renyi(dir, &q(a), 128).unwrap().unwrap();
            assert!(d.contains(&rug::Float::with_val(256, &want)), "alpha = {a}: {}", d.to_f64());
        }
    }
}

/// D_α(A‖B) = ln E[M^α]/(α − 1) at integer α; between integers the chord of ln E[M^β]:
/// D_{5/2} ≤ (ln E[M²] + ln E[M³])/(2·(3/2)) (t = 3, μ²/σ² = 1/2: σ² = 2, μ = 1).
#[test]
fn remove_divergences_are_the_moments_and_their_chords() {
    let law = RandomAllocation::new(q("2"), q("1"), 3).unwrap();
    let (m2, m3) = (positive_reference("3", "0.5", "2"), positive_reference("3", "0.5", "3"));
    let d3 = law.renyi(Direction::Remove, &q("3"), 128).unwrap().unwrap().to_f64();
    assert!((d3 - m3.ln() / 2.0).abs() < 1e-14, "{d3}");
    let d = law.renyi(Direction::Remove, &q("5/2"), 128).unwrap().unwrap().to_f64();
    assert!((d - (m2.ln() + m3.ln()) / 3.0).abs() < 1e-14, "{d}");
    // a chord of the convex ln E[M^β] (which vanishes at β = 1) gives a divergence between the integer
    // orders' ones
    let d2 = law.renyi(Direction::Remove, &q("2"), 128).unwrap().unwrap().to_f64();
    assert!(d2 <= d && d <= d3, "{d2} {d} {d3}");
}

/// Add: D_α(B‖A) = ln E[M^{−(α−1)}]/(α − 1), bounded from above; mpmath's two-dimensional quadrature at
/// t = 2 (μ²/σ² = 1/2) lies below the bound at every order, and within 0.1%.
#[test]
fn add_divergences_bound_the_negative_moments() {
    let law = RandomAllocation::new(q("2"), q("1"), 2).unwrap();
    let rows = crate::num::reference::rows(include_str!("../../../scripts/reference/allocation.txt"));
    let mut seen = 0;
    for r in rows.iter().filter(|r| r[0] == "negative" && r[1] == "2") {
        let b: u64 = r[3].parse().unwrap();
        let truth = r[4].parse::<f64>().unwrap().ln() / b as f64;
        let d = law.renyi(Direction::Add, &Rational::from(b + 1), 128).unwrap().unwrap().to_f64();
        assert!(d >= truth * (1.0 - 1e-12) && d <= truth * 1.001, "b = {b}: {d} against {truth}");
        seen += 1;
    }
    assert!(seen >= 4);
}

#[test]
fn refusals_name_the_reason() {
    let law = RandomAllocation::new(q("2"), q("1"), 3).unwrap();
    let e = law.shifts(Neighbors::Replace).unwrap_err();
    assert!(e.to_string().contains("add/remove"), "{e}");
    assert!(law.split(Direction::Remove, &q("0"), 64).is_err() && law.rdp_only() && law.is_bound());
    assert!(RandomAllocation::new(q("2"), q("1"), 0).is_err());
    let e = law.renyi(Direction::Add, &q("1"), 64).unwrap().unwrap_err();
    assert!(e.to_string().contains("greater than 1"), "{e}");
}

/// Neither direction exceeds the one-step Gaussian's αμ²/(2σ²) (Jensen): it caps the orders the moments
/// do not reach (above 256) and the small-noise case, where the add bound and the chords are looser.
#[test]
fn the_one_step_gaussian_caps_both_directions() {
    let law = RandomAllocation::new(q("2"), q("1"), 3).unwrap();
    for dir in [Direction::Remove, Direction::Add] {
        let d = law.renyi(dir, &q("300"), 128).unwrap().unwrap();
        assert!(d.contains(&rug::Float::with_val(64, 75)), "{}", d.to_f64());
    }
    // σ = 1/10: at α = 3/2 the remove direction's chord to α = 2 (D_2 = ln((e^100 + 233)/234) ≈ 94.5)
    // would exceed 3/2·50 = 75
    let law = RandomAllocation::new(q("1/100"), q("1"), 234).unwrap();
    let two = law.renyi(Direction::Remove, &q("2"), 128).unwrap().unwrap().to_f64();
    assert!((two - (100.0 - 234f64.ln())).abs() < 1e-9, "{two}");
    for dir in [Direction::Remove, Direction::Add] {
        let d = law.renyi(dir, &q("3/2"), 128).unwrap().unwrap().to_f64();
        assert!(d <= 75.0 + 1e-9, "{dir:?}: {d}");
    }
}
