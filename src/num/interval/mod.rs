//! Certified interval arithmetic over MPFR floats (`rug::Float`).
//!
//! An [`Interval`] `[lo, hi]` always contains the exact value of the quantity it stands for:
//! every operation rounds its lower end toward −∞ and its upper end toward +∞ (MPFR's
//! correctly rounded `Round::Down` / `Round::Up`), so errors never accumulate silently.

use rug::float::{Constant, Round, Special};
use rug::ops::{AddAssignRound, AssignRound};
use rug::{Float, Rational};
use std::fmt;

/// A closed interval `[lo, hi]` of MPFR floats with a common precision.
///
/// The ends are private: an interval is built only by this module's constructors, every one of which
/// checks lo ≤ hi (and no NaN end) in release builds too ([`Interval::new`]; [`Interval::try_new`]
/// returns the failure as an internal error), and read through [`Interval::lo`] / [`Interval::hi`] (or
/// taken apart by [`Interval::into_parts`]). No code can change one end of an interval alone.
#[derive(Clone, PartialEq)]
pub struct Interval {
    lo: Float,
    hi: Float,
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interval").field("lo", &self.lo).field("hi", &self.hi).finish()
    }
}

impl Interval {
    /// The degenerate interval `[x, x]` (x must be representable at `prec`; it is rounded outward otherwise).
    pub fn from_float(x: &Float, prec: u32) -> Self {
        let lo = Float::with_val_round(prec, x, Round::Down).0;
        let hi = Float::with_val_round(prec, x, Round::Up).0;
        Interval::new(lo, hi)
    }

    /// Exact rational enclosed by rounding outward.
    pub fn from_rational(q: &Rational, prec: u32) -> Self {
        let lo = Float::with_val_round(prec, q, Round::Down).0;
        let hi = Float::with_val_round(prec, q, Round::Up).0;
        Interval::new(lo, hi)
    }

    /// The integer v rounded outward at `prec` (exact where it fits): the enclosure of
    /// [`Interval::from_rational`] of v, to the bit, without building the rational.
    pub fn from_i64(v: i64, prec: u32) -> Self {
        Interval::new(Float::with_val_round(prec, v, Round::Down).0, Float::with_val_round(prec, v, Round::Up).0)
    }

    /// The integer v in place ([`Interval::from_i64`] bit for bit, at the interval's precision).
    pub fn assign_i64(&mut self, v: i64) {
        self.lo.assign_round(v, Round::Down);
        self.hi.assign_round(v, Round::Up);
    }

    pub fn zero(prec: u32) -> Self {
        Interval::new(Float::with_val(prec, 0), Float::with_val(prec, 0))
    }

    pub fn one(prec: u32) -> Self {
        Interval::new(Float::with_val(prec, 1), Float::with_val(prec, 1))
    }

    /// `[lo, hi]` from two floats. lo ≤ hi is an invariant every caller must establish (a reversed or NaN
    /// end would make every later enclosure meaningless), so it is checked in release builds too; every
    /// operation of this module builds its result through here. A failed check is a bug, never a user's
    /// doing: the operations keep enclosures of extreme values NaN-free (an overflowed end ±∞ times 0 is
    /// 0, a corner ∞/∞ of a quotient is left out), so that no input reaches the panic
    /// (`tests/interval_edges_cli.rs` holds the inputs that once did); a computation whose ends may
    /// legitimately fail uses [`Interval::try_new`].
    pub fn new(lo: Float, hi: Float) -> Self {
        assert!(lo <= hi, "internal error: interval with lo > hi or a NaN end: [{lo}, {hi}]");
        Interval { lo, hi }
    }

    /// [`Interval::new`] for ends that come from a computation that may fail: an internal error instead
    /// of a panic when lo > hi or an end is NaN.
    pub fn try_new(lo: Float, hi: Float) -> crate::error::Fallible<Self> {
        if lo <= hi {
            Ok(Interval { lo, hi })
        } else {
            crate::fallible!(Internal, "interval with lo > hi or a NaN end: [{lo}, {hi}]")
        }
    }

    /// The lower end.
    pub fn lo(&self) -> &Float {
        &self.lo
    }

