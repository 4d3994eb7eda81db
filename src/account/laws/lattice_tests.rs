//! The lattice laws (discrete Gaussian, discrete Laplace) on the pld grid through their loss laws: overlap
//! with the exact lattice engines, subsampled and mixed compositions against mpmath
//! (scripts/reference/lattice_loss_laws.txt: brute-force sums over the integer outputs).

use super::super::vocabulary::Query;
use super::tests::holds;
use crate::account::{Accountant, Certified, Engine, Method, Options, Trust};
use crate::model::spec::parse_mech;
use crate::model::{Composition, Neighbors};
use crate::num::parse_rational;
use rug::Rational;

fn q(s: &str) -> Rational {
    parse_rational(s).unwrap()
}

fn comp(specs: &[&str], nb: Neighbors) -> Composition {
    Composition::new(specs.iter().map(|s| parse_mech(s).unwrap()).collect(), nb).unwrap()
}

fn overlap(a: &Certified, b: &Certified) -> bool {
    a.lo() <= b.hi() && b.lo() <= a.hi()
}

/// The same compositions of lattice laws alone, through the loss-law route (`law_query`, the test-only
/// entry: the accountant sends them to the exact lattice engines) and through the exact lattice engine:
/// the brackets must overlap, and the pld grid — every loss on the lattice step, so exact up to rounding
/// and the Fourier tails (n ≥ 16) — must certify many digits. Direct (n < 16) and Fourier paths, add/remove
/// and replace, sensitivities 1 and above.
#[test]
fn loss_law_route_overlaps_the_exact_lattice_engine() {
    for (specs, nb, d, digits) in [
        (&["dgauss:sigma2=4,n=10"][..], Neighbors::AddRemove, "1e-6", 12),
        (&["dgauss:sigma2=2,mu=2,n=3"][..], Neighbors::Replace, "1e-5", 12),
        (&["dlap:scale=3,n=5"][..], Neighbors::AddRemove, "1e-6", 12),
        (&["dgauss:sigma2=9,n=20"][..], Neighbors::AddRemove, "1e-8", 6),
        (&["dlap:scale=5/2,mu=3,n=12", "dgauss:sigma2=6,n=4"][..], Neighbors::AddRemove, "1e-6", 8),
    ] {
        let acc = Accountant::new(comp(specs, nb), Options::default()).unwrap();
        let exact = acc.epsilon(&q(d)).unwrap();
        assert_ne!(exact.engine(), Engine::Pld);
        // (the loss-law route takes the exact atoms where every law has finitely many losses — the discrete
        // Laplace — and the pld grid otherwise; the grid itself is asked directly)
        let laws = acc.comp.law_shifts().unwrap();
        let grid = acc.pld_refined(Query::Epsilon(&q(d)), &laws, Trust::Exact).unwrap();
        assert_eq!(grid.engine(), Engine::Pld);
        assert!(overlap(&exact, &grid), "{specs:?} ε({d}): exact {exact:?} vs pld grid {grid:?}");
        assert!(grid.meets(digits), "{specs:?} ε({d}): {grid:?}");
        let route = acc.law_query(Query::Epsilon(&q(d))).unwrap();
        assert!(overlap(&exact, &route), "{specs:?} ε({d}): exact {exact:?} vs the loss-law route {route:?}");
        let e = q("1");
        let exact = acc.delta(&e).unwrap().delta;
        let grid = acc.pld_refined(Query::Delta(&e), &laws, Trust::Exact).unwrap();
        assert!(overlap(&exact, &grid), "{specs:?} δ(1): exact {exact:?} vs pld grid {grid:?}");
        let route = acc.law_query(Query::Delta(&e)).unwrap();
        assert!(overlap(&exact, &route), "{specs:?} δ(1): exact {exact:?} vs the loss-law route {route:?}");
    }
}

