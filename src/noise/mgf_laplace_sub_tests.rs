use super::*;
use crate::noise::mgf::{Decay, Mgf};
use crate::noise::mgf_check::{decay_bounds_the_line, line_point_holds, real_point_holds};

fn parse_fraction(s: &str) -> Rational {
    let mut it = s.split('/');
    let n: i64 = it.next().unwrap().parse().unwrap();
    let d: i64 = it.next().map_or(1, |d| d.parse().unwrap());
    Rational::from((n, d))
}

/// The law of `laplace:scale=B,q=Q` (sensitivity 1): ε₀ = 1/B.
fn law(q: Rational, scale: Rational) -> Mgf {
    Mgf::PoissonLaplace { q, eps0: Rational::from(1) / scale }
}

/// Every point of scripts/reference/poisson_laplace_mgf.txt (mpmath's quadrature over the data, 40 digits)
/// lies in the line's enclosure, 1e-28 wide or less; at t = 0 the planning value and the certified upper bound
/// of ln M agree with it.
#[test]
fn the_line_matches_mpmath_over_the_data() {
    let text = include_str!("../../scripts/reference/poisson_laplace_mgf.txt");
    let seen = reference_rows_hold(text, |f| {
        let (q, scale) = (parse_fraction(f[0]), parse_fraction(f[1]));
        if f[2] == "replace" {
            // (the replace pair is its own mirror: its rows hold in both directions)
            (Mgf::PoissonReplaceLaplace { q, eps0: Rational::from(1) / scale }, vec![Direction::Remove, Direction::Add])
        } else {
            (law(q, scale), vec![direction(f[2])])
        }
    });
    assert_eq!(seen, 12);
}

/// `add` or `remove` of a reference row.
fn direction(word: &str) -> Direction {
    if word == "add" {
        Direction::Add
    } else {
        Direction::Remove
    }
}

/// Every row of a reference line (q, the law's parameter, direction, c, t, re, im): the law `law` gives for
/// it holds the point in each direction it names, and at t = 0 (M(c)) the planning value and the certified
/// upper bound of ln M in the first agree with it. Returns the rows seen.
fn reference_rows_hold(text: &'static str, law: impl Fn(&[&str]) -> (Mgf, Vec<Direction>)) -> usize {
    let mut n = 0;
    for f in crate::num::reference::rows(text) {
        let (m, dirs) = law(&f);
        line_point_holds(&m, &dirs, f[3], f[4], f[5], f[6]);
        if f[4] == "0" {
            real_point_holds(&m, dirs[0], dirs[0], f[3], f[5], 1e-9);
        }
        n += 1;
    }
    n
}

/// The decay bound of each law `law(q, parameter)` over three settings holds every later point of its line in
/// both directions and falls below M(c); it is made of uniform components.
fn decays_in_both_directions(law: impl Fn(Rational, Rational) -> Mgf) {
    for (q, x, c) in [((1, 10), (1, 1), 0.75), ((1, 100), (1, 2), 2.0), ((1, 4), (3, 1), 0.25)] {
        let m = law(Rational::from(q), Rational::from(x));
        for dir in [Direction::Remove, Direction::Add] {
            let d = decay_bounds_the_line(&m, dir, c, 0.5, 200, &[2.0, 10.0, 50.0]);
            assert!(matches!(d, Decay::Components { .. }));
        }
    }
}

/// sup_{t ≥ t*} |M(c + it)| stays below the decay bound on every later point of the line in both directions,
/// and the bound falls below M(c).
#[test]
fn the_decay_bounds_every_later_point_of_the_line() {
    decays_in_both_directions(law);
}

/// The replace pair's decay bound holds every later point of its line and falls below M(c).
#[test]
fn the_replace_pairs_decay_bounds_every_later_point_of_the_line() {
    for (q, scale, c) in [((1, 10), (1, 1), 0.75), ((1, 4), (3, 1), 0.25)] {
        let m = Mgf::PoissonReplaceLaplace { q: Rational::from(q), eps0: Rational::from(1) / Rational::from(scale) };
        decay_bounds_the_line(&m, Direction::Remove, c, 0.5, 200, &[2.0, 10.0, 50.0]);
    }
}