    /// The upper end.
    pub fn hi(&self) -> &Float {
        &self.hi
    }

    /// The two ends, lo ≤ hi.
    pub fn into_parts(self) -> (Float, Float) {
        (self.lo, self.hi)
    }

    /// π enclosed.
    pub fn pi(prec: u32) -> Self {
        Interval::new(Float::with_val_round(prec, Constant::Pi, Round::Down).0, Float::with_val_round(prec, Constant::Pi, Round::Up).0)
    }

    /// ln 2 enclosed.
    pub fn ln2(prec: u32) -> Self {
        Interval::new(Float::with_val_round(prec, Constant::Log2, Round::Down).0, Float::with_val_round(prec, Constant::Log2, Round::Up).0)
    }

    pub fn prec(&self) -> u32 {
        self.lo.prec().max(self.hi.prec())
    }

    pub fn width(&self) -> Float {
        Float::with_val_round(self.prec(), &self.hi - &self.lo, Round::Up).0
    }

    /// log10 of the relative width (hi − lo)/max(|lo|, |hi|): see [`log10_rel_width`].
    pub fn log10_rel_width(&self) -> f64 {
        log10_rel_width(&self.lo, &self.hi)
    }

    /// True if the bracket has at least `digits` correct significant digits (relative width ≤ 10^-digits).
    pub fn meets(&self, digits: u32) -> bool {
        self.log10_rel_width() <= -f64::from(digits)
    }

    /// A float in [lo, hi] near the midpoint (lo + hi)/2 (halved before the sum when that sum would overflow).
    pub fn mid(&self) -> Float {
        let p = self.prec() + 1;
        let s = Float::with_val(p, &self.lo + &self.hi);
        if s.is_finite() {
            s / 2u32
        } else {
            Float::with_val(p, &self.lo / 2u32) + Float::with_val(p, &self.hi / 2u32)
        }
    }

    pub fn contains(&self, x: &Float) -> bool {
        &self.lo <= x && x <= &self.hi
    }

    pub fn contains_interval(&self, other: &Interval) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// Smallest interval containing both.
    pub fn hull(&self, other: &Interval) -> Interval {
        let lo = if self.lo <= other.lo { self.lo.clone() } else { other.lo.clone() };
        let hi = if self.hi >= other.hi { self.hi.clone() } else { other.hi.clone() };
        Interval::new(lo, hi)
    }

    /// The enclosure of max(x, y) for x in self, y in other (endpoint-wise maximum).
    pub fn max(&self, other: &Interval) -> Interval {
        let lo = if self.lo >= other.lo { self.lo.clone() } else { other.lo.clone() };
        let hi = if self.hi >= other.hi { self.hi.clone() } else { other.hi.clone() };
        Interval::new(lo, hi)
    }

    /// The enclosure of min(x, y) for x in self, y in other (endpoint-wise minimum).
    pub fn min(&self, other: &Interval) -> Interval {
        let lo = if self.lo <= other.lo { self.lo.clone() } else { other.lo.clone() };
        let hi = if self.hi <= other.hi { self.hi.clone() } else { other.hi.clone() };
        Interval::new(lo, hi)
    }

    /// Certainly ≥ 0: every point of the enclosure is.
    pub fn is_nonneg(&self) -> bool {
        self.lo >= 0
    }

    /// Certainly > 0: every point of the enclosure is (a −0 lower end is not).
    pub fn is_positive(&self) -> bool {
        self.lo > 0
    }

    pub fn to_f64(&self) -> f64 {
        self.mid().to_f64()
    }

    pub fn add(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        Interval::new(Float::with_val_round(p, &self.lo + &o.lo, Round::Down).0, Float::with_val_round(p, &self.hi + &o.hi, Round::Up).0)
    }

    pub fn sub(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        Interval::new(Float::with_val_round(p, &self.lo - &o.hi, Round::Down).0, Float::with_val_round(p, &self.hi - &o.lo, Round::Up).0)
    }

    pub fn neg(&self) -> Interval {
        Interval::new(Float::with_val(self.hi.prec(), -&self.hi), Float::with_val(self.lo.prec(), -&self.lo))
    }

