use super::*;
use crate::noise::direction::Direction;
use crate::noise::mgf::Mgf;
use crate::noise::mgf_check::{line_point_holds, real_point_holds};

fn parse_fraction(s: &str) -> Rational {
    let mut it = s.split('/');
    let n: i64 = it.next().unwrap().parse().unwrap();
    let d: i64 = it.next().map_or(1, |d| d.parse().unwrap());
    Rational::from((n, d))
}

fn pair(q: Rational, sigma: Rational) -> Mgf {
    Mgf::PoissonReplace { q, eta: Rational::from(1) / (Rational::from(2) * sigma.clone() * sigma) }
}

/// Every point of scripts/reference/poisson_replace_mgf.txt (mpmath's quadrature over the data, 40 digits)
/// lies in the line's enclosure, in both directions (the pair is its own mirror), 1e-28 wide or less.
#[test]
fn the_line_matches_mpmath_over_the_data() {
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/poisson_replace_mgf.txt")) {
        let m = pair(parse_fraction(f[0]), parse_fraction(f[1]));
        line_point_holds(&m, &[Direction::Remove, Direction::Add], f[2], f[3], f[4], f[5]);
        // the planning value and the certified upper bound of ln M(c) at t = 0
        if f[3] == "0" {
            real_point_holds(&m, Direction::Remove, Direction::Add, f[2], f[4], 1e-9);
        }
        n += 1;
    }
    assert_eq!(n, 8);
}

/// sup_{t ≥ t*} |M(c + it)| stays below the decay bound on every later point of the line, and the bound falls
/// below M(c) (it is useful).
#[test]
fn the_decay_bounds_every_later_point_of_the_line() {
    for (q, sigma, c) in [((1, 10), (1, 1), 0.75), ((1, 100), (11, 10), 3.0), ((1, 2), (2, 1), 0.25)] {
        let m = pair(Rational::from(q), Rational::from(sigma));
        crate::noise::mgf_check::decay_bounds_the_line(&m, Direction::Remove, c, 0.5, 120, &[2.0, 10.0, 30.0]);
    }
}

/// The bound F̄ of M(c) holds M(c) itself: at c = 1, (1 − q)^{−1} F(2) with the add/remove law's
/// F(2) = (1 − q)² + 2q(1 − q) + q²e^{2η} (the binomial expansion, given here by hand); and a tiny noise
/// multiplier (σ = 1e-6) plans, sums and bounds its decay without an internal error.
#[test]
fn the_real_bound_holds_and_tiny_noise_is_summed() {
    let (q, eta) = (Rational::from((1, 5)), Rational::from((25, 32)));
    let (qq, ee) = (q.clone(), eta.clone());
    let f2 = Box::new(move |k: &Float| {
        assert_eq!(*k, 2, "the hand-given bound is F(2)");
        let p = 128;
        let (q, e) = (Interval::from_rational(&qq, p), Interval::from_rational(&ee, p));
        let r = Interval::one(p).sub(&q);
        r.mul(&r).add(&q.mul(&r).mul(&Interval::from_i64(2, p))).add(&q.mul(&q).mul(&e.add(&e).exp())).ln()
    });
    let r = Replace::new(&q, &eta, 128, f2);
    let c = Float::with_val(128, 1);
    let v = r.line(&c, &Float::with_val(128, 1), 0, 1e-30);
    let ln_m = v[0].re().ln();
    assert!(*r.ln_f_bar(&c).lo() >= *ln_m.hi(), "F̄ below M(c): {:?} vs {ln_m:?}", r.ln_f_bar(&c));
    let m = pair(Rational::from((1, 3)), Rational::from((1, 1_000_000)));
    assert!(m.ln_real_f64(Direction::Remove, 2.0).is_finite());
    let d = m.decay(Direction::Remove, &Float::with_val(64, 2), &Float::with_val(64, 1e300), 64);
    let crate::noise::mgf::Decay::Min(bounds) = &d else { panic!("the smallest of several bounds") };
    assert!(matches!(bounds[0], crate::noise::mgf::Decay::Components { .. }), "the layer cake first");
    // (the shifted contours' window, 14 + 3·10⁶ long, on at most 4,096 pieces)
    assert!(d.ln_upper(1.0) <= 1e300f64.ln() + 1e-9);
}

/// Every shifted contour's bound of the replace pair (`noise::mgf_strip::replace_strips`: on the shifted line
/// both factors damp) holds every later point of the line to t = 600 (h = 4), q = 1/10 and σ = 1 at tilts 3/4
/// and 3; at t* = 100 the best lies below the layer cake. (Three such steps: 5 digits of ε(1e-5) in 14.6 s
/// before, 21 in 1.3 s with it.)
#[test]
fn every_shifted_contour_bounds_the_replace_line() {
    let m = pair(Rational::from((1, 10)), Rational::from(1));
    for c in [0.75, 3.0] {
        let (_, bounds) = crate::noise::mgf_check::every_strip_bounds_the_line(&m, Direction::Remove, c);
        let best = crate::noise::mgf_check::best_strip(&bounds, 100.0);
        let cake = bounds[0].ln_upper(100.0).to_f64();
        assert!(best < cake, "c = {c}: best shift e^{best}, layer cake e^{cake}");
    }
}
