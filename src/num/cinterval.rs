//! Complex rectangles over MPFR intervals: z ∈ re + i·im with both parts [`Interval`]s. Every operation
//! is the componentwise interval formula (outward rounded), so the rectangle always holds the exact
//! result; rectangles widen a little under multiplication (the product of two rectangles is not a
//! rectangle), which at 128 bits is far below what the callers resolve.

use super::Interval;
use rug::float::Round;
use rug::{Float, Rational};

/// Planning only: the bits by which a rectangle's width may grow when it is multiplied by e^{iθ} — its
/// bounding box after the rotation is at most |cos θ| + |sin θ| (≤ √2) times wider. Recurrences of
/// rotations restart from a direct evaluation before the sum of these passes a budget.
pub fn rotation_growth_bits(theta: f64) -> f64 {
    (theta.cos().abs() + theta.sin().abs()).log2().max(0.0)
}

/// Bits a phase recurrence's rectangles may widen by before it restarts from MPFR's sine and cosine (far
/// below the working precision's guard bits).
pub const RESTART_BITS: f64 = 16.0;

/// The phases w e^{ikθ}, k = 0, 1, 2, …, by the recurrence z_k = z_{k−1} e^{iθ}, restarted from MPFR's
/// sine and cosine, w e^{i(kθ)}, before the rectangles may have widened by [`RESTART_BITS`] bits
/// ([`rotation_growth_bits`] per step). In place: one complex product per step, no allocation.
pub struct Phases {
    w: Interval,
    theta: Interval,
    step: CInterval,
    grow: f64,
    since: f64,
    k: i64,
    z: CInterval,
    scratch: [Interval; 4],
}

impl Phases {
    /// The phases of step θ scaled by w, at k = 0 (the value w).
    pub fn new(w: &Interval, theta: &Interval) -> Phases {
        Phases::from_k(w, theta, 0)
    }

    /// The phases of step θ scaled by w, at k = k0 (the value w e^{ik0θ}, from MPFR's sine and cosine where
    /// k0 > 0).
    pub fn from_k(w: &Interval, theta: &Interval, k0: i64) -> Phases {
        let p = w.prec();
        let z = if k0 == 0 { CInterval::real(w.clone()) } else { Phases::direct(w, theta, k0) };
        Phases {
            w: w.clone(),
            theta: theta.clone(),
            step: CInterval::exp_of(&Interval::zero(p), theta),
            grow: rotation_growth_bits(theta.mid().to_f64()),
            since: 0.0,
            k: k0,
            z,
            scratch: std::array::from_fn(|_| Interval::zero(p)),
        }
    }

    /// w e^{ikθ} from MPFR's sine and cosine of kθ (a start, or a restart).
    fn direct(w: &Interval, theta: &Interval, k: i64) -> CInterval {
        let p = w.prec();
        CInterval::exp_of(&Interval::zero(p), &theta.mul(&Interval::from_i64(k, p))).scale(w)
    }

    /// w e^{ikθ} at the current k.
    pub fn current(&self) -> &CInterval {
        &self.z
    }

    /// On to k + 1.
    pub fn advance(&mut self) {
        self.k += 1;
        if self.since + self.grow > RESTART_BITS {
            self.z = Phases::direct(&self.w, &self.theta, self.k);
            self.since = 0.0;
        } else {
            self.z.mul_assign(&self.step, &mut self.scratch);
            self.since += self.grow;
        }
    }
}

/// A complex number known to lie in the rectangle re × im. The parts are private (read through
/// [`CInterval::re`] / [`CInterval::im`]), like the ends of an [`Interval`].
#[derive(Clone, Debug)]
pub struct CInterval {
    re: Interval,
    im: Interval,
}

impl CInterval {
    pub fn new(re: Interval, im: Interval) -> CInterval {
        CInterval { re, im }
    }

    /// The real part.
    pub fn re(&self) -> &Interval {
        &self.re
    }

