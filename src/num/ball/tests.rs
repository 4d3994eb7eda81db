use super::*;
use crate::num::xorshift::XorShift;
use rug::float::Round;
use rug::ops::AssignRound;
use rug::Float;

const P: u32 = 200;

fn f(x: f64) -> Float {
    Float::with_val(P, x)
}

fn contains(b: Ball, exact: &Float) -> bool {
    let lo = Float::with_val(P, b.m) - Float::with_val(P, b.r);
    let hi = Float::with_val(P, b.m) + Float::with_val(P, b.r);
    &lo <= exact && exact <= &hi
}

fn ccontains(z: CBall, re: &Float, im: &Float) -> bool {
    let dre = Float::with_val(P, re - z.re);
    let dim = Float::with_val(P, im - z.im);
    let d = (Float::with_val(P, dre.square_ref()) + Float::with_val(P, dim.square_ref())).sqrt();
    d <= z.r
}

/// The libm assumption (≤ LIBM_ULPS ulps) checked against MPFR on the argument ranges we use:
/// exp on [−745, 5], sin/cos on [−2·10⁶, 2·10⁶], expm1 on [0, 1].
#[test]
fn libm_within_assumed_error() {
    let mut g = XorShift(0x9E3779B97F4A7C15);
    let mut worst: f64 = 0.0;
    for i in 0..crate::num::test_cases(20_000) {
        let u = g.next_f64();
        let (x, got, exact) = match i % 4 {
            0 => {
                let x = -745.0 + 750.0 * u;
                (x, x.exp(), f(x).exp())
            }
            1 => {
                let x = (u - 0.5) * 4e6;
                (x, x.sin(), f(x).sin())
            }
            2 => {
                let x = (u - 0.5) * 4e6;
                (x, x.cos(), f(x).cos())
            }
            3 if i % 8 == 3 => {
                // ln over the range the θ-sums and bounds use: near 1 and over many binades
                let x = if i % 16 == 3 { 0.5 + u } else { (u * 1400.0 - 700.0).exp() };
                (x, x.ln(), f(x).ln())
            }
            3 if i % 8 == 7 => {
                // log1p near 0 (θ-sums of wide groups) and beyond
                let x = if i % 16 == 7 { (u * 700.0 - 690.0).exp() * if u < 0.5 { -1.0 } else { 1.0 } } else { u * 4.0 - 0.9 };
                (x, x.ln_1p(), f(x).ln_1p())
            }
            _ => {
                let x = u;
                (x, x.exp_m1(), f(x).exp_m1())
            }
        };
        let e = exact.to_f64();
        if e == 0.0 || !e.is_normal() {
            continue;
        }
        let err = Float::with_val(P, Float::with_val(P, got) - &exact).abs().to_f64() / (U * e.abs());
        assert!(err <= LIBM_ULPS, "libm error {err} ulps at x = {x}");
        worst = worst.max(err);
    }
    assert!(worst < 1.0 + 1e-9, "worst libm error {worst} ulps (documented ≤ 1)");
}

#[test]
fn real_ops_enclose() {
    let mut g = XorShift(12345);
    for _ in 0..crate::num::test_cases(2_000) {
        let a = Ball::new((g.next_f64() - 0.5) * 20.0, g.next_f64() * 1e-10);
        let b = Ball::new((g.next_f64() - 0.5) * 20.0, g.next_f64() * 1e-12);
        // exact values at the ball ends: operations are monotone/Lipschitz, check at corners
        for &sa in &[-1.0, 1.0] {
            for &sb in &[-1.0, 1.0] {
                let xa = f(a.m) + f(sa * a.r);
                let xb = f(b.m) + f(sb * b.r);
                assert!(contains(a.add(b), &Float::with_val(P, &xa + &xb)));
                assert!(contains(a.sub(b), &Float::with_val(P, &xa - &xb)));
                assert!(contains(a.mul(b), &Float::with_val(P, &xa * &xb)));
                assert!(contains(a.exp(), &Float::with_val(P, xa.exp_ref())));
                assert!(contains(a.cos(), &Float::with_val(P, xa.cos_ref())));
                assert!(contains(a.sin(), &Float::with_val(P, xa.sin_ref())));
                let s = Ball::new(a.m * 1e-3, a.r * 1e-3);
                let xs = f(s.m) + f(sa * s.r);
                assert!(contains(s.ln_1p().unwrap(), &Float::with_val(P, xs.ln_1p_ref())));
            }
        }
    }
}

