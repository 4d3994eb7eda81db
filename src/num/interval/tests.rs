use super::*;

#[test]
fn exp_ln_enclose_true_values() {
    let p = 128;
    let one = Interval::one(p);
    let e = one.exp();
    // e = 2.718281828459045235360287471352662497757...
    let e_ref = Float::with_val(256, Float::parse("2.718281828459045235360287471352662497757247093699959574966").unwrap());
    assert!(e.lo <= e_ref && e_ref <= e.hi);
    assert!(e.width() < Float::with_val(p, 1e-37));
    let l = e.ln();
    assert!(l.lo <= 1 && l.hi >= 1);
}

#[test]
fn mul_handles_signs() {
    let p = 64;
    let a = Interval::new(Float::with_val(p, -2), Float::with_val(p, 3));
    let b = Interval::new(Float::with_val(p, -5), Float::with_val(p, 1));
    let c = a.mul(&b);
    assert_eq!(c.lo, -15);
    assert_eq!(c.hi, 10);
}

#[test]
fn rational_enclosure_is_outward() {
    let q = Rational::from((1, 3));
    let i = Interval::from_rational(&q, 64);
    assert!(i.lo < i.hi);
    let third = Float::with_val(200, &q);
    assert!(i.lo <= third && third <= i.hi);
}

#[test]
fn powu_matches_repeated_product() {
    let p = 128;
    let x = Interval::from_rational(&Rational::from((7, 5)), p);
    let y = x.powu(10);
    use rug::ops::Pow;
    let exact = Float::with_val(400, Rational::from((7, 5)).pow(10u32));
    assert!(y.lo <= exact && exact <= y.hi);
}

/// The ends are read through the accessors and taken apart by `into_parts`, unchanged.
#[test]
fn accessors_and_parts() {
    let i = Interval::from_rational(&Rational::from((1, 3)), 64);
    let (lo, hi) = (i.lo().clone(), i.hi().clone());
    assert!(lo < hi);
    assert_eq!(i.into_parts(), (lo, hi));
}

/// `lo ≤ hi` is checked in every build: `new` refuses a reversed or NaN end (a panic: a bug), `try_new`
/// returns it as an internal error.
#[test]
fn reversed_or_nan_ends_are_refused() {
    let f = |x: f64| Float::with_val(53, x);
    let nan = Float::with_val(53, rug::float::Special::Nan);
    for (lo, hi) in [(f(2.0), f(1.0)), (nan.clone(), f(1.0)), (f(0.0), nan)] {
        let e = Interval::try_new(lo.clone(), hi.clone()).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Internal, "{e}");
        assert!(std::panic::catch_unwind(|| Interval::new(lo, hi)).is_err());
    }
    assert!(Interval::try_new(f(1.0), f(1.0)).is_ok());
}

/// An end that overflowed to ±∞ times an end at 0 is 0 (IEEE 1788), not NaN: the product is still an
/// enclosure. (A discrete Laplace of scale 1e-300 put e^ε = [max, +∞] against a tail mass [0, …] in
/// `pld::profile`, and the NaN end panicked.)
#[test]
fn zero_times_infinity_is_zero() {
    let p = 64;
    let inf = Float::with_val(p, rug::float::Special::Infinity);
    let big = Interval::new(Float::with_val(p, 7), inf.clone());
    let zero_to_one = Interval::new(Float::with_val(p, 0), Float::with_val(p, 1));
    let c = big.mul(&zero_to_one);
    assert_eq!((c.lo().to_f64(), c.hi().to_f64()), (0.0, f64::INFINITY));
    let c = zero_to_one.mul(&big);
    assert_eq!((c.lo().to_f64(), c.hi().to_f64()), (0.0, f64::INFINITY));
    // general signs: [−1, 0] × [7, +∞] = [−∞, 0]
    let c = Interval::new(Float::with_val(p, -1), Float::with_val(p, 0)).mul(&big);
    assert_eq!((c.lo().to_f64(), c.hi().to_f64()), (f64::NEG_INFINITY, 0.0));
    // [0, 0] × [7, +∞] = [0, 0]
    let c = Interval::zero(p).mul(&big);
    assert_eq!((c.lo().to_f64(), c.hi().to_f64()), (0.0, 0.0));
}

