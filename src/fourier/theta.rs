//! θ-function characteristic functions ([SSW24, eq. A.3] and Prop. A.13).
//!
//! Both characteristic functions of the Fourier path are periodised Gaussians
//!
//!   P_v(s) := Σ_{j∈ℤ} e^{-v (s − 2πj)²/2}                                   (Poisson summation)
//!
//! * one discrete Gaussian N_Z(0, σ²):  ψ(s) = E e^{isX} = P_{σ²}(s) / θ₃(0, e^{-2π²σ²})       (A.3)
//! * the measure ν of Prop. A.12 (ϕ sampled on ℤ with variance B² = nσ²):
//!   f_X̄(s) = Σ_u e^{ius} e^{-u²/(2B²)}/√(2πB²) = P_{B²}(s)        (Prop. A.13's cosine series, dualised)
//!
//! with θ₃(0, q) = Σ_j q^{j²}. P_v is 2π-periodic, positive, decreasing in the distance of s to 2πℤ
//! (Lemma A.4 / Prop. A.6), and entire in s: for s = x − iy, |P_v(x − iy)| ≤ e^{v y²/2} P_v(x).

use crate::num::ball::Ball;
use num_complex::Complex64;
use rug::float::Constant;
use rug::Float;
use std::f64::consts::PI;

const TWO_PI: f64 = 2.0 * PI;

/// θ₃(0, e^{-2π²v}) = Σ_j e^{-2π² v j²} (f64).
pub fn theta0(v: f64) -> f64 {
    let mut s = 1.0;
    for j in 1..50 {
        let t = 2.0 * (-2.0 * PI * PI * v * (j * j) as f64).exp();
        s += t;
        if t < 1e-300 || t < s * 1e-18 {
            break;
        }
    }
    s
}

/// s reduced to [−π, π].
#[inline]
pub fn reduce(s: f64) -> f64 {
    s - TWO_PI * (s / TWO_PI).round()
}

/// ln P_v(s) for real s (no underflow): −v s'²/2 + ln(1 + Σ_{j≠0} e^{-v(4π²j² − 4πj s')/2}), s' = s mod 2π.
#[inline]
pub fn ln_periodized(s: f64, v: f64) -> f64 {
    let x = reduce(s);
    let mut corr = 0.0;
    for j in [1.0f64, -1.0, 2.0, -2.0, 3.0, -3.0] {
        let e = -v * (4.0 * PI * PI * j * j - 4.0 * PI * j * x) / 2.0;
        if e > -745.0 {
            corr += e.exp();
        }
    }
    -v * x * x / 2.0 + corr.ln_1p()
}

/// P_v(s) for real s.
#[inline]
#[cfg(test)]
pub fn periodized(s: f64, v: f64) -> f64 {
    ln_periodized(s, v).exp()
}

/// ln θ₃(0, e^{-2π²v}) enclosed for a ball v > 0 (`num::ball`): 1 + 2Σ_{j≥1} e^{−2π²vj²} summed while the
/// terms matter, the rest bounded by the geometric tail e^{−2π²vJ²}/(1 − e^{−2π²v(2J+1)}).
pub fn ln_theta0_ball(v: Ball) -> Ball {
    use crate::num::ball::PI as BPI;
    let c = BPI.mul(BPI).mul(Ball::exact(2.0)).mul(v).neg();
    let mut s = Ball::exact(0.0);
    let mut j = 1.0f64;
    loop {
        let t = c.mul(Ball::exact(j * j)).exp();
        s = s.add(t.mul(Ball::exact(2.0)));
        j += 1.0;
        if t.m < 1e-300 || t.m < s.m * 1e-20 || j > 400.0 {
            break;
        }
    }
    let (a, r) = (c.hi() * j * j, c.hi() * (2.0 * j + 1.0));
    let tail = if r < 0.0 { 2.0 * a.exp() / (1.0 - r.exp()) * (1.0 + 1e-12) } else { f64::INFINITY };
    s.add(Ball::new(0.0, crate::num::ball::up(tail))).ln_1p().unwrap_or(Ball::new(0.0, f64::INFINITY))
}

