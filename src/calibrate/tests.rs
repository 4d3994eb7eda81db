//! The calibrations against independent reference values and against each other.

use super::*;
use crate::budget::zcdp;
use crate::num::parse_rational;

/// [SSW24, Table 1], State: Bureau σ² 5.00 → reduced 4.25 (15.08%).
#[test]
fn table1_state_level() {
    let s2 = parse_rational("50000/10001").unwrap();
    let groups = vec![GaussGroup { sigma2: s2.clone(), count: 10, mu: 1 }];
    let delta = parse_rational("1e-11").unwrap();
    let rho = zcdp::rho_of(&s2, 10, 1);
    let target = zcdp::eps_bs(&rho, &delta, 256).mid();
    let br = calibrate_factor(&groups, &delta, &target, 128, 256, 1e-12).unwrap();
    let red_lo = Rational::from(&s2 * &br.lo).to_f64();
    let red_hi = Rational::from(&s2 * &br.hi).to_f64();
    assert!(red_lo < red_hi);
    assert_eq!(format!("{:.2}", red_lo), "4.25");
    let pct = 100.0 * (1.0 - br.lo.to_f64());
    assert_eq!(format!("{:.2}", pct), "15.08");
    // Independent reference: scripts/reference/dg_reference_values.csv, sigma2_red_at_eps_bs for State
    // = 4.24538… (mpmath root finding on the exact-integer convolution).
    assert!((red_lo - 4.24538).abs() < 1e-5);
}

/// The smoothed calibration (used for budgets without a lattice) against the lattice calibration on the
/// DHC 2022-08-25 composition, which has one: the two certified factor brackets must intersect (the
/// f-DP paper's §3.3 setting; our both-terms reduction is 12.28%, README).
#[test]
fn uniform_smoothed_agrees_with_lattice() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations/dhc-2022-08-25.toml");
    let alloc = crate::census::Allocation::from_path(&path).unwrap();
    let groups = alloc.all_mechanisms();
    let delta = parse_rational("1e-10").unwrap();
    let target = zcdp::eps_bs(&alloc.total_rho(), &delta, 256).mid().to_rational().unwrap();
    let lat = calibrate_uniform(&groups, &delta, &target, false, 53, 1e-9).unwrap();
    let smo = calibrate_uniform_smoothed(&groups, &delta, &target, 256, 1e-9).unwrap();
    assert!(
        lat.lo <= smo.hi && smo.lo <= lat.hi,
        "lattice [{}, {}] vs smoothed [{}, {}]",
        lat.lo.to_f64(),
        lat.hi.to_f64(),
        smo.lo.to_f64(),
        smo.hi.to_f64()
    );
    assert_eq!(format!("{:.2}", 100.0 * (1.0 - smo.lo.to_f64())), "12.28");
}
