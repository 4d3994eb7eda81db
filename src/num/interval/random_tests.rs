//! Randomized tests in the manner of FLINT/Arb's `arb/test/t-exp.c` and `t-div.c`: thousands of random
//! operands (exact zeros, equal ends, intervals straddling 0, mantissas with long runs of ones, exponents up to
//! MPFR's limits) at random precisions 2–4000 bits. Each operation is checked three ways: (i) containment —
//! the image of random points of the operands (ends or interior), enclosed at a higher precision q ≥ 4p by
//! MPFR's directed rounding, lies inside the result; (ii) tightness — where the operation is monotone in each
//! argument the result must be the best possible one, the exact extremes rounded outward to the result's
//! precision (directed roundings nest: RD_p(RD_q(x)) = RD_p(x) for q ≥ p, so this is checked exactly), and
//! elsewhere its width must be within a stated small multiple of 2^-p; (iii) functional equations across
//! operations. A failure names the test's seed and the case number (`xorshift::gen::case(seed, i)` replays it).

use super::*;
use crate::num::cinterval::CInterval;
use crate::num::xorshift::gen::{case, Range};
use crate::num::xorshift::XorShift;
use rug::ops::Pow;

macro_rules! rd {
    ($p:expr, $v:expr) => {
        Float::with_val_round($p, $v, Round::Down).0
    };
}
macro_rules! ru {
    ($p:expr, $v:expr) => {
        Float::with_val_round($p, $v, Round::Up).0
    };
}

/// Cases per test: 200 by default, ×{TIGHTDP_TEST_MULTIPLIER} (10 in the heavy tier: 2000).
fn n_cases() -> u64 {
    crate::num::test_cases(200)
}

/// The reference precision for operands of precision p: 4p plus a margin.
fn refp(p: u32) -> u32 {
    4 * p + 64
}

/// `r` contains [lo, hi] (a bracket of the exact image).
fn encloses(r: &Interval, lo: &Float, hi: &Float, ctx: &dyn Fn() -> String) {
    assert!(r.lo <= *lo && *hi <= r.hi, "result {r:?} does not enclose [{lo}, {hi}]\n{}", ctx());
}

/// `r` encloses [lo_ref, hi_ref] = [RD_q(inf), RU_q(sup)] of the exact image and its ends are those extremes
/// rounded outward to `plo` / `phi` bits (the best enclosure at the result's precision).
fn optimal(r: &Interval, plo: u32, phi: u32, lo_ref: &Float, hi_ref: &Float, ctx: &dyn Fn() -> String) {
    encloses(r, lo_ref, hi_ref, ctx);
    let (l, h) = (rd!(plo, lo_ref), ru!(phi, hi_ref));
    assert!(r.lo == l && r.hi == h, "result {r:?} is wider than the best enclosure [{l}, {h}]\n{}", ctx());
}

fn run(seed: u64, n: u64, mut f: impl FnMut(&mut XorShift, &dyn Fn() -> String)) {
    for i in 0..n {
        let mut g = case(seed, i);
        f(&mut g, &|| format!("case {i} of the test seeded {seed:#x}"));
    }
}

fn nonzero_interval(g: &mut XorShift, range: Range) -> Interval {
    let b = g.positive_interval(range, false);
    if g.chance(1, 2) {
        b.neg()
    } else {
        b
    }
}

#[test]
fn add_is_optimal() {
    run(0xadd, n_cases(), |g, ctx| {
        let (a, b) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let r = a.add(&b);
        let p = a.prec().max(b.prec());
        let q = refp(p);
        optimal(&r, p, p, &rd!(q, &a.lo + &b.lo), &ru!(q, &a.hi + &b.hi), ctx);
        let (x, y) = (g.point(&a), g.point(&b));
        encloses(&r, &rd!(q, &x + &y), &ru!(q, &x + &y), ctx);
    });
}

#[test]
fn sub_is_optimal() {
    run(0x5ab, n_cases(), |g, ctx| {
        let (a, b) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let r = a.sub(&b);
        let p = a.prec().max(b.prec());
        let q = refp(p);
        optimal(&r, p, p, &rd!(q, &a.lo - &b.hi), &ru!(q, &a.hi - &b.lo), ctx);
        let (x, y) = (g.point(&a), g.point(&b));
        encloses(&r, &rd!(q, &x - &y), &ru!(q, &x - &y), ctx);
    });
}

