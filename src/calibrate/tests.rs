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

/// The generic calibration on an accountant's measure: the TPR at FPR 1/100, 1 − f(1/100), of one query
/// N_Z(0, 10·c) meets 0.02. Independent check: the continuous Gaussian's f(α) = Φ(Φ⁻¹(1 − α) − μ), μ = 1/σ,
/// meets 0.98 at μ = Φ⁻¹(0.99) − Φ⁻¹(0.98) = 0.27259896 (Python's statistics.NormalDist), σ² = 13.4571,
/// c = 1.34571 (the discrete Gaussian's lies within 1% of it at this σ²). Searched on the query itself and
/// on a fast estimate of the same root, the two certified factor brackets intersect; each end's certified
/// TPR lies on its side of the target.
#[test]
fn a_measure_is_calibrated() {
    let groups = vec![GaussGroup { sigma2: Rational::from(10), count: 1, mu: 1 }];
    let make = |c: &Rational| scaled_composition(&groups, c);
    let alpha = Rational::from((1, 100));
    let tpr = |acc: &Accountant| crate::attack::tpr_at_fpr(acc, &alpha);
    let query = Query::Measure(&tpr);
    let target = Float::with_val(128, 0.02);
    let opts = CalibrationOptions { arith: Some(Arith::Mpfr(128)), rel_width: 1e-9, start: 1.0 };
    let on_query = calibrate(&make, &query, &target, &Search::Query(Some(Arith::F64)), &opts).unwrap();
    assert!(on_query.lo < on_query.hi && Rational::from(&on_query.hi - &on_query.lo).to_f64() < 1e-7);
    assert!(*on_query.at_lo.lo() > target && *on_query.at_hi.hi() < target);
    assert!((on_query.lo.to_f64() - 1.34571).abs() < 0.0135, "{}", on_query.lo.to_f64());
    // a fast estimate with the same root: the f64 lattice's TPR minus the target
    let estimate = |comp: &Composition| -> Fallible<f64> {
        let acc = Accountant::new(comp.clone(), Options { arith: Some(Arith::F64), ..Options::default() })?;
        Ok(1.0 - acc.tradeoff(&alpha)?.mid().to_f64() - 0.02)
    };
    let on_estimate = calibrate(&make, &query, &target, &Search::Estimate(&estimate), &opts).unwrap();
    assert!(on_estimate.lo <= on_query.hi && on_query.lo <= on_estimate.hi);
}

/// A family that refuses a factor ends the calibration with its error; an unreachable target is refused.
#[test]
fn refusals_end_the_calibration() {
    let groups = vec![GaussGroup { sigma2: Rational::from(10), count: 1, mu: 1 }];
    let refuse = |_: &Rational| -> Fallible<Composition> { crate::fallible!(Input, "no such factor") };
    let q = Query::Epsilon { delta: Rational::from((1, 1_000_000)) };
    let opts = CalibrationOptions { arith: Some(Arith::F64), rel_width: 1e-6, start: 1.0 };
    let e = calibrate(&refuse, &q, &Float::with_val(64, 1), &Search::Query(Some(Arith::F64)), &opts).unwrap_err();
    assert!(e.to_string().contains("no such factor"), "{e}");
    // a measure that stays below the target however small the noise: refused after the bracketing
    let make = |c: &Rational| scaled_composition(&groups, c);
    let below = |_: &Composition| -> Fallible<f64> { Ok(-1.0) };
    let e = calibrate(&make, &q, &Float::with_val(64, 1), &Search::Estimate(&below), &opts).unwrap_err();
    assert!(e.to_string().contains("not reachable with smaller noise"), "{e}");
}
