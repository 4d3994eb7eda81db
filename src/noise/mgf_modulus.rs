//! Point-by-point upper bounds of |M(c + it)| for the laws whose moment generating function is a closed form
//! with atoms: the Laplace mechanism, M(s) = [(1 + s) e^{sε₀} + s e^{−(1+s)ε₀}]/(1 + 2s) [Mir17, Prop. 6], and
//! randomized response, M(s) = a₁ e^{sℓ₁} + a₀ + a₋₁ e^{−sℓ₁} (`mgf_atoms`).
//!
//! Their atoms make |M(c + it)| come back near its sup every period π/ε₀ (2π/ℓ₁), and between those returns
//! n factors hold it far below. A bound that only decreases in t (`mgf::Decay`) must take the returns'
//! height everywhere; the tilted engine sums these bounds point by point over the rest of its line instead
//! (`account::engines::tilted`, `Line::rest`). Evaluated in f64 ball arithmetic (`num::ball`: every
//! operation's rounding, and libm's within its stated allowance, added to the radius), in the tilted
//! engine's certified sum; and in plain f64 for its planning.

use super::mgf::Mgf;
use crate::num::ball::{Ball, CBall};
use crate::num::Interval;
use rug::float::Round;

/// A law's modulus on the vertical line Re s = c.
#[derive(Clone, Debug)]
pub enum Modulus {
    /// the Laplace mechanism: c, ε₀ and the atoms' weights P = e^{cε₀}, Q = e^{−(1+c)ε₀}
    Laplace { c: f64, eps0: Ball, p: Ball, q: Ball },
    /// randomized response: a₁e^{cℓ₁}, a₀, a₋₁e^{−cℓ₁} and ℓ₁
    Atoms { up: Ball, mid: Ball, down: Ball, l1: Ball },
}

/// An enclosure as an f64 ball (its ends rounded outwards).
fn ball(x: &Interval) -> Ball {
    Ball::from_bounds(x.lo().to_f64_round(Round::Down), x.hi().to_f64_round(Round::Up))
}

impl Mgf {
    /// The modulus of this law on the line Re s = c (None: no closed form with atoms; its `Decay` bounds it).
    pub fn modulus(&self, c: f64) -> Option<Modulus> {
        let p = 96;
        let ci = Interval::from_float(&rug::Float::with_val(p, c), p);
        match self {
            Mgf::Laplace { eps0 } => {
                let e = Interval::from_rational(eps0, p);
                let up = ci.mul(&e).exp();
                let down = Interval::one(p).add(&ci).mul(&e).neg().exp();
                Some(Modulus::Laplace { c, eps0: ball(&e), p: ball(&up), q: ball(&down) })
            }
            Mgf::RandomizedResponse(rr) => {
                let [(top, _), (mid, _), (bottom, _)] = rr.masses(p);
                let l1 = rr.top_loss(p);
                let cl = ci.mul(&l1);
                let up = top.mul(&cl.exp());
                let down = bottom.mul(&cl.neg().exp());
                Some(Modulus::Atoms { up: ball(&up), mid: ball(&mid), down: ball(&down), l1: ball(&l1) })
            }
            _ => None,
        }
    }
}

impl Modulus {
    /// M(c + it) for every t of the ball, enclosed.
    fn value(&self, t: Ball) -> Option<CBall> {
        match self {
            Modulus::Laplace { c, eps0, p, q } => {
                let z = CBall::cis(t.mul(*eps0));
                let zbar = CBall::new(z.re, -z.im, z.r);
                let s = CBall::new(*c, t.m, t.r);
                let s1 = CBall::new(*c + 1.0, t.m, t.r);
                // (c + 1 and 2c + 1 are exact: c is a dyadic planning value of a few bits)
                let den = CBall::new(2.0 * *c + 1.0, 2.0 * t.m, 2.0 * t.r);
                let num = s1.mul(z.scale(*p)).add(s.mul(zbar.scale(*q)));
                Some(num.mul(den.inv()))
            }
            Modulus::Atoms { up, mid, down, l1 } => {
                let theta = t.mul(*l1);
                let (cos, sin) = (theta.cos(), theta.sin());
                let re = up.add(*down).mul(cos).add(*mid);
                let im = up.sub(*down).mul(sin);
                Some(CBall::new(re.m, im.m, re.r + im.r))
            }
        }
    }

    /// An upper bound of ln |M(c + it)|, t = `t` (certified; +∞ where no bound is found).
    pub fn ln_upper(&self, t: Ball) -> f64 {
        self.value(t).map_or(f64::INFINITY, |m| ln_up(m.abs_up()))
    }