#[test]
fn neg_is_exact() {
    run(0x2e9, n_cases(), |g, ctx| {
        let a = g.interval(Range::Extreme);
        let r = a.neg();
        let (lo, hi) = (Float::with_val(a.hi.prec(), -&a.hi), Float::with_val(a.lo.prec(), -&a.lo));
        assert!(r.lo == lo && r.hi == hi && r.lo.prec() == a.hi.prec(), "neg({a:?}) = {r:?}\n{}", ctx());
    });
}

/// x·k and x/k by a positive integer, and x·2^e: the same enclosure, to the bit and in precision, as
/// [`Interval::mul`] and [`Interval::div`] by the exact intervals [k, k] and [2^e, 2^e].
#[test]
fn integer_scalings_are_the_exact_intervals_products() {
    run(0x51c, n_cases(), |g, ctx| {
        let a = g.interval(Range::Extreme);
        // k exact at x's precision (a wider k has no exact interval to compare with)
        let k = 1 + g.below((1 << a.prec().min(40)) - 1);
        let e = g.below(400) as i32 - 200;
        let ctx = &|| format!("{}: a = {a:?}, k = {k}, e = {e}", ctx());
        let exact = Interval::from_rational(&Rational::from(k), a.prec());
        for (r, want) in [(a.mul_u64(k), a.mul(&exact)), (a.div_u64(k), a.div(&exact))] {
            assert!(r.lo == want.lo && r.hi == want.hi && r.prec() == want.prec(), "{r:?} against {want:?}\n{}", ctx());
        }
        let (s, two) = (a.mul_pow2(e), Float::with_val(2, Float::i_exp(1, e)));
        let want = a.mul(&Interval::new(two.clone(), two));
        assert!(s.lo == want.lo && s.hi == want.hi && s.prec() == want.prec(), "{s:?} against {want:?}\n{}", ctx());
    });
}

/// The extremes of a·b or a/b over the four corners, rounded down and up at q.
fn corner_extremes(a: &Interval, b: &Interval, q: u32, div: bool) -> (Float, Float) {
    let mut lo: Option<Float> = None;
    let mut hi: Option<Float> = None;
    for x in [&a.lo, &a.hi] {
        for y in [&b.lo, &b.hi] {
            let (l, h) = if div { (rd!(q, x / y), ru!(q, x / y)) } else { (rd!(q, x * y), ru!(q, x * y)) };
            if lo.as_ref().is_none_or(|v| l < *v) {
                lo = Some(l);
            }
            if hi.as_ref().is_none_or(|v| h > *v) {
                hi = Some(h);
            }
        }
    }
    (lo.unwrap(), hi.unwrap())
}

#[test]
fn mul_is_optimal() {
    run(0x3a1, n_cases(), |g, ctx| {
        let (a, b) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let r = a.mul(&b);
        let p = a.prec().max(b.prec());
        let q = refp(p);
        let (lo, hi) = corner_extremes(&a, &b, q, false);
        optimal(&r, p, p, &lo, &hi, ctx);
        let (x, y) = (g.point(&a), g.point(&b));
        encloses(&r, &rd!(q, &x * &y), &ru!(q, &x * &y), ctx);
    });
}

#[test]
fn div_is_optimal() {
    run(0xd1f, n_cases(), |g, ctx| {
        let a = g.interval(Range::Extreme);
        let b = nonzero_interval(g, Range::Extreme);
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let r = a.div(&b);
        let p = a.prec().max(b.prec());
        let q = refp(p);
        let (lo, hi) = corner_extremes(&a, &b, q, true);
        optimal(&r, p, p, &lo, &hi, ctx);
        let (x, y) = (g.point(&a), g.point(&b));
        encloses(&r, &rd!(q, &x / &y), &ru!(q, &x / &y), ctx);
    });
}

/// A monotone increasing function: the result's ends are f at the operand's ends, rounded outward to
/// each end's own precision.
fn monotone(
    seed: u64,
    n: u64,
    gen: impl Fn(&mut XorShift) -> Interval,
    op: impl Fn(&Interval) -> Interval,
    f: impl Fn(&Float, u32, Round) -> Float,
) {
    run(seed, n, |g, ctx| {
        let a = gen(g);
        let ctx = &|| format!("{}: a = {a:?}", ctx());
        let r = op(&a);
        let q = refp(a.prec());
        optimal(&r, a.lo.prec(), a.hi.prec(), &f(&a.lo, q, Round::Down), &f(&a.hi, q, Round::Up), ctx);
        let x = g.point(&a);
        encloses(&r, &f(&x, q, Round::Down), &f(&x, q, Round::Up), ctx);
    });
}