/// A quotient with the corner +∞/+∞ keeps the other corners: [1, +∞]/[2, +∞] = [0, +∞].
#[test]
fn infinite_over_infinite_corner_is_left_out() {
    let p = 64;
    let inf = Float::with_val(p, rug::float::Special::Infinity);
    let c = Interval::new(Float::with_val(p, 1), inf.clone()).div(&Interval::new(Float::with_val(p, 2), inf));
    assert_eq!((c.lo().to_f64(), c.hi().to_f64()), (0.0, f64::INFINITY));
}

/// max and min enclose max(x, y) and min(x, y) over the two boxes: [1, 4] and [2, 3] give [2, 4] and
/// [1, 3]; disjoint boxes give the larger and the smaller.
#[test]
fn max_and_min_enclose_the_pointwise_extremes() {
    let p = 64;
    let iv = |a: i32, b: i32| Interval::new(Float::with_val(p, a), Float::with_val(p, b));
    let ends = |x: Interval| (x.lo().to_f64(), x.hi().to_f64());
    assert_eq!(ends(iv(1, 4).max(&iv(2, 3))), (2.0, 4.0));
    assert_eq!(ends(iv(1, 4).min(&iv(2, 3))), (1.0, 3.0));
    assert_eq!(ends(iv(5, 6).max(&iv(1, 2))), (5.0, 6.0));
    assert_eq!(ends(iv(5, 6).min(&iv(1, 2))), (1.0, 2.0));
}

#[test]
fn sign_tests_are_certain() {
    let p = 64;
    let iv = |a: f64, b: f64| Interval::new(Float::with_val(p, a), Float::with_val(p, b));
    assert!(iv(1e-300, 2.0).is_positive() && iv(1e-300, 2.0).is_nonneg());
    // a lower end of 0 (or −0) is non-negative, not positive
    assert!(!iv(0.0, 1.0).is_positive() && iv(0.0, 1.0).is_nonneg());
    assert!(!iv(-0.0, 1.0).is_positive() && iv(-0.0, 1.0).is_nonneg());
    assert!(!iv(-1e-300, 1.0).is_positive() && !iv(-1e-300, 1.0).is_nonneg());
}

/// e^x − 1 at x = 2⁻⁶⁶ is 2⁻⁶⁶ + 2⁻¹³³ + 2⁻²⁰¹/3 + … (the series): enclosed to 64 bits, where exp minus one
/// would leave nothing of it; and e¹ − 1 against e's digits above.
#[test]
fn exp_m1_keeps_the_small_value() {
    let p = 64;
    let x = Interval::from_rational(&rug::Rational::from((1, rug::Integer::from(1) << 66u32)), p);
    let m = x.exp_m1();
    let want = Float::with_val(256, (Float::with_val(256, 1) >> 66u32) + (Float::with_val(256, 1) >> 133u32));
    assert!(m.lo <= want && want <= m.hi, "{m:?}");
    let width = Float::with_val(p, &m.hi - &m.lo);
    assert!(Float::with_val(p, width / &want) < 1e-18);
    let e1 = Interval::one(128).exp_m1();
    let r = Float::with_val(256, Float::parse("1.718281828459045235360287471352662497757247093699959574966").unwrap());
    assert!(e1.lo <= r && r <= e1.hi && e1.width() < Float::with_val(128, 1e-37));
}

/// The relative width is taken in MPFR: ends at 1e-600000 keep their 22 digits (in f64 both ends are 0);
/// a point is −∞; a bracket around 0 and one with an infinite end have no digits.
#[test]
fn relative_width_of_brackets_below_the_smallest_double() {
    let f = |s: &str| Float::with_val(200, Float::parse(s).unwrap());
    let deep = Interval::new(f("2.3575735870151057531808e-600000"), f("2.3575735870151057531810e-600000"));
    let l = deep.log10_rel_width();
    assert!((-22.1..-21.9).contains(&l), "{l}");
    assert!(deep.meets(21) && !deep.meets(23));
    assert_eq!(Interval::from_i64(3, 64).log10_rel_width(), f64::NEG_INFINITY);
    let around_zero = Interval::new(Float::with_val(64, -1e-30), Float::with_val(64, 1e-30));
    assert!(around_zero.log10_rel_width() >= 0.0 && !around_zero.meets(1));
    let unbounded = Interval::new(Float::with_val(64, 1), Float::with_val(64, rug::float::Special::Infinity));
    assert!(!unbounded.meets(0));
}