    /// Planning: ln |M(c + it)| in f64.
    pub fn ln_f64(&self, t: f64) -> f64 {
        match self {
            Modulus::Laplace { c, eps0, p, q } => {
                let th = t * eps0.m;
                let (cs, sn) = (th.cos(), th.sin());
                let re = p.m * ((1.0 + c) * cs - t * sn) + q.m * (c * cs + t * sn);
                let im = p.m * ((1.0 + c) * sn + t * cs) + q.m * (t * cs - c * sn);
                0.5 * ((re * re + im * im).ln() - ((1.0 + 2.0 * c).powi(2) + 4.0 * t * t).ln())
            }
            Modulus::Atoms { up, mid, down, l1 } => {
                let th = t * l1.m;
                let re = (up.m + down.m) * th.cos() + mid.m;
                let im = (up.m - down.m) * th.sin();
                0.5 * (re * re + im * im).ln()
            }
        }
    }
}

/// An upper bound of ln x for x ≥ 0 (−∞ at 0): ln(1 + (x − 1)) in ball arithmetic, or, where x is so small
/// that the ball x − 1 reaches −1, e·ln 2 with e ≥ log₂ x an integer.
pub fn ln_up(x: f64) -> f64 {
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if !x.is_finite() {
        return f64::INFINITY;
    }
    match Ball::exact(x).sub(Ball::exact(1.0)).ln_1p() {
        Some(l) => l.hi(),
        None => {
            // x < 2^e exactly; e ln 2 with ln 2's f64 value within an ulp, |e| ≤ 1100: 1e-12 covers the rounding
            let e = x.log2().ceil() + 1.0;
            e * std::f64::consts::LN_2 + 1e-12
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    fn q(s: &str) -> rug::Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// The ball bound holds the MPFR enclosure of the same M(c + ikh) (`Mgf::line`, 128 bits) at every point
    /// of a long line, and is within 1e-9 of it (relative, in ln |M| − as |M| is near its sup or far below).
    #[test]
    fn the_ball_bound_holds_the_mpfr_line() {
        use crate::noise::loss::Direction;
        let rr = crate::noise::rr::RandomizedResponse::new(q("1"), 2).unwrap();
        let keep = crate::noise::rr::RandomizedResponse::with_keep(q("3/4"), 3).unwrap();
        let laws = [
            (Mgf::Laplace { eps0: q("1/10") }, 1.75, 0.15625),
            (Mgf::Laplace { eps0: q("2") }, 0.5, 0.0625),
            (Mgf::RandomizedResponse(rr), 1.25, 0.375),
            (Mgf::RandomizedResponse(keep), 0.75, 0.25),
        ];
        for (m, c, h) in &laws {
            let line = m.line(Direction::Remove, &Float::with_val(128, c), &Float::with_val(128, h), 20_000, 1e-30, 128);
            let md = m.modulus(*c).unwrap();
            for (k, v) in line.iter().enumerate().step_by(7) {
                let t = Ball::exact(*h).mul(Ball::exact(k as f64));
                let bound = md.ln_upper(t);
                let abs = v.re().mul(v.re()).add(&v.im().mul(v.im())).sqrt();
                let (lo, hi) = (abs.lo().to_f64().ln(), abs.hi().to_f64().ln());
                assert!(bound >= lo && bound <= hi + 1e-9 * (1.0 + hi.abs()), "{m:?} k = {k}: {bound} against [{lo}, {hi}]");
                let plan = md.ln_f64(k as f64 * h);
                assert!((plan - lo).abs() <= 1e-9 * (1.0 + lo.abs()), "{m:?} k = {k}: planning {plan} against {lo}");
            }
        }
    }

    #[test]
    fn ln_up_bounds_ln_from_above_at_every_scale() {
        for x in [1e-310, 1e-300, 1e-200, 1e-16, 0.3, 1.0, 1.5, 7.0, 1e10, 1e300] {
            let l = ln_up(x);
            let exact = Float::with_val(128, x).ln();
            // (tight where x − 1 is a ball above −1; below ~1e-15, within the 2 ln 2 of a power of two)
            let slack = if x > 1e-15 { 1e-9 * (1.0 + l.abs()) } else { 1.4 };
            assert!(Float::with_val(128, l) >= exact && l - exact.to_f64() < slack, "{x}: {l}");
        }
        assert_eq!(ln_up(0.0), f64::NEG_INFINITY);
    }
}