#[test]
fn exp_is_optimal() {
    monotone(0xe4, n_cases() / 2, |g| g.interval(Range::Extreme), Interval::exp, |x, q, r| Float::with_val_round(q, x.exp_ref(), r).0);
}

#[test]
fn ln_is_optimal() {
    monotone(
        0x1e,
        n_cases() / 2,
        |g| g.positive_interval(Range::Extreme, false),
        Interval::ln,
        |x, q, r| Float::with_val_round(q, x.ln_ref(), r).0,
    );
}

#[test]
fn sqrt_is_optimal() {
    monotone(
        0x5e,
        n_cases(),
        |g| g.positive_interval(Range::Extreme, true),
        Interval::sqrt,
        |x, q, r| Float::with_val_round(q, x.sqrt_ref(), r).0,
    );
}

#[test]
fn widen_is_optimal() {
    run(0x1de, n_cases(), |g, ctx| {
        let a = g.interval(Range::Extreme);
        let pw = g.prec();
        let w = g.float(pw, Range::Extreme).abs();
        let ctx = &|| format!("{}: a = {a:?}, r = {w:?}", ctx());
        let r = a.widen(&w);
        let p = a.prec();
        let q = refp(p.max(w.prec()));
        optimal(&r, p, p, &rd!(q, &a.lo - &w), &ru!(q, &a.hi + &w), ctx);
    });
}

/// x^k for 0 ≤ k ≤ 40: encloses the image, and each end is within the relative error (1 + 2^(1−p))^k of
/// the exact power (k − 1 roundings along any product chain, each ≤ 2^(1−p) relative).
#[test]
fn powu_encloses_and_is_tight() {
    run(0x90e, n_cases(), |g, ctx| {
        let a = g.positive_interval(Range::Moderate, true);
        let k = g.below(41) as u32;
        let ctx = &|| format!("{}: a = {a:?}, k = {k}", ctx());
        let r = a.powu(k);
        let p = a.prec();
        let q = refp(p) + 64;
        let (lo, hi) = (rd!(q, (&a.lo).pow(k)), ru!(q, (&a.hi).pow(k)));
        encloses(&r, &lo, &hi, ctx);
        let x = g.point(&a);
        encloses(&r, &rd!(q, (&x).pow(k)), &ru!(q, (&x).pow(k)), ctx);
        let e = Float::with_val(q, Float::i_exp(1, 1 - p as i32));
        let grow = ru!(q, (Float::with_val(q, 1 + &e)).pow(k));
        let shrink = rd!(q, (Float::with_val(q, 1 - &e)).pow(k));
        assert!(r.hi <= ru!(q, &hi * &grow) && r.lo >= rd!(q, &lo * &shrink), "powu too wide: {r:?}\n{}", ctx());
    });
}

/// sin and cos: the image of points is enclosed, and the width is at most 2·(hi − lo) plus a few
/// roundings, 2^(4−p)·(1 + (hi − lo)) (and never more than 2, the range [−1, 1]).
/// One case in four is a narrow interval at a point where the slope is ±1 (`steep(p, up)`: where f rises
/// or falls with slope 1), where the Lipschitz bound at that end is nearly attained.
fn trig(seed: u64, steep: fn(u32, bool) -> Float, op: impl Fn(&Interval) -> Interval, f: impl Fn(&Float, u32, Round) -> Float) {
    run(seed, n_cases() / 2, |g, ctx| {
        let a = match g.below(8) {
            0 => g.interval(Range::Wide),
            1 | 2 => {
                let p = g.prec();
                let x = g.float(p, Range::Moderate) >> (p / 2 + g.below(p as u64 / 2 + 1) as u32);
                let lo = Float::with_val(p, steep(p, g.chance(1, 2)) + x);
                let t = Float::with_val(p, g.next_f64());
                let w = (Float::with_val(p, lo.abs_ref()) * t) >> (g.below(p as u64 + 1) as u32);
                let hi = Float::with_val_round(p, &lo + &w, Round::Up).0;
                Interval::new(lo, hi)
            }
            _ => g.interval(Range::Moderate),
        };
        let ctx = &|| format!("{}: a = {a:?}", ctx());
        if a.lo.get_exp().unwrap_or(0).max(a.hi.get_exp().unwrap_or(0)) > 2000 {
            return; // argument reduction of huge arguments costs time, not coverage
        }
        let r = op(&a);
        let p = a.prec();
        let q = refp(p);
        for x in [g.point(&a), g.point(&a), Float::with_val(q, &a.lo), Float::with_val(q, &a.hi)] {
            encloses(&r, &f(&x, q, Round::Down), &f(&x, q, Round::Up), ctx);
        }
        let w = ru!(q, &a.hi - &a.lo);
        let slack = ru!(q, Float::with_val(q, Float::i_exp(1, 4 - p as i32)) * Float::with_val(q, 1 + &w));
        let bound = ru!(q, 2 * w.clone() + slack);
        assert!(r.lo >= -1 && r.hi <= 1, "outside [-1, 1]: {r:?}\n{}", ctx());
        assert!(rd!(q, &r.hi - &r.lo) <= bound, "too wide: {r:?} for width {w}\n{}", ctx());
    });
}

