//! The Poisson-subsampled Laplace mechanism (add/remove) on the tilted Fourier inversion of its moment
//! generating function (`noise::mgf_laplace_sub`): against dp_accounting's two estimates
//! (scripts/reference/poisson_laplace_peers.txt) and the pld grid's own bracket at a fixed step (an
//! independent method: the grid discretises the law's distribution functions).

use crate::common::{csv_row, get, inside_the_grids_bracket};

fn ends(row: &[(String, String)], what: &str) -> (f64, f64) {
    (get(row, &format!("{what}_lo")).parse().unwrap(), get(row, &format!("{what}_hi")).parse().unwrap())
}

/// Each case of the peer's file: 20 digits or more, the bracket between dp_accounting's optimistic and
/// pessimistic values at discretisation 1e-5.
#[test]
fn many_releases_to_twenty_digits_between_dp_accountings_estimates() {
    let mut n = 0;
    let text = include_str!("../../scripts/reference/poisson_laplace_peers.txt");
    for f in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split_whitespace().collect::<Vec<_>>()) {
        let mech = format!("laplace:scale={},q={},n={}", f[0], f[1], f[2]);
        let row = csv_row(&["epsilon", "--mech", &mech, "--delta", f[3]]);
        assert_eq!(get(&row, "method"), "tilted-fourier", "{mech}: {row:?}");
        assert!(get(&row, "digits").parse::<u32>().unwrap() >= 20, "{mech}: {row:?}");
        let (lo, hi) = ends(&row, "epsilon");
        let (pess, opt): (f64, f64) = (f[4].parse().unwrap(), f[5].parse().unwrap());
        assert!(opt <= lo && hi <= pess, "{mech}: [{lo}, {hi}] outside dp_accounting's [{opt}, {pess}]");
        n += 1;
    }
    assert_eq!(n, 3);
}

/// δ(3) and ε(1e-6) of 300 releases at q = 0.05 lie inside the pld grid's brackets at h = 1/1000.
#[test]
fn the_inversion_lies_inside_the_grids_bracket() {
    let mech = "laplace:scale=1,q=0.05,n=300";
    for (query, key, at, what) in [("delta", "--epsilon", "3", "delta"), ("epsilon", "--delta", "1e-6", "epsilon")] {
        let row = inside_the_grids_bracket(&[query, "--mech", mech, key, at], what, "1/1000");
        assert_eq!(get(&row, "method"), "tilted-fourier", "{row:?}");
    }
}