/// ln P_v(z) enclosed as (real, imaginary) balls, z = x + iy given as two balls (the complex
/// [`ln_periodized`], in ball arithmetic): x reduced by a multiple of 2π, −v z²/2 plus the principal ln of
/// 1 + Σ_{0<|j|≤3} e^{−2π²vj² + 2πvj z}, the terms |j| ≥ 4 bounded (|e^{w}| = e^{Re w}, the same
/// geometric tail as the real case with |x| ≤ x₊). The ln of a ball 1 + c is enclosed by
/// |ln u' − ln u| ≤ |u' − u|/(|u| − r) when the ball keeps off the negative real axis (the branch cut);
/// otherwise the enclosure is unbounded. (ψ^n with n an integer does not depend on the branch.)
pub fn ln_periodized_cball(x: Ball, y: Ball, v: Ball) -> (Ball, Ball) {
    use crate::num::ball::{up, CBall, LIBM_REL, PI as BPI, TAU as BTAU, U};
    let unbounded = (Ball::new(0.0, f64::INFINITY), Ball::new(0.0, f64::INFINITY));
    let j0 = (x.m / TWO_PI).round();
    let x = x.sub(BTAU.mul(Ball::exact(j0)));
    let xp = (x.m.abs() + x.r) * (1.0 + U);
    let vlo = (v.m - v.r) * (1.0 - U);
    let negligible = |j: f64| vlo * 2.0 * PI * j * (PI * j - xp) * (1.0 - 8.0 * U) > 745.0;
    let mut corr = CBall::ZERO;
    let mut dropped = false;
    for j in [1.0f64, -1.0, 2.0, -2.0, 3.0, -3.0] {
        if negligible(j.abs()) {
            dropped = true;
            continue;
        }
        // −2π²vj² + 2πvj(x + iy)
        let tpj = BPI.mul(Ball::exact(2.0 * j)).mul(v);
        let re = BPI.mul(BPI).mul(Ball::exact(2.0 * j * j)).mul(v).neg().add(tpj.mul(x));
        let im = tpj.mul(y);
        corr = corr.add(CBall::exp_of(re, im));
    }
    let tail = if negligible(4.0) {
        0.0
    } else {
        let t4 = (-2.0 * PI * vlo * 4.0 * (4.0 * PI - xp)).exp();
        let rho = (-2.0 * PI * vlo * (9.0 * PI - xp)).exp();
        if vlo > 0.0 && rho < 1.0 {
            2.0 * t4 / (1.0 - rho) * (1.0 + 8.0 * LIBM_REL)
        } else {
            return unbounded;
        }
    };
    let u = CBall::ONE.add(corr).add(CBall::disk(up(tail) + if dropped { 1e-300 } else { 0.0 }));
    // the principal ln of the ball u
    if u.re - u.r <= 0.0 && u.im.abs() <= u.r * (1.0 + 4.0 * U) {
        return unbounded;
    }
    let mid = Complex64::new(u.re, u.im);
    let lmid = mid.ln();
    let amid = u.re.hypot(u.im) * (1.0 - 2.0 * LIBM_REL);
    if !(amid > u.r) {
        return unbounded;
    }
    let prop = u.r / (amid - u.r) * (1.0 + 4.0 * U);
    let lre = Ball::new(lmid.re, up(prop + LIBM_REL * lmid.re.abs() + 4.0 * LIBM_REL));
    let lim = Ball::new(lmid.im, up(prop + LIBM_REL * PI));
    // −v z²/2 = −v(x² − y²)/2 − i·v x y
    let half = Ball::exact(0.5);
    let re = v.mul(x.mul(x).sub(y.mul(y))).mul(half).neg().add(lre);
    let im = v.mul(x.mul(y)).neg().add(lim);
    (re, im)
}

/// sup of P_v(k t) over t ∈ [t0, t1] (k > 0): P_v at the distance of k·[t0, t1] to 2πℤ (Prop. A.6).
pub fn ln_sup_periodized(k: f64, t0: f64, t1: f64, v: f64) -> f64 {
    let (s0, s1) = (k * t0, k * t1);
    let j0 = (s0 / TWO_PI).ceil();
    let d = if j0 * TWO_PI <= s1 {
        0.0
    } else {
        let a = reduce(s0).abs();
        let b = reduce(s1).abs();
        a.min(b)
    };
    ln_periodized(d, v)
}

// ---------------------------------------------------------------- MPFR versions (spot checks) ----

/// π at precision p.
pub fn pi_f(p: u32) -> Float {
    Float::with_val(p, Constant::Pi)
}

/// θ₃(0, e^{-2π²v}) in MPFR.
pub fn theta0_mpfr(v: &Float, p: u32) -> Float {
    let pi = pi_f(p);
    let c = Float::with_val(p, -2 * pi.clone() * &pi * v); // −2π²v
    let mut s = Float::with_val(p, 1);
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32) - 20));
    for j in 1i64.. {
        let t = Float::with_val(p, &c * (j * j)).exp() * 2u32;
        s += &t;
        if t < tiny {
            break;
        }
    }
    s
}

/// P_v(s) in MPFR for real s (Poisson form).
pub fn periodized_mpfr(s: &Float, v: &Float, p: u32) -> Float {
    let pi = pi_f(p);
    let two_pi = Float::with_val(p, &pi * 2u32);
    let j0 = Float::with_val(p, s / &two_pi).round().to_f64() as i64;
    let mut sum = Float::with_val(p, 0);
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32) - 40));
    let term = |j: i64| -> Float {
        let d = Float::with_val(p, s - Float::with_val(p, &two_pi * j));
        let e = Float::with_val(p, -(d.clone() * &d) * v) / 2u32;
        e.exp()
    };
    sum += term(j0);
    for r in 1i64.. {
        let a = term(j0 + r);
        let b = term(j0 - r);
        let small = a < tiny && b < tiny;
        sum += a;
        sum += b;
        if small && r >= 2 {
            break;
        }
    }
    sum
}