    /// The imaginary part.
    pub fn im(&self) -> &Interval {
        &self.im
    }

    /// The two parts (re, im).
    pub fn into_parts(self) -> (Interval, Interval) {
        (self.re, self.im)
    }

    pub fn real(re: Interval) -> CInterval {
        let p = re.prec();
        CInterval { re, im: Interval::zero(p) }
    }

    pub fn one(prec: u32) -> CInterval {
        CInterval::real(Interval::one(prec))
    }

    pub fn add(&self, o: &CInterval) -> CInterval {
        CInterval { re: self.re.add(&o.re), im: self.im.add(&o.im) }
    }

    pub fn mul(&self, o: &CInterval) -> CInterval {
        CInterval { re: self.re.mul(&o.re).sub(&self.im.mul(&o.im)), im: self.re.mul(&o.im).add(&self.im.mul(&o.re)) }
    }

    /// self + o in place: [`CInterval::add`] bit for bit.
    pub fn add_assign(&mut self, o: &CInterval) {
        self.re.add_assign(&o.re);
        self.im.add_assign(&o.im);
    }

    /// self · o in place, with four scratch intervals at the working precision: [`CInterval::mul`] bit for
    /// bit, without allocating in the phase recurrences' loops.
    pub fn mul_assign(&mut self, o: &CInterval, scratch: &mut [Interval; 4]) {
        self.products(o, scratch);
        let [ac, bd, ad, bc] = scratch;
        Interval::sub_into(ac, bd, &mut self.re);
        Interval::add_into(ad, bc, &mut self.im);
    }

    /// self · o into `out`, with four scratch intervals: [`CInterval::mul`] bit for bit, without allocating
    /// where `out` and the scratch hold the working precision.
    pub fn mul_into(&self, o: &CInterval, out: &mut CInterval, scratch: &mut [Interval; 4]) {
        self.products(o, scratch);
        let [ac, bd, ad, bc] = scratch;
        Interval::sub_into(ac, bd, &mut out.re);
        Interval::add_into(ad, bc, &mut out.im);
    }

    /// The four products of the parts, ac, bd, ad, bc, into the scratch.
    fn products(&self, o: &CInterval, scratch: &mut [Interval; 4]) {
        let [ac, bd, ad, bc] = scratch;
        self.re.mul_into(&o.re, ac);
        self.im.mul_into(&o.im, bd);
        self.re.mul_into(&o.im, ad);
        self.im.mul_into(&o.re, bc);
    }

    /// z^k by repeated squaring, in place (composition counts up to 2^64). Each product may widen the
    /// rectangle by at most √2 beyond the product of the parts' widths: relative widths grow like k^{3/2}
    /// (64 bits at most over the 64 squarings), where exp(k ln z) would grow them like k.
    pub fn pow_u64(&self, mut k: u64) -> CInterval {
        let p = self.re.prec();
        let mut scratch: [Interval; 4] = std::array::from_fn(|_| Interval::zero(p));
        let mut acc = CInterval::one(p);
        let mut b = self.clone();
        let mut sq = CInterval::one(p);
        while k > 0 {
            if k & 1 == 1 {
                acc.mul_assign(&b, &mut scratch);
            }
            k >>= 1;
            if k > 0 {
                b.mul_into(&b, &mut sq, &mut scratch);
                std::mem::swap(&mut b, &mut sq);
            }
        }
        acc
    }

    pub fn scale(&self, x: &Interval) -> CInterval {
        CInterval { re: self.re.mul(x), im: self.im.mul(x) }
    }

    /// z^k by repeated squaring ([`CInterval::pow_u64`]).
    pub fn powu(&self, k: u32) -> CInterval {
        self.pow_u64(u64::from(k))
    }

    /// e^{a + ib} for real intervals a, b.
    pub fn exp_of(a: &Interval, b: &Interval) -> CInterval {
        let m = a.exp();
        CInterval { re: m.mul(&b.cos()), im: m.mul(&b.sin()) }
    }