/// The Poisson-subsampled discrete Gaussian (σ² = 2, q = 0.2) and discrete Laplace (b = 2, q = 0.3),
/// one and two releases: δ(ε), the larger of the remove and add pairs', against the mpmath sums of the
/// mixture pmfs over all outputs (rows `sub`). The heavy tier asks the pld grid for 4 digits of one
/// release (~15 s for the discrete Gaussian at ε = 0.5) and convolves two releases at h = 1/2000 (~30 s, a
/// direct convolution, quadratic in 1/h); the default tier runs every row along the same paths, asking for
/// 2 digits of one release and two releases at h = 1/500 (one digit).
#[test]
fn subsampled_lattice_laws_hold_the_mpmath_mixture_sums() {
    subsampled_lattice_laws(false);
}

#[test]
#[ignore = "heavy: the subsampled lattice laws on the grid to 4 digits and at h = 1/2000 (~45 s)"]
fn subsampled_lattice_laws_hold_the_mpmath_mixture_sums_at_the_fine_grid() {
    subsampled_lattice_laws(true);
}

fn subsampled_lattice_laws(heavy: bool) {
    let rows = crate::noise::dgauss_loss::tests::reference_rows("sub");
    assert_eq!(rows.len(), 6);
    let (one_digits, step, two_digits) = if heavy { (4, "1/2000", 2) } else { (2, "1/500", 1) };
    for r in rows {
        let (law, par, mu, qq, n, eps, want) = (&r[1], &r[2], &r[3], &r[4], &r[5], &r[6], &r[9]);
        let key = if law == "dgauss" { "sigma2" } else { "scale" };
        let spec = format!("{law}:{key}={par},mu={mu},q={qq},n={n}");
        // two releases are convolved directly (quadratic in 1/h): a fixed step keeps the test short
        let o = if n == "1" {
            Options { digits: one_digits, grid_work: u64::MAX, ..Options::default() }
        } else {
            Options { method: Method::Grid, grid: Some(q(step)), digits: 3, ..Options::default() }
        };
        let acc = Accountant::new(comp(&[&spec], Neighbors::AddRemove), o).unwrap();
        let d = acc.delta(&q(eps)).unwrap().delta;
        if n == "1" {
            // one release: the law's own distribution functions (`account::single`) to every digit
            assert_eq!(d.engine(), Engine::Closed);
            assert!(holds(&d, want) && d.meets(20), "{spec} δ({eps}): {d:?} vs {want}");
        }
        // and the pld grid
        let d = if n == "1" { acc.pld_refined(Query::Delta(&q(eps)), &acc.comp.law_shifts().unwrap(), Trust::Exact).unwrap() } else { d };
        assert_eq!(d.engine(), Engine::Pld);
        assert!(holds(&d, want), "{spec} δ({eps}): {d:?} vs {want}");
        // the subsampled law's atoms g(η − s·x) are off the grid: the dominating law is exact to ~20 digits
        // here, the dominated one (balanced merge of atoms far apart) only first order in h — measured at
        // h = 1/2000 for the discrete Gaussian n = 2: relative width 1.7e-3 (2 digits)
        assert!(d.meets(if n == "1" { one_digits } else { two_digits }), "{spec} δ({eps}): {d:?}");
    }
}

/// 10 discrete Gaussians (σ² = 4) beside 10 continuous ones (σ² = 4): δ(ε) and ε(δ) against the mpmath
/// sum over the discrete noises' total of the Gaussians' closed form (rows `mix`).
#[test]
fn discrete_and_continuous_gaussians_compose() {
    let c = comp(&["dgauss:sigma2=4,n=10", "gauss:sigma2=4,n=10"], Neighbors::AddRemove);
    let o = Options { method: Method::Grid, grid: Some(q("1/100")), ..Options::default() };
    let acc = Accountant::new(c.clone(), o).unwrap();
    for (e, want) in [("1", "0.589099666150178708639068129256"), ("3", "0.271873917000918992712790866416")] {
        let d = acc.delta(&q(e)).unwrap().delta;
        assert_eq!(d.engine(), Engine::Pld);
        // measured relative width 4e-5 at h = 1/100
        assert!(holds(&d, want) && d.meets(4), "δ({e}): {d:?} vs {want}");
    }
    // the accountant's own refinement, at its default budget
    let acc = Accountant::new(c, Options { digits: 3, ..Options::default() }).unwrap();
    let eps = acc.epsilon(&q("1e-6")).unwrap();
    assert!(holds(&eps, "12.5952467355067280361791484645") && eps.meets(3), "{eps:?}");
}