/// The paper's literal cosine series for ν's characteristic function (Prop. A.13):
/// f_X̄(s) = 1/√(2πB²) + 2 Σ_{u≥1} cos(u s) e^{-u²/(2B²)}/√(2πB²), summed until the terms drop below 2^-p-40.
pub fn nu_charfn_series_mpfr(s: &Float, b2: &Float, p: u32) -> Float {
    let pi = pi_f(p);
    let norm = Float::with_val(p, Float::with_val(p, &pi * 2u32) * b2).sqrt();
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32) - 40));
    let mut sum = Float::with_val(p, 1);
    for u in 1i64.. {
        let g = Float::with_val(p, -Float::with_val(p, (u * u) as f64) / (Float::with_val(p, b2 * 2u32))).exp();
        if g < tiny {
            break;
        }
        let c = Float::with_val(p, s * u).cos();
        sum += Float::with_val(p, c * g) * 2u32;
    }
    sum / norm
}

/// Minimal complex number over MPFR (only what the fast path needs).
#[derive(Clone, Debug)]
pub struct CF {
    pub re: Float,
    pub im: Float,
}

impl CF {
    pub fn new(re: Float, im: Float) -> CF {
        CF { re, im }
    }
    pub fn real(x: Float) -> CF {
        let p = x.prec();
        CF { re: x, im: Float::with_val(p, 0) }
    }
    pub fn mul(&self, o: &CF) -> CF {
        let p = self.re.prec();
        let re = Float::with_val(p, &self.re * &o.re) - Float::with_val(p, &self.im * &o.im);
        let im = Float::with_val(p, &self.re * &o.im) + Float::with_val(p, &self.im * &o.re);
        CF { re, im }
    }
    pub fn add(&self, o: &CF) -> CF {
        let p = self.re.prec();
        CF { re: Float::with_val(p, &self.re + &o.re), im: Float::with_val(p, &self.im + &o.im) }
    }
    pub fn div(&self, o: &CF) -> CF {
        let p = self.re.prec();
        let den = Float::with_val(p, &o.re * &o.re) + Float::with_val(p, &o.im * &o.im);
        let re = (Float::with_val(p, &self.re * &o.re) + Float::with_val(p, &self.im * &o.im)) / &den;
        let im = (Float::with_val(p, &self.im * &o.re) - Float::with_val(p, &self.re * &o.im)) / &den;
        CF { re, im }
    }
    /// e^{a + ib}
    pub fn exp(a: &Float, b: &Float) -> CF {
        let p = a.prec();
        let m = Float::with_val(p, a.exp_ref());
        let (s, c) = Float::with_val(p, b).sin_cos(Float::new(p));
        CF { re: Float::with_val(p, &m * &c), im: m * s }
    }
    pub fn powu(&self, mut n: u32) -> CF {
        let p = self.re.prec();
        let mut acc = CF::real(Float::with_val(p, 1));
        let mut b = self.clone();
        while n > 0 {
            if n & 1 == 1 {
                acc = acc.mul(&b);
            }
            n >>= 1;
            if n > 0 {
                b = b.mul(&b);
            }
        }
        acc
    }
}

/// P_v(x − iy) in MPFR: Σ_j e^{-v((x−2πj)² − y²)/2} · e^{i v (x−2πj) y}.
pub fn periodized_c_mpfr(x: &Float, y: &Float, v: &Float, p: u32) -> CF {
    let pi = pi_f(p);
    let two_pi = Float::with_val(p, &pi * 2u32);
    let j0 = Float::with_val(p, x / &two_pi).round().to_f64() as i64;
    let y2 = Float::with_val(p, y * y);
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32) - 40));
    let term = |j: i64| -> (CF, Float) {
        let d = Float::with_val(p, x - Float::with_val(p, &two_pi * j));
        let a = Float::with_val(p, -(Float::with_val(p, &d * &d) - &y2) * v) / 2u32;
        let b = Float::with_val(p, Float::with_val(p, v * &d) * y);
        let mag = Float::with_val(p, a.exp_ref());
        (CF::exp(&a, &b), mag)
    };
    let mut acc = term(j0).0;
    let scale = Float::with_val(p, Float::with_val(p, &y2 * v) / 2u32).exp();
    for r in 1i64.. {
        let (a, ma) = term(j0 + r);
        let (b, mb) = term(j0 - r);
        acc = acc.add(&a).add(&b);
        if r >= 2 && Float::with_val(p, &ma + &mb) < Float::with_val(p, &tiny * &scale) {
            break;
        }
    }
    acc
}