    /// |z|² over the rectangle: re² + im², each square taken over its interval (the product x·x would let
    /// a part straddling 0 contribute a negative lower end lo·hi; its square is [0, max(lo², hi²)]).
    fn abs2(&self) -> Interval {
        let sq = |i: &Interval| {
            if *i.lo() >= 0 || *i.hi() <= 0 {
                i.mul(i)
            } else {
                let p = i.prec();
                let (a, b) = (
                    Float::with_val_round(p, i.lo().square_ref(), Round::Up).0,
                    Float::with_val_round(p, i.hi().square_ref(), Round::Up).0,
                );
                Interval::new(Float::with_val(p, 0), if a > b { a } else { b })
            }
        };
        sq(&self.re).add(&sq(&self.im))
    }

    /// A logarithm of z, ln|z| + i·arg z, with arg on a branch chosen by where the rectangle lies (−π/2 to
    /// π/2 right of the imaginary axis, π/2 to 3π/2 left of it, ±π/2 − arctan(re/im) above or below the
    /// real axis): any branch serves a caller that exponentiates integer multiples of it. None when the
    /// rectangle may hold 0.
    pub fn ln(&self) -> Option<CInterval> {
        let n = self.abs2();
        if !(*n.lo() > 0) {
            return None;
        }
        let p = self.re.prec();
        let half = Interval::from_float(&Float::with_val(p, 0.5), p);
        let modulus = n.ln().mul(&half);
        let (re, im) = (&self.re, &self.im);
        let arg = if *re.lo() > 0 {
            im.div(re).atan()
        } else if *re.hi() < 0 {
            im.div(re).atan().add(&Interval::pi(p))
        } else if *im.lo() > 0 {
            Interval::pi(p).mul(&half).sub(&re.div(im).atan())
        } else if *im.hi() < 0 {
            Interval::pi(p).mul(&half).neg().sub(&re.div(im).atan())
        } else {
            return None;
        };
        Some(CInterval { re: modulus, im: arg })
    }

    /// 1/z = z̄/|z|² (None when |z|² may be 0).
    pub fn inv(&self) -> Option<CInterval> {
        let n = self.abs2();
        // the squares' lower ends may round below the true |z|² but never below 0: a positive lower end
        // certifies z ≠ 0
        if !(*n.lo() > 0) {
            return None;
        }
        Some(CInterval { re: self.re.div(&n), im: self.im.neg().div(&n) })
    }

    /// The rectangle widened by [−r, r] in both parts (a disk of radius r is inside it).
    pub fn widen(&self, r: &Float) -> CInterval {
        CInterval { re: self.re.widen(r), im: self.im.widen(r) }
    }

    /// An upper bound of |z| over the rectangle: √(max re² + max im²), rounded up.
    pub fn abs_hi(&self) -> Float {
        let p = self.re.prec();
        let m = |i: &Interval| {
            let a = Float::with_val(p, i.lo().abs_ref());
            let b = Float::with_val(p, i.hi().abs_ref());
            if a > b {
                a
            } else {
                b
            }
        };
        let (a, b) = (m(&self.re), m(&self.im));
        let s = Float::with_val_round(p, &a * &a, Round::Up).0 + Float::with_val_round(p, &b * &b, Round::Up).0;
        let s = Float::with_val_round(p, &s * (1 + Float::with_val(p, Float::i_exp(1, 4 - p as i32))), Round::Up).0;
        Float::with_val_round(p, s.sqrt_ref(), Round::Up).0
    }
}