    /// Product; general signs. An infinite end times a zero end counts as 0 (the ends bound real
    /// numbers, and 0 times any real is 0; IEEE 1788's rule), not MPFR's NaN: an enclosure that
    /// overflowed to ±∞ multiplied by one that touches 0 stays an enclosure.
    pub fn mul(&self, o: &Interval) -> Interval {
        let p = self.prec().max(o.prec());
        let prod = |a: &Float, b: &Float, r: Round| -> Float {
            if (a.is_zero() && b.is_infinite()) || (a.is_infinite() && b.is_zero()) {
                Float::with_val(p, 0)
            } else {
                Float::with_val_round(p, a * b, r).0
            }
        };
        if self.lo >= 0 && o.lo >= 0 {
            return Interval::new(prod(&self.lo, &o.lo, Round::Down), prod(&self.hi, &o.hi, Round::Up));
        }
        if let Some((l, h)) = sign_corners(self, o, false) {
            return Interval::new(prod(l.0, l.1, Round::Down), prod(h.0, h.1, Round::Up));
        }
        let cands = [(&self.lo, &o.lo), (&self.lo, &o.hi), (&self.hi, &o.lo), (&self.hi, &o.hi)];
        let mut lo: Option<Float> = None;
        let mut hi: Option<Float> = None;
        for (a, b) in cands {
            let l = prod(a, b, Round::Down);
            let h = prod(a, b, Round::Up);
            if lo.as_ref().is_none_or(|x| l < *x) {
                lo = Some(l);
            }
            if hi.as_ref().is_none_or(|x| h > *x) {
                hi = Some(h);
            }
        }
        Interval::new(lo.expect("invariant: a non-empty set of end points"), hi.expect("invariant: a non-empty set of end points"))
    }

    /// [`Interval::mul`] into `out`, the same ends bit for bit; without allocating where `out` holds the
    /// product's precision and every end is finite (the hot loops' case), by [`Interval::mul`] otherwise.
    pub fn mul_into(&self, o: &Interval, out: &mut Interval) {
        let p = self.prec().max(o.prec());
        let finite = [&self.lo, &self.hi, &o.lo, &o.hi].into_iter().all(|f| f.is_finite());
        if finite && out.lo.prec() == p && out.hi.prec() == p {
            // (the branches of `mul`: both non-negative first, then the sign cases)
            let corners =
                if self.lo >= 0 && o.lo >= 0 { Some(((&self.lo, &o.lo), (&self.hi, &o.hi))) } else { sign_corners(self, o, false) };
            if let Some((l, h)) = corners {
                out.lo.assign_round(l.0 * l.1, Round::Down);
                out.hi.assign_round(h.0 * h.1, Round::Up);
                assert!(out.lo <= out.hi, "internal error: interval with lo > hi or a NaN end: [{}, {}]", out.lo, out.hi);
                return;
            }
        }
        *out = self.mul(o);
    }

    /// self + o in place, the same ends as [`Interval::add`] bit for bit (without allocating where self
    /// holds the sum's precision).
    pub fn add_assign(&mut self, o: &Interval) {
        if self.lo.prec() == self.prec().max(o.prec()) && self.hi.prec() == self.lo.prec() {
            self.lo.add_assign_round(&o.lo, Round::Down);
            self.hi.add_assign_round(&o.hi, Round::Up);
            assert!(self.lo <= self.hi, "internal error: interval with lo > hi or a NaN end: [{}, {}]", self.lo, self.hi);
        } else {
            *self = self.add(o);
        }
    }

    /// a − b into `out`, the same ends as [`Interval::sub`] bit for bit (without allocating where `out`
    /// holds the difference's precision).
    pub fn sub_into(a: &Interval, b: &Interval, out: &mut Interval) {
        let p = a.prec().max(b.prec());
        if out.lo.prec() == p && out.hi.prec() == p {
            out.lo.assign_round(&a.lo - &b.hi, Round::Down);
            out.hi.assign_round(&a.hi - &b.lo, Round::Up);
            assert!(out.lo <= out.hi, "internal error: interval with lo > hi or a NaN end: [{}, {}]", out.lo, out.hi);
        } else {
            *out = a.sub(b);
        }
    }

