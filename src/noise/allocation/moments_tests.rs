//! The moments against mpmath (`scripts/reference/allocation.{py,txt}`: the positive moments by direct
//! enumeration of the multinomial sum, the negative ones by two-dimensional quadrature at t = 2 and by
//! nested quadrature of the Laplace-transform identity at t = 234).

use super::*;

fn reference(kind: &str) -> Vec<(u64, Rational, u64, f64, String)> {
    crate::num::reference::rows(include_str!("../../../scripts/reference/allocation.txt"))
        .into_iter()
        .filter(|r| r[0] == kind)
        .map(|r| {
            let mu2 = crate::num::parse_rational(r[2]).unwrap();
            (r[1].parse().unwrap(), mu2, r[3].parse().unwrap(), r[4].parse().unwrap(), r[4].to_string())
        })
        .collect()
}

/// mpmath's 30-digit values, to 25 digits (the enclosure is 128-bit; the reference is rounded).
#[test]
fn positive_moments_match_the_multinomial_sums() {
    let rows = reference("positive");
    assert!(rows.len() >= 19);
    for (t, mu2, a, _, text) in rows {
        let m = positive_moments(t, &mu2, a as usize, 128);
        let r = Float::with_val(128, Float::parse(&text).unwrap());
        let got = &m[a as usize];
        let rel = Float::with_val(128, got.mid() - &r).abs() / &r;
        assert!(rel < 1e-25, "t = {t}, mu2 = {mu2}, a = {a}: {} against {text} ({rel})", got.to_f64());
        assert!(got.width() / got.mid() < 1e-30, "width {}", got.width().to_f64());
    }
}

/// The bound holds the truth from above, and its logarithm is within 0.3% of ln E[M^{−b}] (0.01–0.07% measured).
#[test]
fn negative_moment_bounds_hold_and_are_tight() {
    let rows = reference("negative");
    assert!(rows.len() >= 10);
    let mut grids: Vec<(u64, Rational, PsiGrid)> = Vec::new();
    for (t, mu2, b, truth, _) in rows {
        if !grids.iter().any(|(gt, gm, _)| *gt == t && *gm == mu2) {
            let reach = s_needed(t, mu2.to_f64(), 64);
            grids.push((t, mu2.clone(), PsiGrid::new(t, &mu2, reach, 64)));
        }
        let grid = &grids.iter().find(|(gt, gm, _)| *gt == t && *gm == mu2).unwrap().2;
        let bound = grid.negative_moment(b).unwrap().hi().to_f64();
        assert!(bound >= truth * (1.0 - 1e-12), "t = {t}, b = {b}: bound {bound} below the truth {truth}");
        let (lb, lt) = (bound.ln(), truth.ln());
        assert!(lb <= lt * 1.003, "t = {t}, b = {b}: ln bound {lb} against ln truth {lt}");
    }
}
