//! ε(δ) of the exact Laplace sum (`laplace_sum.rs`): a safeguarded Newton search on its enclosures (moved out
//! of `laplace_sum.rs`, which passed the 800-line limit).

use super::LaplaceSum;
use crate::num::Interval;
use rug::{Float, Integer, Rational};

impl LaplaceSum {
    /// ε(δ) = min{ε ≥ 0 : δ_n(ε) ≤ δ}, certified ([`epsilon_search`] on this sum's enclosures). δ_n(na) = 0:
    /// the pure-DP bound is the first upper end.
    pub fn epsilon(&self, target: &Rational, digits: u32, prec: u32) -> Interval {
        let search = Search { f: &|x| self.delta_and_push(x, prec), delta: &|x| self.delta(x, prec), top: &self.top, scale: &self.a };
        search.epsilon(target, digits, prec)
    }

    /// δ_n(x) enclosed, from the tails: A[L ≥ x] − e^x B[L ≥ x] (an atom at x adds a − e^x·a e^{−x} = 0); and
    /// e^x B[L > x], in the search's precision (the slope of δ_n is its negative).
    pub(in crate::account::engines) fn delta_and_push(&self, x: &Rational, prec: u32) -> (Interval, Float) {
        // (the kept rows' δ_m = A_m[L ≥ x] − e^x B_m[L ≥ x] ≥ 0 each: the left-out ones add [0, tail])
        let (a_ge, b_ge, b_gt) = self.kept_upper_tails(x, prec);
        let ex = Interval::from_rational(x, prec).exp();
        let d = a_ge.sub(&ex.mul(&b_ge)).clamp_to(&Float::with_val(prec, 0), &Float::with_val(prec, 1));
        (self.with_tail(d, x), Float::with_val(SEARCH_BITS, ex.mid() * b_gt.mid()))
    }
}

/// A decreasing δ(x) as [`Search::epsilon`] sees it.
pub(in crate::account::engines) struct Search<'a> {
    /// δ(x) enclosed, and e^x B[L > x] (δ's slope is −e^x B[L > x]; planning only, any precision)
    pub f: &'a dyn Fn(&Rational) -> (Interval, Float),
    /// δ(x) enclosed (the search near 0)
    pub delta: &'a dyn Fn(&Rational) -> Interval,
    /// a point where δ(x) ≤ δ is known (the largest finite loss, where δ is the mass at +∞ and that is at
    /// most δ)
    pub top: &'a Rational,
    /// a loss scale (the search near 0 starts at it times 10^−digits)
    pub scale: &'a Rational,
}