    /// a + b into `out`, the same ends as [`Interval::add`] bit for bit.
    pub fn add_into(a: &Interval, b: &Interval, out: &mut Interval) {
        let p = a.prec().max(b.prec());
        if out.lo.prec() == p && out.hi.prec() == p {
            out.lo.assign_round(&a.lo + &b.lo, Round::Down);
            out.hi.assign_round(&a.hi + &b.hi, Round::Up);
            assert!(out.lo <= out.hi, "internal error: interval with lo > hi or a NaN end: [{}, {}]", out.lo, out.hi);
        } else {
            *out = a.add(b);
        }
    }

    /// Quotient; the divisor must not contain zero. A corner ±∞/±∞ (ends that overflowed) is left out:
    /// a/b is monotone in each argument on the box, so its other corners bound it (as in IEEE 1788);
    /// with no corner left the quotient is only known to be real, [−∞, +∞].
    pub fn div(&self, o: &Interval) -> Interval {
        assert!(o.lo > 0 || o.hi < 0, "interval division by an interval containing zero");
        let p = self.prec().max(o.prec());
        if let Some((l, h)) = sign_corners(self, o, true) {
            return Interval::new(Float::with_val_round(p, l.0 / l.1, Round::Down).0, Float::with_val_round(p, h.0 / h.1, Round::Up).0);
        }
        let cands = [(&self.lo, &o.lo), (&self.lo, &o.hi), (&self.hi, &o.lo), (&self.hi, &o.hi)];
        let mut lo: Option<Float> = None;
        let mut hi: Option<Float> = None;
        for (a, b) in cands {
            if a.is_infinite() && b.is_infinite() {
                continue;
            }
            let l = Float::with_val_round(p, a / b, Round::Down).0;
            let h = Float::with_val_round(p, a / b, Round::Up).0;
            if lo.as_ref().is_none_or(|x| l < *x) {
                lo = Some(l);
            }
            if hi.as_ref().is_none_or(|x| h > *x) {
                hi = Some(h);
            }
        }
        Interval::new(
            lo.unwrap_or_else(|| Float::with_val(p, Special::NegInfinity)),
            hi.unwrap_or_else(|| Float::with_val(p, Special::Infinity)),
        )
    }

    /// x·k for a positive integer k: the enclosure of [`Interval::mul`] by the exact interval [k, k], to the
    /// bit, without building it (each end rounded outward once).
    pub fn mul_u64(&self, k: u64) -> Interval {
        assert!(k > 0, "mul_u64 by 0");
        let p = self.prec();
        Interval::new(Float::with_val_round(p, &self.lo * k, Round::Down).0, Float::with_val_round(p, &self.hi * k, Round::Up).0)
    }

    /// x/k for a positive integer k: the enclosure of [`Interval::div`] by the exact interval [k, k], to the bit.
    pub fn div_u64(&self, k: u64) -> Interval {
        assert!(k > 0, "div_u64 by 0");
        let p = self.prec();
        Interval::new(Float::with_val_round(p, &self.lo / k, Round::Down).0, Float::with_val_round(p, &self.hi / k, Round::Up).0)
    }

    /// x·2^e: the enclosure of [`Interval::mul`] by the exact interval [2^e, 2^e], to the bit (a shift of the
    /// ends' exponents, exact within MPFR's exponent range).
    pub fn mul_pow2(&self, e: i32) -> Interval {
        let p = self.prec();
        Interval::new(Float::with_val_round(p, &self.lo << e, Round::Down).0, Float::with_val_round(p, &self.hi << e, Round::Up).0)
    }

    pub fn mul_rational(&self, q: &Rational) -> Interval {
        self.mul(&Interval::from_rational(q, self.prec()))
    }

    /// e^x (monotone increasing).
    pub fn exp(&self) -> Interval {
        let mut lo = self.lo.clone();
        lo.exp_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.exp_round(Round::Up);
        Interval::new(lo, hi)
    }

    /// e^x − 1 (monotone increasing), without the cancellation of `exp` minus one near 0 (MPFR's expm1,
    /// each end rounded outward).
    pub fn exp_m1(&self) -> Interval {
        let mut lo = self.lo.clone();
        lo.exp_m1_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.exp_m1_round(Round::Up);
        Interval::new(lo, hi)
    }

