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