impl Search<'_> {
    /// ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ}, certified: Newton's method on ln δ(ε) − ln δ, the slope
    /// −e^ε B[L > ε]/δ(ε), safeguarded by the bracket (a regula falsi, Illinois, or the midpoint, every fourth
    /// step, where Newton's point falls outside it or after [`MAX_NEWTON`] Newton steps). Every end moves only
    /// where the enclosure of δ decides the comparison, until the bracket is narrower than 10^−digits
    /// relative (Newton's last step below a quarter of that: the two points a quarter of it either side are
    /// tested) or the enclosures decide no more (the bracket is then wider, and says so by its width).
    pub fn epsilon(&self, target: &Rational, digits: u32, prec: u32) -> Interval {
        let t = Interval::from_rational(target, prec);
        let ln_t = Float::with_val(SEARCH_BITS, t.mid().ln_ref());
        // where δ(x) lies against the target, ln δ(x) − ln δ and the slope of ln δ, −e^x B[L > x]/δ(x) (its
        // right derivative)
        let f = |x: &Rational| -> (Side, Float, Float) {
            let (d, push) = (self.f)(x);
            let side = if d.lo() > t.hi() {
                Side::Above
            } else if d.hi() < t.lo() {
                Side::Below
            } else {
                Side::Undecided
            };
            let (g, slope) = if *d.hi() > 0 {
                let dm = Float::with_val(SEARCH_BITS, d.mid());
                let g = Float::with_val(SEARCH_BITS, dm.ln_ref()) - &ln_t;
                let slope = -push / dm;
                (g, slope)
            } else {
                (Float::with_val(SEARCH_BITS, rug::float::Special::NegInfinity), Float::with_val(SEARCH_BITS, 0))
            };
            (side, g, slope)
        };
        let zero = Rational::from(0);
        let (s0, f0, d0) = f(&zero);
        if s0 != Side::Above {
            // δ_n(0) ≤ δ (or too close to tell: ε* is then 0 or below the first test point)
            let hi = if s0 == Side::Below { Interval::zero(prec) } else { self.epsilon_near_zero(target, digits, prec) };
            return hi;
        }
        let (mut lo, mut flo) = (zero.clone(), f0.clone());
        let (mut hi, mut fhi) = (self.top.clone(), Float::with_val(SEARCH_BITS, rug::float::Special::NegInfinity));
        let tol = Rational::from((1, Integer::from(Integer::u_pow_u(10, digits))));
        let mut last_kept = Side::Undecided;
        // the last point evaluated, its ln δ_n − ln δ and slope: Newton's step from there
        let mut last = (zero, f0, d0);
        let mut newton_steps = 0;
        for step in 0..MAX_SEARCH_STEPS {
            let width = Rational::from(&hi - &lo);
            if width <= Rational::from(&tol * &hi) {
                break;
            }
            // Newton on ln δ_n where its step falls inside the bracket; else the secant of ln δ where both
            // ends have one and it falls inside; else the midpoint (every fourth step too)
            let newton = newton_point(&last.0, &last.1, &last.2).filter(|x| *x > lo && *x < hi && newton_steps < MAX_NEWTON);
            newton_steps += u32::from(newton.is_some());
            // a Newton step below the tolerance: ε* is within it of the point; close the bracket around it
            let close = newton.as_ref().is_some_and(|x| Rational::from(x - &last.0).abs() * 8u32 <= Rational::from(&tol * x));
            let mid = Rational::from(&lo + &hi) / 2u32;
            let x = match (newton, secant(&lo, &flo, &hi, &fhi)) {
                (Some(x), _) => x,
                (None, Some(x)) if step % 4 != 3 && x > lo && x < hi => x,
                _ => mid,
            };
            let (side, fx, dx) = f(&x);
            last = (x.clone(), fx.clone(), dx);
            match side {
                Side::Above => {
                    lo = x.clone();
                    flo = fx;
                    if last_kept == Side::Above {
                        fhi /= 2u32;
                    }
                    last_kept = Side::Above;
                }
                Side::Below => {
                    hi = x.clone();
                    fhi = fx;
                    if last_kept == Side::Below {
                        flo /= 2u32;
                    }
                    last_kept = Side::Below;
                }
                Side::Undecided => {}
            }
            if close || side == Side::Undecided {
                // ε* is within the enclosure's resolution (or Newton's last step) of x: close the bracket
                let r = Rational::from(&x * &tol) / 4u32;
                let (a, b) = (Rational::from(&x - &r), Rational::from(&x + &r));
                if a > lo && f(&a).0 == Side::Above {
                    lo = a;
                }
                if b < hi && f(&b).0 == Side::Below {
                    hi = b;
                }
                if side == Side::Undecided || Rational::from(&hi - &lo) <= Rational::from(&tol * &hi) {
                    break;
                }
            }
        }
        let l = Interval::from_rational(&lo, prec).into_parts().0;
        let h = Interval::from_rational(&hi, prec).into_parts().1;
        Interval::new(l, h)
    }

    /// ε* where δ(0) is within the enclosure's resolution of δ: [0, the first ε the enclosure puts below].
    fn epsilon_near_zero(&self, target: &Rational, digits: u32, prec: u32) -> Interval {
        let t = Interval::from_rational(target, prec);
        let mut x = self.scale * Rational::from((1, Integer::from(Integer::u_pow_u(10, digits))));
        for _ in 0..MAX_SEARCH_STEPS {
            if (self.delta)(&x).hi() < t.lo() {
                break;
            }
            x *= 2u32;
        }
        Interval::new(Float::with_val(prec, 0), Interval::from_rational(&x, prec).into_parts().1)
    }
}

/// Where δ(x) lies against the target, as far as its enclosure tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Above,
    Below,
    Undecided,
}

/// Bits of the search's own arithmetic (the secant only chooses test points; every decision is the
/// enclosure's).
pub(in crate::account::engines) const SEARCH_BITS: u32 = 160;
/// Newton steps of one ε(δ) at most (it takes 5–8 from the first point inside the bracket); the
/// safeguarded secant after.
const MAX_NEWTON: u32 = 16;
/// Test points of one ε(δ) at most.
const MAX_SEARCH_STEPS: usize = 400;

/// The zero of the secant through (lo, flo) and (hi, fhi), where both values are finite and of opposite signs.
fn secant(lo: &Rational, flo: &Float, hi: &Rational, fhi: &Float) -> Option<Rational> {
    if !flo.is_finite() || !fhi.is_finite() || *flo <= 0 || *fhi >= 0 {
        return None;
    }
    let w = Rational::from(hi - lo);
    let frac = Float::with_val(SEARCH_BITS, flo / Float::with_val(SEARCH_BITS, flo - fhi));
    let frac = frac.to_rational()?;
    Some(lo + w * frac)
}

/// Newton's next point on ln δ_n from x, where ln δ_n(x) − ln δ = g and its slope is `slope` (< 0), as an
/// exact rational; None where the step is not finite.
fn newton_point(x: &Rational, g: &Float, slope: &Float) -> Option<Rational> {
    if !g.is_finite() || !slope.is_finite() || *slope >= 0 {
        return None;
    }
    let step = Float::with_val(SEARCH_BITS, g / slope);
    Some(x - step.to_rational()?)
}