/// The largest loss: ln(1 − q + q e^{ε₀}) removing, −ln(1 − q + q e^{−ε₀}) adding (by hand in f64).
#[test]
fn the_loss_is_bounded_by_the_atoms() {
    let m = law(Rational::from((1, 10)), Rational::from(1));
    let up = m.loss_sup(Direction::Remove, 128).unwrap().mid().to_f64();
    let down = m.loss_sup(Direction::Add, 128).unwrap().mid().to_f64();
    assert!((up - (0.9 + 0.1 * 1f64.exp()).ln()).abs() < 1e-15, "{up}");
    assert!((down + (0.9 + 0.1 * (-1f64).exp()).ln()).abs() < 1e-15, "{down}");
}

/// Clenshaw–Curtis weights: positive, summing to 2, and exact on x⁴ and x⁸ (2/5, 2/9) at n = 8 (the degree
/// the rule integrates exactly), not on x¹⁰.
#[test]
fn clenshaw_curtis_integrates_its_degree_exactly() {
    let p = 128;
    let (x, w) = crate::noise::mgf_quad::clenshaw_curtis(8, p);
    let sum = w.iter().fold(Interval::zero(p), |a, b| a.add(b));
    assert!(w.iter().all(|w| w.is_positive()) && sum.contains(&Float::with_val(p, 2)), "{sum:?}");
    // (even powers by repeated products: powu takes non-negative intervals, and the middle node encloses 0)
    let pow = |x: &Interval, k: u32| (0..k).fold(Interval::one(p), |a, _| a.mul(x));
    let moment = |k: u32| x.iter().zip(&w).fold(Interval::zero(p), |a, (x, w)| a.add(&w.mul(&pow(x, k))));
    assert!(moment(4).contains(&(Float::with_val(p, 2) / 5u32)) && moment(4).width().to_f64() < 1e-30);
    assert!(moment(8).contains(&(Float::with_val(p, 2) / 9u32)));
    assert!(!moment(10).contains(&(Float::with_val(p, 2) / 11u32)));
}

/// The exponential mechanism's bounded-range pair on a Poisson subsample: every point of
/// scripts/reference/poisson_bounded_range_mgf.txt (mpmath's quadrature of the pair's densities, 40 digits)
/// lies in the line's enclosure, 1e-28 wide or less; at t = 0 the planning value and the certified upper bound
/// of ln M agree with it.
#[test]
fn the_bounded_range_line_matches_mpmath_over_the_data() {
    let text = include_str!("../../scripts/reference/poisson_bounded_range_mgf.txt");
    let seen = reference_rows_hold(text, |f| {
        (Mgf::PoissonBoundedRange { q: parse_fraction(f[0]), eps: parse_fraction(f[1]) }, vec![direction(f[2])])
    });
    assert_eq!(seen, 9);
}

/// The bounded-range pair's decay bound holds every later point of its line in both directions and falls
/// below M(c) (without atoms, the whole tilted measure decays).
#[test]
fn the_bounded_range_decay_bounds_every_later_point_of_the_line() {
    decays_in_both_directions(|q, eps| Mgf::PoissonBoundedRange { q, eps });
}

/// The bounded-range pair's largest loss is the Laplace law's at ε₀ = ε (the same support, no atoms):
/// ln(1 − q + q e^ε) removing, −ln(1 − q + q e^{−ε}) adding (by hand in f64).
#[test]
fn the_bounded_range_loss_is_bounded_by_the_ends_of_its_support() {
    let m = Mgf::PoissonBoundedRange { q: Rational::from((1, 4)), eps: Rational::from(2) };
    let up = m.loss_sup(Direction::Remove, 128).unwrap().mid().to_f64();
    let down = m.loss_sup(Direction::Add, 128).unwrap().mid().to_f64();
    assert!((up - (0.75 + 0.25 * 2f64.exp()).ln()).abs() < 1e-15, "{up}");
    assert!((down + (0.75 + 0.25 * (-2f64).exp()).ln()).abs() < 1e-15, "{down}");
}