#[test]
fn sin_encloses_and_is_tight() {
    trig(
        0x517,
        |p, up| if up { Float::with_val(p, 0) } else { Float::with_val(p, rug::float::Constant::Pi) },
        Interval::sin,
        |x, q, r| Float::with_val_round(q, x.sin_ref(), r).0,
    );
}

#[test]
fn cos_encloses_and_is_tight() {
    trig(
        0xc05,
        |p, up| Float::with_val(p, rug::float::Constant::Pi) / if up { -2 } else { 2 },
        Interval::cos,
        |x, q, r| Float::with_val_round(q, x.cos_ref(), r).0,
    );
}

/// A random rational n/d·2^s with n, d of up to 300 bits.
fn rational(g: &mut XorShift) -> Rational {
    let (nb, db) = (1 + g.below(300) as u32, 1 + g.below(300) as u32);
    let n = if g.chance(1, 10) { rug::Integer::new() } else { g.mantissa(nb) };
    let d = g.mantissa(db);
    let s = g.below(4001) as i32 - 2000;
    let q = Rational::from((n, d)) << s;
    if g.chance(1, 2) {
        -q
    } else {
        q
    }
}

/// [lo, hi] is the tightest enclosure of the exact value v at precision p: lo ≤ v ≤ hi, both of precision
/// p, and either lo = hi = v or hi is the float right after lo.
fn tightest<T>(r: &Interval, p: u32, v: &T, show: &dyn Fn() -> String)
where
    Float: PartialOrd<T>,
{
    use std::cmp::Ordering::*;
    let (lo, hi) = (r.lo.partial_cmp(v), r.hi.partial_cmp(v));
    assert!(matches!(lo, Some(Less | Equal)) && matches!(hi, Some(Greater | Equal)), "{r:?} does not enclose its value\n{}", show());
    assert!(r.lo.prec() == p && r.hi.prec() == p, "{r:?} is not at {p} bits\n{}", show());
    let mut next = r.lo.clone();
    next.next_up();
    let exact = lo == Some(Equal);
    assert!(
        if exact { hi == Some(Equal) } else { PartialEq::<Float>::eq(&r.hi, &next) },
        "{r:?} is not the tightest enclosure\n{}",
        show()
    );
}

#[test]
fn from_rational_is_tightest() {
    run(0xc0a, n_cases(), |g, ctx| {
        let p = g.prec();
        let v = rational(g);
        tightest(&Interval::from_rational(&v, p), p, &v, &|| format!("{}: from_rational({v}, {p})", ctx()));
    });
}

#[test]
fn from_i64_is_tightest() {
    run(0xc0b, n_cases(), |g, ctx| {
        let p = g.prec();
        let i = match g.below(4) {
            0 => [0, 1, -1, i64::MAX, i64::MIN, i64::MAX - 1][g.below(6) as usize],
            _ => g.next_u64() as i64 >> g.below(64),
        };
        tightest(&Interval::from_i64(i, p), p, &Rational::from(i), &|| format!("{}: from_i64({i}, {p})", ctx()));
    });
}

#[test]
fn from_float_is_tightest() {
    run(0xc0c, n_cases(), |g, ctx| {
        let p = g.prec();
        let px = g.prec();
        let x = g.float(px, Range::Extreme);
        tightest(&Interval::from_float(&x, p), p, &x, &|| format!("{}: from_float({x:?}, {p})", ctx()));
    });
}

