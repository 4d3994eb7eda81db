//! Phase sums in complex double-double balls: S_k = Σ_n w_n e^{ikθ_n}, k = 0..=K, the inner loop of the
//! certified quadratures of moment generating functions on vertical lines (`noise::mgf_quad::chunked_sum`).
//! In MPFR intervals at the tilted engine's 150–190 bits, `mpfr_mul` and `mpfr_add` took 85% of a line;
//! a double-double carries about 106 bits at the cost of a few f64 operations, enough wherever the sum's
//! rounding stays below the quadrature's own error (the caller checks, and takes MPFR where it does not).
//!
//! A [`CDd`] `{re, im, r}` stands for every complex number within distance r of re + i·im, re and im
//! double-doubles ([`crate::num::dd`]) whose values hi + lo are exact. With u = 2⁻⁵³ and the bounds of
//! `dd.rs` [JMP17] (a sum within [`ADD_REL`] relative, a product within [`MUL_REL`]), and ‖z‖₁ = |re| + |im| ≥ |z|:
//!
//! * **product** of balls (ã, r_a), (b̃, r_b): the exact product of any of their points is within
//!   |ã|r_b + |b̃|r_a + r_a r_b of ãb̃ (the moduli, not ‖·‖₁: a step of modulus 1 must not multiply the
//!   radius by up to √2 per step); the computed parts (four products, one sum each) are within
//!   (MUL_REL + ADD_REL(1 + MUL_REL))·(|ã_re||b̃_re| + |ã_im||b̃_im|) of ãb̃'s real part, likewise the
//!   imaginary part, so the computed midpoint is within [`CMUL_REL`]·‖ã‖₁‖b̃‖₁ of ãb̃;
//! * **sum**: each part within ADD_REL of the exact sum of the midpoints, so the midpoint within
//!   ADD_REL(‖ã‖₁ + ‖b̃‖₁);
//! * every radius is computed in f64 and rounded up by [`up`] (a relative 2⁻⁴⁹ over the few roundings that
//!   formed it, plus [`ETA`], which also covers the inexact error-free transformations of an underflowing
//!   operand: at most a few 2⁻¹⁰⁷⁴ per operation).
//!
//! No restart is needed: the step e^{iθ} has modulus within its radius of 1, so a product adds to the
//! radius about |z|(r_step + CMUL_REL) and the radius grows linearly in k, where a rectangle rotated by θ
//! widens by a factor |cos θ| + |sin θ| per step. Conversions: a midpoint of an MPFR interval rounded to the
//! nearest double-double, the radius its exact distance to both ends rounded up; a value below
//! 1/[`LIMIT`] becomes a ball about 0 and one beyond [`LIMIT`] is refused (the caller takes MPFR).

use crate::num::cinterval::CInterval;
use crate::num::dd::{ADD_REL, DD, MUL_REL};
use crate::num::Interval;
use rug::float::Round;
use rug::Float;

/// The relative error of a complex product's midpoint, against ‖ã‖₁‖b̃‖₁ (module doc), rounded up.
pub const CMUL_REL: f64 = MUL_REL + ADD_REL * (1.0 + 1e-15);
/// Absolute allowance per operation (module doc).
pub const ETA: f64 = 1e-300;
/// Magnitudes taken: |x| < 1e250, those below 1e-250 as a ball about 0 (products of two stay clear of
/// f64's underflow and overflow, where the double-double bounds hold).
pub const LIMIT: f64 = 1e250;

/// A radius rounded up (module doc).
#[inline(always)]
fn up(r: f64) -> f64 {
    r * (1.0 + 8.0 * f64::EPSILON) + ETA
}

/// A complex double-double ball: every z with |z − (re + i·im)| ≤ r.
#[derive(Clone, Copy, Debug, Default)]
pub struct CDd {
    pub re: DD,
    pub im: DD,
    pub r: f64,
}

impl CDd {
    pub const ZERO: CDd = CDd { re: DD::ZERO, im: DD::ZERO, r: 0.0 };

    /// ‖midpoint‖₁, rounded up.
    #[inline(always)]
    fn norm1(&self) -> f64 {
        (self.re.abs_hi() + self.im.abs_hi()) * (1.0 + 2.0 * f64::EPSILON)
    }

