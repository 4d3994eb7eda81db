//! Agreement with an independent high-precision reference.
//!
//! Provenance: scripts/reference/dg_reference.py (mpmath + exact integer arithmetic), run in a scratch
//! venv; its output scripts/reference/dg_reference_values.csv is checked in. The reference computes the
//! law of S = X_1+…+X_n by plain n-fold convolution of fixed-point integer pmfs (Kronecker substitution,
//! exact), tails by exact suffix sums and ε(δ) by bisection — a different algorithm from the residue-class
//! construction in src/pld/lattice.rs. Its stated worst-case absolute error is below 1.2e-55.

use rug::{Float, Rational};
use tightdp::parse_rational;
use tightdp::zcdp;
use tightdp::DiscreteGaussian;
use tightdp::PrivacyProfile;

const PREC: u32 = 256;

struct Row {
    case: String,
    sigma2: Rational,
    n: u32,
    mu: u32,
    quantity: String,
    arg: String,
    value: Float,
}

fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/dg_reference_values.csv");
    let mut rd = csv::Reader::from_path(path).expect("reference CSV");
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            Row {
                case: r[0].to_string(),
                sigma2: parse_rational(&r[1]).unwrap(),
                n: r[2].parse().unwrap_or(1),
                mu: r[3].parse().unwrap_or(1),
                quantity: r[4].to_string(),
                arg: r[5].to_string(),
                value: Float::with_val(400, Float::parse(&r[6]).unwrap()),
            }
        })
        .collect()
}

/// Relative agreement; for values of magnitude ≤ 1e-300 the CSV's 50 digits are compared relatively too.
fn agree(got: &Float, want: &Float, rel: f64) -> bool {
    let d = Float::with_val(400, got - want).abs();
    let scale = Float::with_val(400, want.abs_ref());
    d <= scale * rel
}

#[test]
fn epsilon_and_delta_agree_with_reference_to_40_digits() {
    let mut checked = 0;
    let mut profiles: Vec<((Rational, u32, u32), PrivacyProfile)> = Vec::new();
    for r in rows() {
        if r.quantity != "eps_of_delta" && r.quantity != "delta_of_eps" {
            continue;
        }
        let key = (r.sigma2.clone(), r.n, r.mu);
        if !profiles.iter().any(|(k, _)| *k == key) {
            profiles.push((key.clone(), PrivacyProfile::iid_dgauss(&r.sigma2, r.n, r.mu, PREC)));
        }
        let prof = &profiles.iter().find(|(k, _)| *k == key).unwrap().1;
        let arg = parse_rational(&r.arg).unwrap();
        let iv = if r.quantity == "eps_of_delta" { prof.epsilon(&arg).unwrap() } else { prof.delta(&arg).delta };
        // Below the window's resolution (~2^-(prec+24) absolute) the profile is certified in absolute
        // terms only: there the reference must lie inside the certified interval.
        if r.value < 1e-80 {
            assert!(*iv.lo() <= r.value && r.value <= *iv.hi(), "{} {} {}: {} does not contain {}", r.case, r.quantity, r.arg, iv, r.value);
            checked += 1;
            continue;
        }
        assert!(agree(&iv.mid(), &r.value, 1e-40), "{} {} {}: tightdp {} vs reference {}", r.case, r.quantity, r.arg, iv, r.value);
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} reference rows checked");
}

#[test]
fn bureau_epsilon_agrees_with_reference() {
    let mut checked = 0;
    for r in rows().into_iter().filter(|r| r.quantity == "eps_bs") {
        let rho = zcdp::rho_of(&r.sigma2, r.n, r.mu);
        let e = zcdp::eps_bs(&rho, &parse_rational(&r.arg).unwrap(), PREC);
        assert!(agree(&e.mid(), &r.value, 1e-45), "{}: {} vs {}", r.case, e, r.value);
        checked += 1;
    }
    assert_eq!(checked, 16);
}

#[test]
fn normaliser_and_variance_agree_with_reference() {
    let mut checked = 0;
    for r in rows() {
        let d = DiscreteGaussian::new(r.sigma2.clone()).unwrap();
        let got = match r.quantity.as_str() {
            "Z" => d.normaliser_theta(PREC),
            "Var" => d.variance_direct(PREC),
            "sigma2_minus_Var" => d.variance_deficit(PREC),
            _ => continue,
        };
        assert!(agree(&got.mid(), &r.value, 1e-40), "{} {}: {} vs {}", r.case, r.quantity, got, r.value);
        checked += 1;
    }
    assert_eq!(checked, 24);
}
