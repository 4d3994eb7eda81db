use super::*;
use crate::noise::direction::Direction;
use crate::noise::mgf::Mgf;
use crate::noise::mgf_check::{decay_bounds_the_line, line_point_holds, real_point_holds};

fn parse_fraction(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The law of fixed-size batches of fraction γ, noise σ and replace sensitivity `sens`: η = sens²/(2σ²).
fn law(gamma: &str, sigma: &str, sens: &str) -> Mgf {
    let (s, d) = (parse_fraction(sigma), parse_fraction(sens));
    Mgf::WorGaussian { q: parse_fraction(gamma), eta: Rational::from(&d * &d) / (Rational::from(2) * s.clone() * s) }
}

/// Every point of a reference file (columns: the law's three parameters, c, t, re, im) lies in the line's
/// enclosure in both directions (the law is symmetric), 1e-28 wide or less; at t = 0 the planning value and
/// the certified upper bound of ln M(c) agree with it.
fn lines_match(reference: &'static str, law: fn(&str, &str, &str) -> Mgf) {
    let mut n = 0;
    for f in crate::num::reference::rows(reference) {
        let m = law(f[0], f[1], f[2]);
        line_point_holds(&m, &[Direction::Remove, Direction::Add], f[3], f[4], f[5], f[6]);
        if f[4] == "0" {
            real_point_holds(&m, Direction::Remove, Direction::Add, f[3], f[5], 1e-6);
        }
        n += 1;
    }
    assert_eq!(n, 8);
}

/// scripts/reference/wor_gauss_mgf.txt: mpmath's quadrature over the data of the two densities, the sign
/// change of the loss found by root finding, 40 digits.
#[test]
fn the_line_matches_mpmath_over_the_data() {
    lines_match(include_str!("../../scripts/reference/wor_gauss_mgf.txt"), law);
}

/// M(0) = 1: the atom w₀ = (1 − γ)(1 − 2Φ̄(μ/2)) and the two half-line masses make a probability law
/// (the closed form of the atom against the quadratures of the two densities).
#[test]
fn the_masses_add_to_one() {
    for (g, sigma, sens) in [("1/10", "1", "2"), ("8/1875", "11/10", "2"), ("1/2", "1/5", "1"), ("99/100", "3", "2")] {
        let m = law(g, sigma, sens);
        let p = 128;
        let v = m.line(Direction::Remove, &Float::with_val(p, 0), &Float::with_val(p, 1), 0, 1e-30, p);
        let one = Float::with_val(p, 1);
        assert!(v[0].re().contains(&one), "{g} {sigma} {sens}: {:?}", v[0]);
        assert!(v[0].re().width().to_f64() < 1e-27, "{g} {sigma} {sens}: {:?}", v[0]);
    }
}

/// sup_{t ≥ t*} |M(c + it)| stays below the decay bound on every later point of the line, and the bound falls
/// below M(c) (it is useful).
#[test]
fn the_decay_bounds_every_later_point_of_the_line() {
    for (g, sigma, sens, c) in [("1/10", "1", "2", 0.75), ("8/1875", "11/10", "2", 3.0), ("1/2", "2", "2", 0.25)] {
        let m = law(g, sigma, sens);
        decay_bounds_the_line(&m, Direction::Remove, c, 0.5, 120, &[2.0, 10.0, 30.0]);
    }
}

/// The Laplace mechanism of scale b and sensitivity Δ on fixed-size batches of fraction γ: ε₀ = Δ/b.
fn laplace_law(gamma: &str, scale: &str, sens: &str) -> Mgf {
    Mgf::WorLaplace { q: parse_fraction(gamma), eps0: parse_fraction(sens) / parse_fraction(scale) }
}

/// The Laplace mechanism's law: scripts/reference/wor_laplace_mgf.txt (mpmath over the data of the two
/// Laplace densities, split at their kinks).
#[test]
fn the_laplace_line_matches_mpmath_over_the_data() {
    lines_match(include_str!("../../scripts/reference/wor_laplace_mgf.txt"), laplace_law);
}

/// The Laplace law's M(0) = 1 (the atom's closed form against the quadrature of the two halves), its largest
/// loss ln r(ε₀) = ln(1 − γ + γe^{ε₀}), and the decay bound against every later point of a line.
#[test]
fn the_laplace_law_is_a_probability_law_whose_decay_bound_holds() {
    for (g, b, d) in [("1/10", "1", "1"), ("8/1875", "1/2", "1"), ("99/100", "3", "1")] {
        let m = laplace_law(g, b, d);
        let p = 128;
        let v = m.line(Direction::Remove, &Float::with_val(p, 0), &Float::with_val(p, 1), 0, 1e-30, p);
        assert!(v[0].re().contains(&Float::with_val(p, 1)) && v[0].re().width().to_f64() < 1e-27, "{g} {b}: {:?}", v[0]);
        let (gf, e0) = (parse_fraction(g).to_f64(), (parse_fraction(d) / parse_fraction(b)).to_f64());
        let sup = m.loss_sup(Direction::Add, p).unwrap();
        assert!((sup.mid().to_f64() - (1.0 - gf + gf * e0.exp()).ln()).abs() < 1e-14, "{g} {b}: {sup:?}");
    }
    decay_bounds_the_line(&laplace_law("1/10", "1", "1"), Direction::Remove, 0.75, 0.5, 160, &[2.0, 10.0, 40.0]);
}
