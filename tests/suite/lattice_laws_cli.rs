//! Issue 35 (compositions of any mix; `q=` on dgauss/dlap): the discrete Gaussian and discrete Laplace
//! composed with other laws and Poisson-subsampled, through their loss laws on the pld grid; values from
//! scripts/reference/lattice_loss_laws.txt (mpmath sums over the integer outputs).

use crate::common::{csv_row as csv, refused};
use rug::Float;

fn field<'a>(row: &'a [(String, String)], k: &str) -> &'a str {
    &row.iter().find(|(h, _)| h == k).unwrap_or_else(|| panic!("no column {k}")).1
}

/// The bracket [KEY_lo, KEY_hi] holds the decimal `want` (compared at 256 bits).
fn holds(row: &[(String, String)], key: &str, want: &str) -> bool {
    let f = |s: &str| Float::with_val(256, Float::parse(s).unwrap());
    let (lo, hi, w) = (f(field(row, &format!("{key}_lo"))), f(field(row, &format!("{key}_hi"))), f(want));
    lo <= w && w <= hi
}

/// 10 x N_Z(0, 4) beside 10 x N(0, 4): δ(3) = 0.2718739170009189927 (the continuous Gaussians' closed form
/// summed over the discrete noises' total, mpmath), on the pld grid; the discrete Gaussian alone keeps its
/// exact lattice engine.
#[test]
fn discrete_and_continuous_gaussians_are_composed() {
    let row = csv(&[
        "delta",
        "--mech",
        "dgauss:sigma2=4,n=10",
        "--mech",
        "gauss:sigma2=4,n=10",
        "--epsilon",
        "3",
        "--method",
        "grid",
        "--grid",
        "1/100",
    ]);
    assert_eq!(field(&row, "method"), "pld-grid");
    assert_eq!(field(&row, "trust"), "certified");
    assert!(holds(&row, "delta", "0.271873917000918992712790866416"), "{row:?}");
    // 4 digits measured at h = 1/100
    assert!(field(&row, "digits").parse::<u32>().unwrap() >= 4, "{row:?}");
    let alone = csv(&["epsilon", "--mech", "dgauss:sigma2=4,n=10", "--delta", "1e-6"]);
    assert_ne!(field(&alone, "method"), "pld-grid");
}

/// Discrete Laplace beside randomized response under replace neighbours: every loss on a common lattice
/// (2/3 and 1/2: step 1/6), both laws with finitely many losses, composed exactly on it; the pld grid at
/// that step (every loss on the grid) overlaps.
#[test]
fn discrete_laplace_and_randomized_response_share_a_lattice() {
    let args = ["epsilon", "--mech", "dlap:scale=3,n=4", "--mech", "rr:epsilon=1/2,n=3", "--neighbors", "replace", "--delta", "1e-6"];
    let row = csv(&args);
    assert_eq!(field(&row, "method"), "exact-atoms");
    assert!(field(&row, "detail").contains("lattice 1/6Z"), "{row:?}");
    assert!(field(&row, "digits").parse::<u32>().unwrap() >= 20, "{row:?}");
    let grid = csv(&[&args[..], &["--method", "grid", "--grid", "1/6"]].concat());
    assert_eq!(field(&grid, "method"), "pld-grid");
    assert!(field(&grid, "digits").parse::<u32>().unwrap() >= 12, "{grid:?}");
    let f = |r: &[(String, String)], k: &str| rug::Float::with_val(256, rug::Float::parse(field(r, k)).unwrap());
    assert!(f(&row, "epsilon_lo") <= f(&grid, "epsilon_hi") && f(&grid, "epsilon_lo") <= f(&row, "epsilon_hi"), "{row:?} vs {grid:?}");
}

/// `q=` on dgauss and dlap: the Poisson-subsampled mechanisms, one and two releases, against the mpmath
/// sums over the mixture pmfs (the larger of the remove and add pairs' δ).
#[test]
fn subsampled_lattice_laws_are_answered() {
    let grid = ["--method", "grid", "--grid", "1/2000"];
    let mut a = vec!["delta", "--mech", "dgauss:sigma2=2,q=0.2", "--epsilon", "0.1"];
    a.extend(grid);
    let row = csv(&a);
    assert_eq!(field(&row, "method"), "pld-grid");
    assert!(holds(&row, "delta", "0.0292933466804386346350485926747516233447"), "{row:?}");
    let mut a = vec!["delta", "--mech", "dlap:scale=2,q=0.3,n=2", "--epsilon", "0.2"];
    a.extend(grid);
    let row = csv(&a);
    assert!(holds(&row, "delta", "0.02932064164021931613935632005744773732778"), "{row:?}");
    // measured 14 digits at h = 1/2000 (the atoms of the subsampled law: the top one on the grid)
    assert!(field(&row, "digits").parse::<u32>().unwrap() >= 10, "{row:?}");
    // the spelling with every key, and the subsampled law beside a continuous one
    let row = csv(&[
        "epsilon",
        "--mech",
        "dgauss:sigma2=9,mu=2,q=1/10,n=3",
        "--mech",
        "gauss:sigma2=50",
        "--delta",
        "1e-5",
        "--method",
        "grid",
        "--grid",
        "1/200",
    ]);
    assert!(field(&row, "target").contains("dgauss:sigma2=9,mu=2,q=1/10,n=3"), "{row:?}");
    assert_eq!(field(&row, "method"), "pld-grid");
}

/// (Poisson subsampling of these laws under replace neighbours is refused: tests/poisson_replace_cli.rs.)
#[test]
fn bad_q_is_refused() {
    for m in ["dgauss:sigma2=4,q=0", "dgauss:sigma2=4,q=1.5", "dlap:scale=2,q=-0.1", "dlap:scale=2,q=2"] {
        refused(&["epsilon", "--mech", m, "--delta", "1e-5"], &["q must be in (0, 1]"]);
    }
    refused(&["epsilon", "--mech", "dgauss:sigma2=4,q=abc", "--delta", "1e-5"], &["q"]);
    refused(&["epsilon", "--mech", "dlap:scale=2,q=0.1,q=0.2", "--delta", "1e-5"], &["given twice"]);
    // the lattice engines do not take a mixture
    refused(&["epsilon", "--mech", "dgauss:sigma2=4", "--mech", "gauss:sigma2=4", "--method", "lattice", "--delta", "1e-5"], &["--method"]);
}