#[test]
fn constants_hold_their_values() {
    let pi = Float::with_val(P, rug::float::Constant::Pi);
    assert!(contains(PI, &pi));
    assert!(contains(TAU, &Float::with_val(P, &pi * 2u32)));
    assert!(contains(SQRT_TAU, &Float::with_val(P, &pi * 2u32).sqrt()));
}

#[test]
fn division_encloses() {
    let mut g = XorShift(4242);
    for _ in 0..crate::num::test_cases(2_000) {
        let a = Ball::new((g.next_f64() - 0.5) * 20.0, g.next_f64() * 1e-10);
        let b = Ball::new((g.next_f64() - 0.5) * 20.0, g.next_f64() * 1e-3);
        let q = match a.div(b) {
            Some(q) => q,
            None => {
                assert!(b.m.abs() <= b.r * (1.0 + 1e-12), "refused a divisor away from 0: {b:?}");
                continue;
            }
        };
        for &sa in &[-1.0, 1.0] {
            for &sb in &[-1.0, 1.0] {
                let xa = f(a.m) + f(sa * a.r);
                let xb = f(b.m) + f(sb * b.r);
                assert!(contains(q, &Float::with_val(P, &xa / &xb)));
            }
        }
    }
    assert!(Ball::exact(1.0).div(Ball::new(0.5, 0.5)).is_none());
}

#[test]
fn complex_ops_enclose() {
    let mut g = XorShift(777);
    for _ in 0..crate::num::test_cases(2_000) {
        let a = CBall::new(g.next_f64() * 4.0 - 2.0, g.next_f64() * 4.0 - 2.0, g.next_f64() * 1e-9);
        let b = CBall::new(g.next_f64() * 4.0 - 2.0, g.next_f64() * 4.0 - 2.0, g.next_f64() * 1e-11);
        let th = Ball::new((g.next_f64() - 0.5) * 1e5, g.next_f64() * 1e-9);
        // points on the boundary of a and b
        let phi = g.next_f64() * std::f64::consts::TAU;
        let (ar, ai) = (f(a.re) + f(a.r * phi.cos()), f(a.im) + f(a.r * phi.sin()));
        let (br, bi) = (f(b.re) - f(b.r * phi.sin()), f(b.im) + f(b.r * phi.cos()));
        let m = a.mul(b);
        let pr = Float::with_val(P, &ar * &br) - Float::with_val(P, &ai * &bi);
        let pi = Float::with_val(P, &ar * &bi) + Float::with_val(P, &ai * &br);
        assert!(ccontains(m, &pr, &pi));
        let s = a.add(b);
        assert!(ccontains(s, &Float::with_val(P, &ar + &br), &Float::with_val(P, &ai + &bi)));
        let c = CBall::cis(th);
        let t = f(th.m) + f(th.r);
        assert!(ccontains(c, &Float::with_val(P, t.cos_ref()), &Float::with_val(P, t.sin_ref())));
        let inv = b.inv();
        let n2 = Float::with_val(P, br.square_ref()) + Float::with_val(P, bi.square_ref());
        let mut ir = Float::new(P);
        ir.assign_round(&br / &n2, Round::Nearest);
        let ii = Float::with_val(P, -Float::with_val(P, &bi / &n2));
        assert!(ccontains(inv, &ir, &ii));
        let p5 = a.powu(5);
        let (mut zr, mut zi) = (f(1.0), f(0.0));
        for _ in 0..5 {
            let nr = Float::with_val(P, &zr * &ar) - Float::with_val(P, &zi * &ai);
            let ni = Float::with_val(P, &zr * &ai) + Float::with_val(P, &zi * &ar);
            zr = nr;
            zi = ni;
        }
        assert!(ccontains(p5, &zr, &zi));
    }
}

