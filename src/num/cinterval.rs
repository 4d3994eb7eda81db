//! Complex rectangles over MPFR intervals: z ∈ re + i·im with both parts [`Interval`]s. Every operation
//! is the componentwise interval formula (outward rounded), so the rectangle always holds the exact
//! result; rectangles widen a little under multiplication (the product of two rectangles is not a
//! rectangle), which at 128 bits is far below what the callers resolve.

use super::Interval;
use rug::float::Round;
use rug::Float;

/// A complex number known to lie in the rectangle re × im.
#[derive(Clone, Debug)]
pub struct CInterval {
    pub re: Interval,
    pub im: Interval,
}

impl CInterval {
    pub fn new(re: Interval, im: Interval) -> CInterval {
        CInterval { re, im }
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

    pub fn scale(&self, x: &Interval) -> CInterval {
        CInterval { re: self.re.mul(x), im: self.im.mul(x) }
    }

    /// z^k by repeated squaring.
    pub fn powu(&self, mut k: u32) -> CInterval {
        let mut acc = CInterval::one(self.re.prec());
        let mut b = self.clone();
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(&b);
            }
            k >>= 1;
            if k > 0 {
                b = b.mul(&b);
            }
        }
        acc
    }

    /// e^{a + ib} for real intervals a, b.
    pub fn exp_of(a: &Interval, b: &Interval) -> CInterval {
        let m = a.exp();
        CInterval { re: m.mul(&b.cos()), im: m.mul(&b.sin()) }
    }

    /// 1/z = z̄/|z|² (None when |z|² may be 0).
    pub fn inv(&self) -> Option<CInterval> {
        let n = self.re.mul(&self.re).add(&self.im.mul(&self.im));
        // the squares' lower ends may round below the true |z|² but never below 0: a positive lower end
        // certifies z ≠ 0
        if !(n.lo > 0) {
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
            let a = Float::with_val(p, i.lo.abs_ref());
            let b = Float::with_val(p, i.hi.abs_ref());
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
        let inside = |i: &Interval, x: f64| i.lo.to_f64() - tol <= x && x <= i.hi.to_f64() + tol;
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
    }
}