    /// |midpoint|, rounded up: √(|re|² + |im|²) from the parts' upper bounds, within a few roundings.
    #[inline(always)]
    fn modulus(&self) -> f64 {
        let (a, b) = (self.re.abs_hi(), self.im.abs_hi());
        (a * a + b * b).sqrt() * (1.0 + 4.0 * f64::EPSILON)
    }

    /// The product of two balls (module doc).
    #[inline(always)]
    pub fn mul(&self, b: &CDd) -> CDd {
        let re = self.re.mul(b.re).add(self.im.mul(b.im).neg());
        let im = self.re.mul(b.im).add(self.im.mul(b.re));
        let r = up(self.modulus() * b.r + b.modulus() * self.r + self.r * b.r + CMUL_REL * self.norm1() * b.norm1());
        CDd { re, im, r }
    }

    /// self += b (module doc).
    #[inline(always)]
    pub fn add_assign(&mut self, b: &CDd) {
        let bound = ADD_REL * (self.norm1() + b.norm1());
        self.re = self.re.add(b.re);
        self.im = self.im.add(b.im);
        self.r = up(self.r + b.r + bound);
    }

    /// The ball of a real interval, or None beyond [`LIMIT`].
    pub fn real(x: &Interval) -> Option<CDd> {
        let (re, r) = ball_of(x)?;
        Some(CDd { re, im: DD::ZERO, r })
    }

    /// A ball holding e^{iθ} for every θ of the interval (from MPFR's sine and cosine), or None.
    pub fn exp_i(theta: &Interval) -> Option<CDd> {
        let z = CInterval::exp_of(&Interval::zero(theta.prec()), theta);
        let (re, r1) = ball_of(z.re())?;
        let (im, r2) = ball_of(z.im())?;
        Some(CDd { re, im, r: up(r1 + r2) })
    }

    /// True if the midpoint and radius are finite and inside [`LIMIT`].
    pub fn is_finite(&self) -> bool {
        self.norm1() < LIMIT && self.r < LIMIT
    }

    /// The ball as a rectangle at `prec`, rounded outward (it holds the disk).
    pub fn to_cinterval(self, prec: u32) -> CInterval {
        let r = Float::with_val(53, self.r);
        let part = |d: DD| Interval::from_float(&d.to_float(), prec).widen(&r);
        CInterval::new(part(self.re), part(self.im))
    }
}

/// A double-double near an interval's midpoint and the exact distance to its farther end, rounded up; a
/// midpoint below 1/[`LIMIT`] in magnitude is taken as 0 with the interval's larger |end| as radius; None
/// where the midpoint lies beyond [`LIMIT`].
fn ball_of(x: &Interval) -> Option<(DD, f64)> {
    let m = x.mid();
    let a = m.to_f64().abs();
    if !(a < LIMIT) {
        return None;
    }
    let d = if a < 1.0 / LIMIT { DD::ZERO } else { DD::from_float(&m) };
    let v = d.to_float();
    let p = v.prec().max(x.prec()) + 64;
    let above = Float::with_val_round(p, x.hi() - &v, Round::Up).0.to_f64_round(Round::Up);
    let below = Float::with_val_round(p, &v - x.lo(), Round::Up).0.to_f64_round(Round::Up);
    let r = above.max(below).max(0.0);
    r.is_finite().then_some((d, r))
}