/// π and ln 2: enclose the constant computed at 4p + 64 bits, one ulp wide (both are irrational).
fn constant(seed: u64, c: rug::float::Constant, f: fn(u32) -> Interval) {
    run(seed, n_cases() / 4, |g, ctx| {
        let p = g.prec();
        let q = refp(p);
        let (lo, hi) = (rd!(q, c), ru!(q, c));
        let i = f(p);
        let ctx = &|| format!("{}: {c:?} at {p} bits", ctx());
        encloses(&i, &lo, &hi, ctx);
        tightest(&i, p, &lo, ctx);
    });
}

#[test]
fn pi_is_tightest() {
    constant(0xc0d, rug::float::Constant::Pi, Interval::pi);
}

#[test]
fn ln2_is_tightest() {
    constant(0xc0e, rug::float::Constant::Log2, Interval::ln2);
}

/// x·v for a rational v: the image of points is enclosed (MPFR's x·v is correctly rounded), and the
/// width is at most |v|·(hi − lo) plus 2^(3−p)·|v|·(|lo| + |hi| + (hi − lo)) (v rounded once, then two
/// directed products).
#[test]
fn mul_rational_encloses_and_is_tight() {
    run(0x3a7, n_cases(), |g, ctx| {
        let a = g.interval(Range::Wide);
        let v = rational(g);
        let ctx = &|| format!("{}: a = {a:?}, v = {v}", ctx());
        let r = a.mul_rational(&v);
        let p = a.prec();
        let q = refp(p);
        for x in [g.point(&a), Float::with_val(q, &a.lo), Float::with_val(q, &a.hi)] {
            encloses(&r, &rd!(q, &x * &v), &ru!(q, &x * &v), ctx);
        }
        let av = ru!(q, &v).abs();
        let w = ru!(q, &a.hi - &a.lo);
        let mag = ru!(q, ru!(q, Float::with_val(q, a.lo.abs_ref()) + Float::with_val(q, a.hi.abs_ref())) + &w);
        let slack = ru!(q, Float::with_val(q, Float::i_exp(1, 3 - p as i32)) * ru!(q, &mag * &av));
        let bound = ru!(q, ru!(q, &w * &av) + &slack);
        assert!(rd!(q, &r.hi - &r.lo) <= bound, "too wide: {r:?}\n{}", ctx());
    });
}

/// hull, clamp_to, contains, contains_interval, overlaps, mid, width and is_nonneg against their
/// definitions.
#[test]
fn lattice_and_measures_follow_their_definitions() {
    run(0x1a7, n_cases(), |g, ctx| {
        let (a, b) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let h = a.hull(&b);
        let (lo, hi) = (if a.lo < b.lo { &a.lo } else { &b.lo }, if a.hi > b.hi { &a.hi } else { &b.hi });
        assert!(h.lo == *lo && h.hi == *hi, "hull {h:?}\n{}", ctx());
        let c = a.clamp_to(&b.lo, &b.hi);
        let cl = |x: &Float| {
            if *x < b.lo {
                b.lo.clone()
            } else if *x > b.hi {
                b.hi.clone()
            } else {
                x.clone()
            }
        };
        assert!(c.lo == cl(&a.lo) && c.hi == cl(&a.hi), "clamp {c:?}\n{}", ctx());
        assert_eq!(a.contains_interval(&b), a.lo <= b.lo && b.hi <= a.hi, "{}", ctx());
        assert_eq!(a.overlaps(&b), !(a.hi < b.lo || b.hi < a.lo), "{}", ctx());
        let x = g.point(&b);
        assert_eq!(a.contains(&x), a.lo <= x && x <= a.hi, "{}", ctx());
        assert_eq!(a.is_nonneg(), a.lo >= 0, "{}", ctx());
        let m = a.mid();
        assert!(a.contains(&m), "mid {m} outside\n{}", ctx());
        let q = refp(a.prec());
        let w = a.width();
        assert!(w >= rd!(q, &a.hi - &a.lo) && w == ru!(a.prec(), ru!(q, &a.hi - &a.lo)), "width {w}\n{}", ctx());
    });
}

/// The printed bracket holds the interval: its ends parsed back exactly are ≤ lo and ≥ hi.
#[test]
fn display_brackets_the_interval() {
    run(0xd15, n_cases() / 4, |g, ctx| {
        let a = g.interval(Range::Moderate);
        let s = a.to_string();
        let (l, h) = s.trim_start_matches('[').trim_end_matches(']').split_once(", ").unwrap();
        let (l, h) = (crate::num::parse_rational(l).unwrap(), crate::num::parse_rational(h).unwrap());
        assert!(a.lo >= l && a.hi <= h, "{s} does not bracket {a:?}\n{}", ctx());
    });
}