/// 1/z for a disk reaching within 1e-12 of its own radius of 0 (|z|(|z| − r) ≈ 1e-312, a subnormal): the
/// inverse of points of the disk (MPFR, 300 bits) lies inside.
#[test]
fn inverse_near_the_origin_of_a_tiny_disk() {
    let z = CBall::new(1e-150, 0.0, 1e-150 * (1.0 - 1e-12));
    let inv = z.inv();
    assert!(inv.r.is_finite() && inv.re.is_finite(), "{inv:?}");
    for t in [0.0, 0.5, 0.999_999, -0.999_999] {
        // the real point 1e-150 + t·r (on the disk), and its inverse
        let x = Float::with_val(300, f(z.re) + Float::with_val(300, f(z.r) * t));
        let ix = Float::with_val(300, x.recip_ref());
        assert!(ccontains(inv, &ix, &f(0.0)), "1/{x} = {ix} outside {inv:?}");
    }
}

#[test]
#[should_panic(expected = "not a normal f64")]
fn inverse_of_a_huge_ball_is_refused() {
    let _ = CBall::new(1e200, 0.0, 0.0).inv();
}

/// Horner's rule at ζ = e^{iθ} far from the axes (θ = 0.7: |re| + |im| = 1.41 |ζ|): 300 products keep
/// the radius near 300 roundings, and the ball still holds the MPFR value. With |re| + |im| as the
/// modulus bound the radius grew ~1.4× a product (to ~1e29 here; 1e-4 on a discretised law's transform,
/// which made the pld grid's dominating law useless at h = 1/2000).
#[test]
fn products_on_the_unit_circle_keep_their_radius() {
    let theta = 0.7;
    let z = CBall::cis(Ball::exact(theta));
    let mut s = CBall::ONE;
    for _ in 0..300 {
        s = s.mul(z).add(CBall::real(Ball::exact(0.01)));
    }
    assert!(s.r < 1e-11, "radius {}", s.r);
    // the exact value of the same recurrence in MPFR
    let p = 256;
    let (c, sn) = (Float::with_val(p, theta).cos(), Float::with_val(p, theta).sin());
    let (mut re, mut im) = (Float::with_val(p, 1), Float::with_val(p, 0));
    for _ in 0..300 {
        let nre = Float::with_val(p, &re * &c) - Float::with_val(p, &im * &sn) + 0.01f64;
        let nim = Float::with_val(p, &re * &sn) + Float::with_val(p, &im * &c);
        (re, im) = (nre, nim);
    }
    assert!(ccontains(s, &re, &im), "{s:?} misses ({re}, {im})");
}

/// A [`BallSum`] holds the exact sum of its addends (MPFR at 2,200 bits adds f64 values exactly), also
/// with heavy cancellation (addends of 1e6 summing to ~1e-3) and after merging parts, and its radius is
/// of the order of U·|sum| plus the addends' radii, not U·Σ|addends|·n.
#[test]
fn ball_sum_encloses_the_exact_sum() {
    let mut g = XorShift(31337);
    for case in 0..40 {
        let n = 1 + (g.next_f64() * 5000.0) as usize;
        let mut parts = vec![BallSum::default(), BallSum::default(), BallSum::default()];
        let mut exact = Float::with_val(2200, 0);
        let mut rad = 0.0;
        for i in 0..n {
            let big = if case % 2 == 0 { 1e6 } else { 1.0 };
            let x = (g.next_f64() - 0.5) * big * if i % 2 == 0 { 1.0 } else { -1.0 };
            let r = g.next_f64() * 1e-20;
            exact += x;
            rad += r;
            parts[i % 3].add(Ball::new(x, r));
        }
        let mut tot = BallSum::default();
        for p in &parts {
            tot.merge(p);
        }
        let b = tot.ball();
        let lo = Float::with_val(2200, b.m) - Float::with_val(2200, b.r);
        let hi = Float::with_val(2200, b.m) + Float::with_val(2200, b.r);
        assert!(lo <= exact && exact <= hi, "case {case}: {b:?} vs {exact}");
        // (the recursive sum's bound would be ~U·n·Σ|x| ≈ 1e-3 at 5,000 addends of 1e6)
        let big = if case % 2 == 0 { 1e6 } else { 1.0 };
        assert!(b.r <= 2.0 * rad * (1.0 + 1e-9) + 8.0 * U * exact.to_f64().abs() + 1e-15 * big, "case {case}: radius {} for {exact}", b.r);
    }
}