/// ln of a complex rectangle that excludes 0: ln|z| + i arg z with arg continuous on the rectangle (any
/// branch: the callers only use e^{n ln z}).
pub fn cln(z: &CInterval) -> Option<CInterval> {
    let p = z.re().prec();
    let zero = Float::with_val(p, 0);
    let sq = |i: &Interval| {
        if *i.lo() >= 0 || *i.hi() <= 0 {
            i.mul(i)
        } else {
            let hi = if i.lo().clone().abs() > i.hi().clone().abs() { i.lo().clone() } else { i.hi().clone() };
            Interval::new(zero.clone(), Float::with_val_round(p, hi.square_ref(), Round::Up).0)
        }
    };
    let n2 = sq(z.re()).add(&sq(z.im()));
    if !(*n2.lo() > 0) {
        return None;
    }
    let ln_abs = n2.ln().mul_rational(&Rational::from((1, 2)));
    let half_pi = Interval::pi(p).mul_rational(&Rational::from((1, 2)));
    let arg = if *z.re().lo() > 0 {
        Interval::atan(&z.im().div(z.re()))
    } else if *z.im().lo() > 0 {
        half_pi.sub(&Interval::atan(&z.re().div(z.im())))
    } else if *z.im().hi() < 0 {
        half_pi.neg().sub(&Interval::atan(&z.re().div(z.im())))
    } else if *z.re().hi() < 0 {
        Interval::pi(p).add(&Interval::atan(&z.im().div(z.re())))
    } else {
        return None;
    };
    Some(CInterval::new(ln_abs, arg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    fn ci(re: f64, im: f64) -> CInterval {
        let f = |x: f64| Interval::from_float(&Float::with_val(128, x), 128);
        CInterval::new(f(re), f(im))
    }

    fn holds(z: &CInterval, v: Complex64, tol: f64) -> bool {
        // an f64 reference (exact inputs, a few roundings): the rectangle must contain it up to those
        let inside = |i: &Interval, x: f64| i.lo().to_f64() - tol <= x && x <= i.hi().to_f64() + tol;
        inside(&z.re, v.re) && inside(&z.im, v.im)
    }

    #[test]
    fn operations_enclose_the_complex_results() {
        // the same value by num-complex in f64 (an independent implementation)
        let mut s = crate::num::xorshift::XorShift(7);
        let mut r = |a: f64, b: f64| a + (b - a) * s.next_f64();
        for _ in 0..200 {
            let (a, b, c, d) = (r(-3.0, 3.0), r(-3.0, 3.0), r(-3.0, 3.0), r(-3.0, 3.0));
            let (x, y) = (ci(a, b), ci(c, d));
            let (zx, zy) = (Complex64::new(a, b), Complex64::new(c, d));
            assert!(holds(&x.mul(&y), zx * zy, 1e-14));
            assert!(holds(&x.add(&y), zx + zy, 1e-14));
            assert!(holds(&x.powu(5), zx.powu(5), 1e-11 * zx.norm().powi(5).max(1.0)));
            assert!(holds(&x.inv().unwrap(), 1.0 / zx, 1e-13 / zx.norm_sqr()));
            let e = CInterval::exp_of(&x.re, &x.im);
            assert!(holds(&e, zx.exp(), 1e-13 * a.exp()));
            // f64's hypot is within an ulp of |z|: the 128-bit upper bound is at least |z| up to that ulp
            let r = x.abs_hi().to_f64();
            assert!(r >= zx.norm() * (1.0 - 4.0 * f64::EPSILON) && r <= zx.norm() * (1.0 + 1e-12), "{r} vs {}", zx.norm());
        }
        // rectangles are tight at 128 bits: a product's parts are ~1e-37 wide
        let p = ci(0.3, -1.7).mul(&ci(2.1, 0.4));
        assert!(p.re.width().to_f64() < 1e-35 && p.im.width().to_f64() < 1e-35);
        assert!(ci(0.0, 0.0).inv().is_none());
        // a logarithm in every quadrant and on both axes: its exponential is z again (num-complex's exp)
        for (a, b) in [(1.5, 0.3), (-2.0, 0.7), (-0.4, -3.1), (0.2, -0.9), (0.0, 2.0), (0.0, -0.5), (-1.0, 0.0), (3.0, 0.0)] {
            let l = ci(a, b).ln().unwrap();
            let back = Complex64::new(l.re.mid().to_f64(), l.im.mid().to_f64()).exp();
            assert!((back - Complex64::new(a, b)).norm() < 1e-14, "ln({a}, {b}) = {l:?}");
            assert!(l.re.width().to_f64() < 1e-35 && l.im.width().to_f64() < 1e-35);
        }
        assert!(ci(0.0, 0.0).ln().is_none());
    }

    /// x e^{iy} at 2,048 bits by MPFR's exponential, sine and cosine (an independent evaluation: no
    /// recurrence, no squaring), as f64 pairs of its parts to compare rectangles with.
    fn polar(r_ln: &Float, y: &Float) -> (Float, Float) {
        let p = 2048;
        let r = Float::with_val(p, r_ln.exp_ref());
        (Float::with_val(p, &r * Float::with_val(p, y.cos_ref())), Float::with_val(p, &r * Float::with_val(p, y.sin_ref())))
    }

    /// x in i, up to the reference's own rounding (2^−2000 relative: a point rectangle, exact, holds an
    /// exact value the reference rounded).
    fn contains(i: &Interval, x: &Float) -> bool {
        let slack = Float::with_val(2048, x.clone().abs() >> 2000u32);
        *i.lo() <= Float::with_val(2048, x + &slack) && Float::with_val(2048, x - &slack) <= *i.hi()
    }

    /// The phase recurrence, from k = 0 and from a later start, holds w e^{ikθ} at every k to 5,000 (past
    /// many restarts), and its rectangles stay within the restart's bits of the working precision.
    #[test]
    fn phases_hold_the_rotations_at_every_step() {
        let p = 128;
        let w = Interval::from_float(&Float::with_val(p, 3), p);
        let theta = Interval::from_float(&Float::with_val(p, 0.7), p);
        let ln_w = Float::with_val(2048, 3).ln();
        for k0 in [0i64, 1_234] {
            let mut z = Phases::from_k(&w, &theta, k0);
            for k in k0..k0 + 5_000 {
                if k > k0 {
                    z.advance();
                }
                let y = Float::with_val(2048, Float::with_val(2048, 0.7) * k);
                let (re, im) = polar(&ln_w, &y);
                assert!(contains(z.current().re(), &re) && contains(z.current().im(), &im), "k = {k}: {:?}", z.current());
                let width = z.current().re().width().to_f64().max(z.current().im().width().to_f64());
                assert!(width < 3.0 * 2f64.powf(-(p as f64) + RESTART_BITS + 8.0), "k = {k}: width {width:e}");
            }
        }
    }

    /// z^k by squaring holds |z|^k e^{ik arg z} (MPFR's polar form at 2,048 bits) up to a million, with the
    /// relative width its doc allows (k^{3/2} times a few roundings).
    #[test]
    fn powers_by_squaring_hold_the_polar_form() {
        let p = 160;
        for (a, b) in [(0.75, 0.5), (-0.3125, 0.9375), (0.5, -0.875)] {
            let z = CInterval::new(Interval::from_float(&Float::with_val(p, a), p), Interval::from_float(&Float::with_val(p, b), p));
            let (fa, fb) = (Float::with_val(2048, a), Float::with_val(2048, b));
            let ln_r = Float::with_val(2048, Float::with_val(2048, &fa * &fa) + Float::with_val(2048, &fb * &fb)).ln() / 2u32;
            let arg = Float::with_val(2048, fb.atan2_ref(&fa));
            for k in [1u64, 2, 3, 1_000, 14_070, 1_000_000] {
                let zk = z.pow_u64(k);
                let (re, im) = polar(&Float::with_val(2048, &ln_r * k), &Float::with_val(2048, &arg * k));
                assert!(contains(zk.re(), &re) && contains(zk.im(), &im), "({a}, {b})^{k}: {zk:?}");
                // (in MPFR: |z|^k is below f64's range from k = 14,070 on)
                let modulus = Float::with_val(2048, &ln_r * k).exp();
                let width = Float::with_val(2048, zk.re().width().max(&zk.im().width()));
                let rel = Float::with_val(2048, width / modulus).to_f64();
                assert!(rel < (k as f64).powf(1.5) * 2f64.powi(-(p as i32) + 6), "({a}, {b})^{k}: relative width {rel:e}");
            }
        }
    }
}

/// Randomized tests in the manner of FLINT/Arb's `acb` tests: random rectangles (parts from
/// `xorshift::gen`: exact zeros, points, parts straddling 0, precisions 2–4000 bits), a random point of each
/// operand (a corner three times in four), and the exact image computed with `rug::Rational` (or, for exp,
/// enclosed at 4p + 64 bits by MPFR's directed rounding) must lie in the result; widths are bounded by the
/// exact range of the componentwise formula plus a few roundings at the operands' precision.
#[cfg(test)]
mod random_tests {
    use super::*;
    use crate::num::xorshift::gen::{case, Range};
    use crate::num::xorshift::XorShift;
    use rug::Rational;

    /// Cases per test: 150 by default, ×{TIGHTDP_TEST_MULTIPLIER} (10 in the heavy tier: 1500).
    fn n_cases() -> u64 {
        crate::num::test_cases(150)
    }

    fn rect(g: &mut XorShift) -> CInterval {
        CInterval::new(g.interval(Range::Moderate), g.interval(Range::Moderate))
    }

    fn q(x: &Float) -> Rational {
        x.to_rational().unwrap()
    }

    /// A point of the rectangle as exact rationals.
    fn point(g: &mut XorShift, z: &CInterval) -> (Rational, Rational) {
        (q(&g.point(&z.re)), q(&g.point(&z.im)))
    }

    fn inside(i: &Interval, v: &Rational) -> bool {
        *i.lo() <= *v && *i.hi() >= *v
    }

    fn holds(z: &CInterval, v: &(Rational, Rational), what: &str, ctx: &dyn Fn() -> String) {
        assert!(inside(&z.re, &v.0) && inside(&z.im, &v.1), "{what} = {z:?} misses ({}, {})\n{}", v.0.to_f64(), v.1.to_f64(), ctx());
    }

    fn mul(a: &(Rational, Rational), b: &(Rational, Rational)) -> (Rational, Rational) {
        (Rational::from(&a.0 * &b.0) - Rational::from(&a.1 * &b.1), Rational::from(&a.0 * &b.1) + Rational::from(&a.1 * &b.0))
    }

    fn width(i: &Interval) -> Rational {
        q(i.hi()) - q(i.lo())
    }

    /// max − min of x·y over the corners (the exact range of a product of two intervals).
    fn prod_range(a: &Interval, b: &Interval) -> (Rational, Rational) {
        let c: Vec<Rational> =
            [(a.lo(), b.lo()), (a.lo(), b.hi()), (a.hi(), b.lo()), (a.hi(), b.hi())].iter().map(|(x, y)| q(x) * q(y)).collect();
        let (mut lo, mut hi) = (c[0].clone(), c[0].clone());
        for v in &c[1..] {
            if *v < lo {
                lo = v.clone();
            }
            if *v > hi {
                hi = v.clone();
            }
        }
        let m = if lo.clone().abs() > hi.clone().abs() { lo.clone().abs() } else { hi.clone().abs() };
        (hi - lo, m)
    }

    fn ulps(p: u32, k: u32) -> Rational {
        // k·2^-p, with 2^-p ≥ the relative error of one directed rounding at p bits over 2
        Rational::from(k) >> p as i32
    }

    fn min_prec(zs: &[&CInterval]) -> u32 {
        zs.iter().map(|z| z.re.prec().min(z.im.prec())).min().unwrap()
    }

    fn run(seed: u64, n: u64, mut f: impl FnMut(&mut XorShift, &dyn Fn() -> String)) {
        for i in 0..n {
            let mut g = case(seed, i);
            f(&mut g, &|| format!("case {i} of the test seeded {seed:#x}"));
        }
    }

    #[test]
    fn add_and_widen_enclose_and_are_tight() {
        run(0xca0, n_cases(), |g, ctx| {
            let (a, b) = (rect(g), rect(g));
            let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
            let (x, y) = (point(g, &a), point(g, &b));
            let s = a.add(&b);
            holds(&s, &(Rational::from(&x.0 + &y.0), Rational::from(&x.1 + &y.1)), "a + b", ctx);
            let p = min_prec(&[&a, &b]);
            let mag = |i: &Interval| q(i.lo()).abs().max(q(i.hi()).abs());
            let bound = width(&a.re) + width(&b.re) + ulps(p, 4) * (mag(&a.re) + mag(&b.re));
            assert!(width(&s.re) <= bound, "a + b too wide: {s:?}\n{}", ctx());
            let pr = g.prec().min(64);
            let r = g.float(pr, Range::Moderate).abs();
            let w = a.widen(&r);
            let rq = q(&r);
            for (d0, d1) in [(-1, -1), (1, 1), (-1, 1)] {
                holds(&w, &(&x.0 + d0 * rq.clone(), &x.1 + d1 * rq.clone()), "widen", ctx);
            }
        });
    }

    #[test]
    fn mul_and_scale_enclose_and_are_tight() {
        run(0xca1, n_cases(), |g, ctx| {
            let (a, b) = (rect(g), rect(g));
            let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
            let (x, y) = (point(g, &a), point(g, &b));
            let m = a.mul(&b);
            holds(&m, &mul(&x, &y), "a·b", ctx);
            // each part is a sum of two interval products: its exact range is the sum of their ranges
            let p = min_prec(&[&a, &b]);
            for (part, (u, v), (s, t)) in [(&m.re, (&a.re, &b.re), (&a.im, &b.im)), (&m.im, (&a.re, &b.im), (&a.im, &b.re))] {
                let (w1, m1) = prod_range(u, v);
                let (w2, m2) = prod_range(s, t);
                let bound = w1 + w2 + ulps(p, 16) * (m1 + m2);
                assert!(width(part) <= bound, "a·b too wide: {m:?}\n{}", ctx());
            }
            let c = g.interval(Range::Moderate);
            let sc = a.scale(&c);
            let cx = q(&g.point(&c));
            holds(&sc, &(Rational::from(&x.0 * &cx), Rational::from(&x.1 * &cx)), "a·c", ctx);
            assert!(*CInterval::real(c.clone()).im.lo() == 0 && *CInterval::one(7).re.lo() == 1);
        });
    }

    #[test]
    fn powu_encloses() {
        run(0xca2, n_cases() / 3, |g, ctx| {
            let a = rect(g);
            let k = g.below(9) as u32;
            let ctx = &|| format!("{}: a = {a:?}, k = {k}", ctx());
            let x = point(g, &a);
            let mut v = (Rational::from(1), Rational::new());
            for _ in 0..k {
                v = mul(&v, &x);
            }
            holds(&a.powu(k), &v, "a^k", ctx);
        });
    }

    /// 1/z: enclosed whenever it is returned; refused only when the rectangle's |z|² may be 0 (its
    /// interval square sum reaches 0); for point inputs the parts are a few ulps wide.
    #[test]
    fn inv_encloses_and_is_tight() {
        run(0xca3, n_cases(), |g, ctx| {
            let a = rect(g);
            let ctx = &|| format!("{}: a = {a:?}", ctx());
            let Some(r) = a.inv() else {
                // refused only when the rectangle holds 0 (both parts reach 0) or a square's lower end
                // underflowed to 0
                let z = |i: &Interval| *i.lo() <= 0 && *i.hi() >= 0;
                let tiny = |i: &Interval| i.lo().get_exp().unwrap_or(i32::MIN).max(i.hi().get_exp().unwrap_or(i32::MIN)) < -1_000_000;
                assert!((z(&a.re) && z(&a.im)) || tiny(&a.re) || tiny(&a.im), "inv refused {a:?}\n{}", ctx());
                return;
            };
            let x = point(g, &a);
            let n = Rational::from(x.0.square_ref()) + Rational::from(x.1.square_ref());
            holds(&r, &(Rational::from(&x.0 / &n), -Rational::from(&x.1 / &n)), "1/a", ctx);
            if a.re.lo() == a.re.hi() && a.im.lo() == a.im.hi() {
                let p = min_prec(&[&a]);
                let m = (q(a.re.lo()).abs() + q(a.im.lo()).abs()) / n.clone();
                for part in [&r.re, &r.im] {
                    assert!(width(part) <= ulps(p, 64) * m.clone() * if p < 8 { 1 << 8 } else { 1 }, "1/a too wide: {r:?}\n{}", ctx());
                }
            }
        });
    }

    /// e^(a + ib): the image of points enclosed at 4p + 64 bits; for point inputs the parts are within
    /// 2^(6−p)·e^a wide.
    #[test]
    fn exp_of_encloses_and_is_tight() {
        run(0xca4, n_cases() / 2, |g, ctx| {
            let (a, b) = (g.interval(Range::Moderate), g.interval(Range::Moderate));
            let ctx = &|| format!("{}: a = {a:?}, b = {b:?}", ctx());
            if *a.hi() > 1000 || *a.lo() < -1000 || b.lo().get_exp().unwrap_or(0).max(b.hi().get_exp().unwrap_or(0)) > 100 {
                return;
            }
            let r = CInterval::exp_of(&a, &b);
            let qp = 4 * a.prec().max(b.prec()) + 64;
            let (x, y) = (Float::with_val(qp, g.point(&a)), Float::with_val(qp, g.point(&b)));
            let e =
                Interval::new(Float::with_val_round(qp, x.exp_ref(), Round::Down).0, Float::with_val_round(qp, x.exp_ref(), Round::Up).0);
            let c =
                Interval::new(Float::with_val_round(qp, y.cos_ref(), Round::Down).0, Float::with_val_round(qp, y.cos_ref(), Round::Up).0);
            let s =
                Interval::new(Float::with_val_round(qp, y.sin_ref(), Round::Down).0, Float::with_val_round(qp, y.sin_ref(), Round::Up).0);
            let (re, im) = (e.mul(&c), e.mul(&s));
            assert!(r.re.contains_interval(&re) && r.im.contains_interval(&im), "exp_of = {r:?} misses ({re:?}, {im:?})\n{}", ctx());
            if a.lo() == a.hi() && b.lo() == b.hi() {
                let p = a.prec().min(b.prec());
                let bound = Float::with_val(qp, e.hi()) >> (p as i32 - 6);
                assert!(r.re.width() <= bound && r.im.width() <= bound, "exp_of too wide: {r:?}\n{}", ctx());
            }
        });
    }

    /// abs_hi ≥ |z| everywhere on the rectangle (the farthest corner), and at most (1 + 2^(6−p)) times it.
    #[test]
    fn abs_hi_bounds_and_is_tight() {
        run(0xca5, n_cases(), |g, ctx| {
            let a = rect(g);
            let ctx = &|| format!("{}: a = {a:?}", ctx());
            let m = |i: &Interval| q(i.lo()).abs().max(q(i.hi()).abs());
            let r2 = m(&a.re).square() + m(&a.im).square();
            let h = q(&a.abs_hi());
            let h2 = Rational::from(h.square_ref());
            assert!(h2 >= r2, "abs_hi = {} below the farthest corner\n{}", h.to_f64(), ctx());
            let p = a.re.prec();
            let f = Rational::from(1) + (Rational::from(1) >> (p as i32 - 6));
            assert!(h2 <= r2 * f.square(), "abs_hi = {} too large\n{}", h.to_f64(), ctx());
        });
    }
}