/// acc[k] += w e^{ikθ} for every k, the phases by the recurrence z ← z·e^{iθ} (module doc); false (acc
/// untouched) where w or e^{iθ} has no double-double ball.
pub fn add_phases_dd(w: &Interval, theta: &Interval, acc: &mut [CDd]) -> bool {
    let (Some(mut z), Some(step)) = (CDd::real(w), CDd::exp_i(theta)) else {
        return false;
    };
    for (k, a) in acc.iter_mut().enumerate() {
        if k > 0 {
            z = z.mul(&step);
        }
        a.add_assign(&z);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::cinterval::Phases;
    use crate::num::xorshift::gen::case;

    /// Whether the rectangle holds the exact complex value (re, im) at high precision.
    fn holds(z: &CInterval, re: &Float, im: &Float) -> bool {
        z.re().lo() <= re && re <= z.re().hi() && z.im().lo() <= im && im <= z.im().hi()
    }

    /// Random phase sums against MPFR at 400 bits (each term w e^{ikθ} from MPFR's own sine and cosine of
    /// kθ, the reference independent of both recurrences): the double-double ball holds the reference, and
    /// its radius is within a small multiple of the nodes' count times u²·Σ|w| (k up to 3000).
    #[test]
    fn phase_sums_hold_the_exact_sums_and_stay_narrow() {
        let prec = 180;
        for i in 0..crate::num::test_cases(12) {
            let mut g = case(0xdd3, i);
            let nodes = 1 + g.below(40) as usize;
            let k_max = 1 + g.below(3000) as usize;
            let mut acc = vec![CDd::ZERO; k_max + 1];
            let mut exact_re = vec![Float::with_val(400, 0); k_max + 1];
            let mut exact_im = exact_re.clone();
            let mut total_w = 0.0;
            for _ in 0..nodes {
                let w = Interval::from_float(&Float::with_val(prec, g.next_f64() * 10f64.powi(g.below(40) as i32 - 20)), prec);
                let theta = Interval::from_float(&Float::with_val(prec, (g.next_f64() - 0.5) * 20.0), prec);
                total_w += w.hi().to_f64();
                assert!(add_phases_dd(&w, &theta, &mut acc));
                for k in 0..=k_max {
                    let a = Float::with_val(400, theta.lo() * k as u32);
                    exact_re[k] += Float::with_val(400, a.cos_ref()) * w.lo();
                    exact_im[k] += Float::with_val(400, a.sin_ref()) * w.lo();
                }
            }
            for k in 0..=k_max {
                let z = acc[k].to_cinterval(prec);
                assert!(holds(&z, &exact_re[k], &exact_im[k]), "case {i}, k = {k}: {:?} misses the sum", acc[k]);
                let allowed = 64.0 * (nodes + k) as f64 * CMUL_REL * total_w + 1e-290;
                assert!(acc[k].r <= allowed, "case {i}, k = {k}: radius {:e} above {allowed:e}", acc[k].r);
            }
        }
    }

    /// The same sums by MPFR's recurrence (`Phases`) and by double-double balls meet, and a width-carrying
    /// input keeps its width: w = [1, 1 + 2^-80] gives a radius of at least 2^-81.
    #[test]
    fn the_double_double_and_mpfr_recurrences_agree() {
        let prec = 160;
        let w = Interval::new(Float::with_val(prec, 1), Float::with_val(prec, 1) + (Float::with_val(prec, 1) >> 80));
        let theta = Interval::from_float(&Float::with_val(prec, 0.731), prec);
        let mut acc = vec![CDd::ZERO; 500];
        assert!(add_phases_dd(&w, &theta, &mut acc));
        let mut z = Phases::new(&w, &theta);
        for (k, a) in acc.iter().enumerate() {
            if k > 0 {
                z.advance();
            }
            let m = z.current();
            let d = a.to_cinterval(prec);
            assert!(d.re().hi() >= m.re().lo() && d.re().lo() <= m.re().hi(), "k = {k}: real parts disjoint");
            assert!(d.im().hi() >= m.im().lo() && d.im().lo() <= m.im().hi(), "k = {k}: imaginary parts disjoint");
            assert!(a.r >= 2f64.powi(-81), "k = {k}: the input's width is lost");
        }
    }

    /// Values beyond the upper limit are refused, not rounded into a ball whose bounds do not hold; those
    /// below the lower one become balls about 0 that hold them.
    #[test]
    fn magnitudes_beyond_the_limits_are_refused_or_held_about_zero() {
        let prec = 100;
        let tiny = Interval::from_float(&(Float::with_val(prec, 1) >> 900), prec);
        let huge = Interval::from_float(&(Float::with_val(prec, 1) << 900), prec);
        let theta = Interval::zero(prec);
        let mut acc = vec![CDd::ZERO; 3];
        assert!(!add_phases_dd(&huge, &theta, &mut acc));
        assert!(acc.iter().all(|a| a.r == 0.0 && a.re.hi == 0.0));
        assert!(add_phases_dd(&tiny, &theta, &mut acc));
        for a in &acc {
            let z = a.to_cinterval(prec);
            assert!(a.re.hi == 0.0 && z.re().hi() >= tiny.hi() && *z.re().lo() <= 0, "{a:?} does not hold 2^-900");
        }
        assert!(add_phases_dd(&Interval::zero(prec), &theta, &mut acc));
    }
}
