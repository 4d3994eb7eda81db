//! One release of one mechanism (a law with count 1) is answered from the law's own certified
//! distribution functions, δ(ε) = A[L = ∞] + A[L ≥ ε] − e^ε B[L ≥ ε] (`account::single`), not on a grid:
//! every bracket holds an independent reference (to the digits it is printed with) and certifies 20 digits or more, where the pld grid gave 2 (the
//! discrete Gaussian sampled without replacement at h = 1/500).

use crate::common::{csv_row, get, holds, holds_rounded};

fn digits(row: &[(String, String)]) -> u32 {
    get(row, "digits").parse().unwrap()
}

fn one_release(row: &[(String, String)]) {
    assert!(get(row, "detail").starts_with("one release"), "{row:?}");
}

/// The Poisson-subsampled Gaussian (q = 0.2, σ² = 1/2): the remove direction's δ(0.5) is the larger
/// (the add direction's is 0), scripts/reference/subsampled_gaussian.txt (mpmath integrals).
#[test]
fn subsampled_gaussian_holds_the_mpmath_integral() {
    let row = csv_row(&["delta", "--mech", "gauss:sigma2=1/2,q=0.2", "--epsilon", "0.5"]);
    one_release(&row);
    holds(&row, "delta", "0.03972710167217785343487236759602039688482");
    assert!(digits(&row) >= 20, "{row:?}");
}

/// The Laplace mechanism (b = 2, μ = 1): δ(0.1), and ε at that δ gives 0.1 back;
/// scripts/reference/laplace_composition.txt (mpmath quadrature).
#[test]
fn laplace_holds_the_mpmath_quadrature_both_ways() {
    let d = "0.181269246922018141330064491381";
    let row = csv_row(&["delta", "--mech", "laplace:scale=2", "--epsilon", "0.1"]);
    one_release(&row);
    holds_rounded(&row, "delta", d);
    assert!(digits(&row) >= 20, "{row:?}");
    let row = csv_row(&["epsilon", "--mech", "laplace:scale=2", "--delta", d]);
    one_release(&row);
    holds(&row, "epsilon", "0.1");
    assert!(digits(&row) >= 20, "{row:?}");
}

/// One run of the discrete Gaussian N_Z(0, 4), μ = 2, sampled without replacement (5 of 50): exact sums
/// over the integers (scripts/reference/wor_subsampled_gaussian.txt); the bound's trust is kept.
#[test]
fn the_discrete_gaussian_without_replacement_to_thirty_digits() {
    let args = ["delta", "--mech", "dgauss:sigma2=4,mu=2,sampling=wor,m=5,pop=50", "--epsilon", "1", "--neighbors", "replace"];
    let row = csv_row(&args);
    one_release(&row);
    holds_rounded(&row, "delta", "0.0002181634419272223697517802");
    assert!(digits(&row) >= 30, "{row:?}");
    assert_eq!(get(&row, "trust"), "certified-bound");
}