/// Functional equations across operations (Arb's exp(a)·exp(b) = exp(a + b) check and friends).
#[test]
fn functional_equations_hold() {
    run(0xfe, n_cases() / 2, |g, ctx| {
        let (a, b) = (g.interval(Range::Moderate), g.interval(Range::Moderate));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        assert!(a.add(&b).exp().overlaps(&a.exp().mul(&b.exp())), "exp(a + b) vs exp(a)·exp(b)\n{}", ctx());
        let e = a.exp();
        if e.lo > 0 {
            assert!(e.ln().contains_interval(&a), "ln(exp(a)) ⊉ a\n{}", ctx());
        }
        let pos = g.positive_interval(Range::Moderate, false);
        assert!(pos.ln().exp().contains_interval(&pos), "exp(ln x) ⊉ x\n{}", ctx());
        let s = pos.sqrt();
        assert!(s.mul(&s).contains_interval(&pos) && s.powu(2).contains_interval(&pos), "sqrt(x)² ⊉ x\n{}", ctx());
        let d = nonzero_interval(g, Range::Moderate);
        assert!(a.div(&d).mul(&d).contains_interval(&a), "(a/d)·d ⊉ a for d = {d:?}\n{}", ctx());
        assert!(a.sub(&b).add(&b).contains_interval(&a), "(a − b) + b ⊉ a\n{}", ctx());
        if a.lo.get_exp().unwrap_or(0) < 100 && a.hi.get_exp().unwrap_or(0) < 100 {
            let (s, c) = (a.sin(), a.cos());
            let one = s.mul(&s).add(&c.mul(&c));
            assert!(one.contains(&Float::with_val(2, 1)), "sin² + cos² = {one:?}\n{}", ctx());
        }
    });
}

#[test]
#[should_panic(expected = "lo > hi")]
fn new_refuses_reversed_ends() {
    let _ = Interval::new(Float::with_val(53, 2), Float::with_val(53, 1));
}

/// The in-place operations of the hot loops (`mul_into`, `add_assign`, `sub_into`, `add_into`, and the
/// complex `mul_assign`, `add_assign` built on them) give the allocating operations' ends bit for bit: the
/// same values, signs of zero and precisions, over every sign case, zeros, infinite ends and mixed
/// precisions, into outputs of the result's precision (the fast path) and of another (the fallback).
#[test]
fn in_place_operations_are_the_allocating_ones() {
    let same = |x: &Interval, y: &Interval| {
        let f = |a: &Float, b: &Float| {
            a.prec() == b.prec() && (a == b || (a.is_nan() && b.is_nan())) && a.is_sign_negative() == b.is_sign_negative()
        };
        f(&x.lo, &y.lo) && f(&x.hi, &y.hi)
    };
    run(0x1a7, n_cases(), |g, ctx| {
        let (a, b) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
        let p = a.prec().max(b.prec());
        for q in [p, p + 7] {
            let mut out = Interval::zero(q);
            a.mul_into(&b, &mut out);
            assert!(same(&out, &a.mul(&b)), "mul_into {out:?}\n{}", ctx());
            Interval::sub_into(&a, &b, &mut out);
            assert!(same(&out, &a.sub(&b)), "sub_into {out:?}\n{}", ctx());
            Interval::add_into(&a, &b, &mut out);
            assert!(same(&out, &a.add(&b)), "add_into {out:?}\n{}", ctx());
        }
        let mut s = a.clone();
        s.add_assign(&b);
        assert!(same(&s, &a.add(&b)), "add_assign {s:?}\n{}", ctx());
        let (c, d) = (g.interval(Range::Extreme), g.interval(Range::Extreme));
        let (z, w) = (CInterval::new(a.clone(), b.clone()), CInterval::new(c, d));
        let mut scratch: [Interval; 4] = std::array::from_fn(|_| Interval::zero(p));
        let mut m = z.clone();
        m.mul_assign(&w, &mut scratch);
        let want = z.mul(&w);
        assert!(same(m.re(), want.re()) && same(m.im(), want.im()), "mul_assign {m:?} vs {want:?}\n{}", ctx());
        let mut s = z.clone();
        s.add_assign(&w);
        let want = z.add(&w);
        assert!(same(s.re(), want.re()) && same(s.im(), want.im()), "complex add_assign\n{}", ctx());
    });
}
