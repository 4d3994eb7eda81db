use super::*;
use crate::noise::direction::Direction;
use crate::noise::mgf::Mgf;

fn parse_fraction(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// The law of fixed-size batches of fraction γ, noise σ and replace sensitivity `sens`: η = sens²/(2σ²).
fn law(gamma: &str, sigma: &str, sens: &str) -> Mgf {
    let (s, d) = (parse_fraction(sigma), parse_fraction(sens));
    Mgf::WorGaussian { q: parse_fraction(gamma), eta: Rational::from(&d * &d) / (Rational::from(2) * s.clone() * s) }
}

/// The reference `want` (~32 digits) lies in the enclosure widened by 1e-25 relative.
fn holds(z: &Interval, want: &str) -> bool {
    let p = z.prec();
    let w = Float::with_val(p, Float::parse(want).unwrap());
    let tol = Float::with_val(p, 1e-25 * w.to_f64().abs().max(1e-3));
    z.widen(&tol).contains(&w)
}

/// Every point of scripts/reference/wor_gauss_mgf.txt (mpmath's quadrature over the data of the two
/// densities, the sign change of the loss found by root finding, 40 digits) lies in the line's enclosure,
/// in both directions (the law is symmetric), 1e-28 wide or less; at t = 0 the planning value and the
/// certified upper bound of ln M(c) agree with it.
#[test]
fn the_line_matches_mpmath_over_the_data() {
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/wor_gauss_mgf.txt")) {
        let m = law(f[0], f[1], f[2]);
        let p = 160;
        let c = Float::with_val(p, &parse_fraction(f[3]));
        let t: u32 = f[4].parse().unwrap();
        // t = k·h with h = t/4 and k = 4 (the line's fifth value; at t = 0 every value is M(c))
        let h = Float::with_val(p, t.max(1)) / 4u32;
        let k = if t == 0 { 0 } else { 4 };
        for dir in [Direction::Remove, Direction::Add] {
            let v = m.line(dir, &c, &h, 4, 1e-32, p);
            let z = &v[k];
            assert!(holds(z.re(), f[5]) && holds(z.im(), f[6]), "{f:?} {dir:?}: {z:?}");
            assert!(z.re().width().to_f64() < 1e-28 && z.im().width().to_f64() < 1e-28, "{f:?}: {z:?} too wide");
        }
        if t == 0 {
            let want = f[5].parse::<f64>().unwrap().ln();
            let cf = c.to_f64();
            assert!((m.ln_real_f64(Direction::Remove, cf) - want).abs() < 1e-6, "{f:?}: planning value");
            let up = m.ln_real_upper(Direction::Add, &c, p).to_f64();
            assert!(up >= want - 1e-15 && up < want + 1e-12, "{f:?}: upper bound {up} vs {want}");
        }
        n += 1;
    }
    assert_eq!(n, 8);
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
        let p = 128;
        let c = Float::with_val(p, c);
        let h = Float::with_val(p, 0.5);
        let v = m.line(Direction::Remove, &c, &h, 120, 1e-30, p);
        let m_c = v[0].re().hi().clone();
        let d = m.decay(Direction::Remove, &c, &m_c, p);
        for t_star in [2.0, 10.0, 30.0] {
            let b = d.ln_upper(t_star).to_f64();
            assert!(b < m_c.to_f64().ln(), "{g} {sigma}: no decay at {t_star}");
            for (k, z) in v.iter().enumerate().filter(|(k, _)| *k as f64 * 0.5 >= t_star) {
                assert!(z.abs_hi().to_f64().ln() <= b, "{g} {sigma}: |M(c + i{})| above the bound at {t_star}", k as f64 * 0.5);
            }
        }
    }
}
