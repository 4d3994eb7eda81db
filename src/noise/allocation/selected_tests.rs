//! k of t steps: the decomposition's divergences against mpmath's (`scripts/reference/allocation_k.txt`),
//! above the k-of-t pair's own, the Gaussian at k = t, the add direction against the one-of-two
//! quadrature, and the refusals.

use super::*;
use crate::noise::neighbors::Neighbors;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// Rows "kind t k 0.5 a value" of `allocation_k.txt` (μ²/σ² = 1/2: σ² = 2, μ = 1).
fn reference(kind: &str) -> Vec<(u64, u64, u64, f64)> {
    crate::num::reference::kind_rows(include_str!("../../../scripts/reference/allocation_k.txt"), kind)
        .into_iter()
        .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap(), r[4].parse().unwrap(), r[5].parse().unwrap()))
        .collect()
}

/// Remove: (k − r)·D_a(t₀) + r·D_a(t₀ + 1) to 14 digits, with and without a remainder r, and above the
/// divergence of the k-of-t pair itself (enumerated over every tuple of k-subsets).
#[test]
fn remove_divergences_compose_the_groups_and_bound_the_pair() {
    let (split, subset) = (reference("split"), reference("subset"));
    assert!(split.len() >= 14 && split.len() == subset.len());
    for ((t, k, a, want), (t2, k2, a2, pair)) in split.into_iter().zip(subset) {
        assert_eq!((t, k, a), (t2, k2, a2));
        let law = SelectedAllocation::new(q("2"), q("1"), t, k).unwrap();
        let d = law.renyi(Direction::Remove, &Rational::from(a), 128).unwrap().unwrap().to_f64();
        assert!((d - want).abs() < 1e-14 * want, "t = {t}, k = {k}, a = {a}: {d} against {want}");
        assert!(pair < d, "t = {t}, k = {k}, a = {a}: the pair's {pair} above the bound {d}");
    }
}

/// Add: two groups of two steps, each one-of-two group's bound above mpmath's two-dimensional quadrature
/// (`allocation.txt`, rows "negative 2 0.5 b") and within 0.1%, so the sum is too.
#[test]
fn add_divergences_add_the_groups_bounds() {
    let law = SelectedAllocation::new(q("2"), q("1"), 4, 2).unwrap();
    let rows = crate::num::reference::rows(include_str!("../../../scripts/reference/allocation.txt"));
    let mut seen = 0;
    for r in rows.iter().filter(|r| r[0] == "negative" && r[1] == "2") {
        let b: u64 = r[3].parse().unwrap();
        let truth = 2.0 * r[4].parse::<f64>().unwrap().ln() / b as f64;
        let d = law.renyi(Direction::Add, &Rational::from(b + 1), 128).unwrap().unwrap().to_f64();
        assert!(d >= truth * (1.0 - 1e-12) && d <= truth * 1.001, "b = {b}: {d} against {truth}");
        seen += 1;
    }
    assert!(seen >= 4);
}

/// k = t: every step holds the record, k Gaussian releases, D_α = kα/8 at σ = 2, both directions.
#[test]
fn every_step_is_k_gaussian_releases() {
    let law = SelectedAllocation::new(q("4"), q("1"), 3, 3).unwrap();
    assert!(law.symmetric());
    for a in ["3/2", "2", "7"] {
        let want = q(a) * 3u32 / 8u32;
        for dir in [Direction::Remove, Direction::Add] {
            let d = law.renyi(dir, &q(a), 128).unwrap().unwrap();
            assert!(d.contains(&rug::Float::with_val(256, &want)), "alpha = {a}: {}", d.to_f64());
        }
    }
    assert!(!SelectedAllocation::new(q("4"), q("1"), 4, 3).unwrap().symmetric());
}

#[test]
fn refusals_name_the_reason() {
    for (t, k) in [(3, 0), (3, 4)] {
        let e = SelectedAllocation::new(q("2"), q("1"), t, k).unwrap_err();
        assert!(e.to_string().contains("between 1 and the steps of an epoch"), "{e}");
    }
    let law = SelectedAllocation::new(q("2"), q("1"), 5, 2).unwrap();
    assert_eq!(law.spec(), "alloc:sigma2=2,mu=1,steps=5,k=2");
    assert!(law.shifts(Neighbors::Replace).unwrap_err().to_string().contains("add/remove"));
    assert!(law.split(Direction::Remove, &q("0"), 64).is_err() && law.rdp_only() && law.is_bound());
    let e = law.renyi(Direction::Add, &q("1"), 64).unwrap().unwrap_err();
    assert!(e.to_string().contains("greater than 1"), "{e}");
}