    /// ln x for x > 0 (monotone increasing).
    pub fn ln(&self) -> Interval {
        assert!(self.lo > 0, "ln of an interval not strictly positive");
        let mut lo = self.lo.clone();
        lo.ln_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.ln_round(Round::Up);
        Interval::new(lo, hi)
    }

    /// arctan x (monotone increasing).
    pub fn atan(&self) -> Interval {
        let mut lo = self.lo.clone();
        lo.atan_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.atan_round(Round::Up);
        Interval::new(lo, hi)
    }

    /// √x for x ≥ 0.
    pub fn sqrt(&self) -> Interval {
        assert!(self.lo >= 0, "sqrt of a negative interval");
        let mut lo = self.lo.clone();
        lo.sqrt_round(Round::Down);
        let mut hi = self.hi.clone();
        hi.sqrt_round(Round::Up);
        Interval::new(lo, hi)
    }

    /// x^k for x ≥ 0 and integer k ≥ 0 (by repeated squaring, outward rounded).
    pub fn powu(&self, k: u32) -> Interval {
        self.pow_u64(k as u64)
    }

    /// [`Interval::powu`] for exponents beyond u32 (composition counts up to 2^40).
    pub fn pow_u64(&self, k: u64) -> Interval {
        assert!(self.lo >= 0, "powu expects a non-negative interval");
        let p = self.prec();
        let mut lo = Float::with_val(p, 1);
        let mut hi = Float::with_val(p, 1);
        let mut blo = self.lo.clone();
        let mut bhi = self.hi.clone();
        let mut e = k;
        while e > 0 {
            if e & 1 == 1 {
                lo.mul_assign_round(&blo, Round::Down);
                hi.mul_assign_round(&bhi, Round::Up);
            }
            e >>= 1;
            if e > 0 {
                let b2l = Float::with_val_round(p, &blo * &blo, Round::Down).0;
                let b2h = Float::with_val_round(p, &bhi * &bhi, Round::Up).0;
                blo = b2l;
                bhi = b2h;
            }
        }
        Interval::new(lo, hi)
    }

    /// sin x and cos x enclosed through the 1-Lipschitz bound: for x ∈ [lo, hi],
    /// |f(x) − f(lo)| ≤ hi − lo, with f(lo) rounded down and up by MPFR (correctly rounded), clamped to [−1, 1].
    pub fn sin(&self) -> Interval {
        self.lipschitz_trig(|x, r| x.sin_round(r))
    }

    /// See [`Interval::sin`].
    pub fn cos(&self) -> Interval {
        self.lipschitz_trig(|x, r| x.cos_round(r))
    }

    fn lipschitz_trig(&self, f: impl Fn(&mut Float, Round) -> std::cmp::Ordering) -> Interval {
        let p = self.prec();
        let w = Float::with_val_round(p, &self.hi - &self.lo, Round::Up).0;
        // f(lo) at the interval's precision p (lo itself may have fewer bits)
        let mut lo = Float::with_val(p, &self.lo);
        f(&mut lo, Round::Down);
        let mut hi = Float::with_val(p, &self.lo);
        f(&mut hi, Round::Up);
        lo = Float::with_val_round(p, &lo - &w, Round::Down).0;
        hi = Float::with_val_round(p, &hi + &w, Round::Up).0;
        Interval::new(lo, hi).clamp_to(&Float::with_val(p, -1), &Float::with_val(p, 1))
    }

    /// [lo − r, hi + r], rounded outward (r ≥ 0).
    pub fn widen(&self, r: &Float) -> Interval {
        let p = self.prec();
        Interval::new(Float::with_val_round(p, &self.lo - r, Round::Down).0, Float::with_val_round(p, &self.hi + r, Round::Up).0)
    }

    /// Both ends clamped into [0, 1]: the enclosure of a probability intersected with its range.
    pub fn clamp_unit(&self) -> Interval {
        let p = self.prec();
        self.clamp_to(&Float::with_val(p, 0), &Float::with_val(p, 1))
    }

    /// Clamp both ends into [a, b] (used to intersect an enclosure with a known range).
    pub fn clamp_to(&self, a: &Float, b: &Float) -> Interval {
        let lo = if &self.lo < a {
            a.clone()
        } else if &self.lo > b {
            b.clone()
        } else {
            self.lo.clone()
        };
        let hi = if &self.hi > b {
            b.clone()
        } else if &self.hi < a {
            a.clone()
        } else {
            self.hi.clone()
        };
        Interval::new(lo, hi)
    }
}

trait MulAssignRound {
    fn mul_assign_round(&mut self, o: &Float, r: Round);
}

impl MulAssignRound for Float {
    fn mul_assign_round(&mut self, o: &Float, r: Round) {
        let p = self.prec();
        *self = Float::with_val_round(p, &*self * o, r).0;
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", crate::num::format::fmt_down(&self.lo, 30), crate::num::format::fmt_up(&self.hi, 30))
    }
}

/// The corners (a, b) of the box `x` × `y` where a·b (or a/b, `quotient`) takes its least and its greatest
/// value, read off the ends' signs, where every end is finite and non-zero and neither factor straddles 0
/// in a way that leaves two candidates (a product of two intervals both containing 0). Both are monotone in
/// each argument on such a box, and directed rounding is monotone, so the two corners' rounded values are
/// the least and the greatest of the four corners' (what the general search of [`Interval::mul`] and
/// [`Interval::div`] finds, to the bit), with two operations instead of eight. None: the general search.
fn sign_corners<'a>(x: &'a Interval, y: &'a Interval, quotient: bool) -> Option<Corners<'a>> {
    let plain = |f: &Float| f.is_finite() && !f.is_zero();
    if ![&x.lo, &x.hi, &y.lo, &y.hi].into_iter().all(plain) {
        return None;
    }
    // the sign of each factor: 1 positive, −1 negative, 0 straddling 0
    let sign = |i: &Interval| {
        if i.lo > 0 {
            1
        } else if i.hi < 0 {
            -1
        } else {
            0
        }
    };
    let (xl, xh, yl, yh) = (&x.lo, &x.hi, &y.lo, &y.hi);
    // a quotient's least and greatest corners are a product's with the divisor's ends exchanged
    let (yl, yh) = if quotient { (yh, yl) } else { (yl, yh) };
    Some(match (sign(x), sign(y)) {
        (1, 1) => ((xl, yl), (xh, yh)),
        (1, -1) => ((xh, yl), (xl, yh)),
        (1, 0) => ((xh, yl), (xh, yh)),
        (-1, 1) => ((xl, yh), (xh, yl)),
        (-1, -1) => ((xh, yh), (xl, yl)),
        (-1, 0) => ((xl, yh), (xl, yl)),
        (0, 1) => ((xl, yh), (xh, yh)),
        (0, -1) => ((xh, yl), (xl, yl)),
        _ => return None,
    })
}

/// The corners of the least and of the greatest value, as (a, b) pairs.
type Corners<'a> = ((&'a Float, &'a Float), (&'a Float, &'a Float));

/// log10 of the relative width (hi − lo)/max(|lo|, |hi|) of a bracket, the width rounded up, in MPFR so
/// that ends far below the smallest double (δ ≈ 1e-579063) keep their digits: −∞ for a point (also one at
/// infinity), at least 0 (no digits) for a bracket around 0 or with one infinite end. A digits count, not a
/// bound: the last step, log10 f + e·log10 2 of the ratio f·2^e, is in f64 (MPFR's log10 cost more than a
/// loose query's arithmetic).
pub fn log10_rel_width(lo: &Float, hi: &Float) -> f64 {
    if hi == lo {
        return f64::NEG_INFINITY;
    }
    let m = if hi.clone().abs() > lo.clone().abs() { hi.clone().abs() } else { lo.clone().abs() };
    if m == 0 {
        return f64::INFINITY;
    }
    let w = Float::with_val_round(lo.prec().max(hi.prec()), hi - lo, Round::Up).0;
    let r = Float::with_val_round(64, &w / &m, Round::Up).0;
    if r.is_nan() || r.is_infinite() {
        return f64::INFINITY;
    }
    let (f, e) = r.to_f64_exp();
    f.log10() + e as f64 * std::f64::consts::LOG10_2
}

#[cfg(test)]
mod random_tests;
#[cfg(test)]
mod tests;
