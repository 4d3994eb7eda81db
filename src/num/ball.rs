//! Midpoint–radius ("ball") arithmetic in double precision, for certified bulk evaluations where MPFR
//! intervals would be too slow (the smoothed Fourier inversion of `crate::fourier::smooth`).
//!
//! A [`Ball`] `{m, r}` stands for every real in `[m − r, m + r]`; a [`CBall`] `{re, im, r}` for every
//! complex number within distance `r` of `re + i·im`. Every operation computes its midpoint in f64 and
//! adds to the radius (i) the propagated input radii and (ii) a bound on the rounding error of the
//! midpoint: `U·|result|` with `U = 2⁻⁵²` (twice the unit roundoff of a correctly rounded operation),
//! plus [`ETA`] for underflow. Radii are themselves computed in f64 and then inflated by `1 + 4U`
//! ([`up`]), which dominates the rounding of the few operations that form them.
//!
//! Elementary functions (`exp`, `expm1`, `cos`, `sin`, `log1p`) are the platform libm's. We assume their error is
//! at most [`LIBM_ULPS`] ulps for the arguments used here (glibc documents ≤ 1 ulp for these functions on
//! x86-64; a unit test checks a large sample against MPFR); an ulp of y is at most `U·|y|`.

/// Twice the unit roundoff of f64 (2⁻⁵²): bounds the relative error of any correctly rounded operation.
pub const U: f64 = f64::EPSILON;
/// Absolute allowance per operation for underflow (subnormal results lose relative accuracy).
pub const ETA: f64 = 1e-300;
/// Assumed worst-case error of libm's exp/expm1/cos/sin, in ulps (documented: 1; we allow 4).
pub const LIBM_ULPS: f64 = 4.0;
/// Relative error bound of a libm result: LIBM_ULPS ulps.
pub const LIBM_REL: f64 = LIBM_ULPS * U;

/// Round a freshly computed radius upward (covers the ≤ 6 roundings that formed it) and add [`ETA`].
#[inline]
pub fn up(r: f64) -> f64 {
    r * (1.0 + 4.0 * U) + ETA
}

/// π: the f64 constant is within 1.3e-16 of it.
pub const PI: Ball = Ball { m: std::f64::consts::PI, r: 2e-16 };
/// 2π: the f64 constant is within 2.5e-16 of it.
pub const TAU: Ball = Ball { m: std::f64::consts::TAU, r: 4e-16 };
/// √(2π) = 2.50662827463100050241…: the f64 literal is within half an ulp (2.3e-16) of it.
pub const SQRT_TAU: Ball = Ball { m: 2.5066282746310002, r: 4e-16 };

/// A real ball `[m − r, m + r]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    pub m: f64,
    pub r: f64,
}

impl Ball {
    /// An exact f64 value.
    pub const fn exact(m: f64) -> Ball {
        Ball { m, r: 0.0 }
    }
    pub fn new(m: f64, r: f64) -> Ball {
        debug_assert!(r >= 0.0);
        Ball { m, r }
    }
    pub fn lo(&self) -> f64 {
        // m − r rounded down: subtract one more relative U of the result.
        let x = self.m - self.r;
        x - (U * x.abs() + ETA)
    }
    pub fn hi(&self) -> f64 {
        let x = self.m + self.r;
        x + (U * x.abs() + ETA)
    }
    pub fn add(self, o: Ball) -> Ball {
        let m = self.m + o.m;
        Ball { m, r: up(self.r + o.r + U * m.abs()) }
    }
    pub fn sub(self, o: Ball) -> Ball {
        let m = self.m - o.m;
        Ball { m, r: up(self.r + o.r + U * m.abs()) }
    }
    pub fn neg(self) -> Ball {
        Ball { m: -self.m, r: self.r }
    }
    pub fn mul(self, o: Ball) -> Ball {
        let m = self.m * o.m;
        Ball { m, r: up(self.m.abs() * o.r + o.m.abs() * self.r + self.r * o.r + U * m.abs()) }
    }
    /// e^x: |e^x − e^m| ≤ e^m·expm1(r) for |x − m| ≤ r; the computed e^m has relative error ≤ LIBM_REL.
    /// For r ≤ 1, expm1(r) = r + r²/2 + … ≤ r + r² (the tail Σ_{k≥2} r^k/k! ≤ (e − 2)r²), which spares
    /// the radius a libm call.
    pub fn exp(self) -> Ball {
        let m = self.m.exp();
        let e = if self.r == 0.0 {
            0.0
        } else if self.r <= 1.0 {
            (self.r + self.r * self.r) * (1.0 + 2.0 * U)
        } else {
            self.r.exp_m1() * (1.0 + LIBM_REL)
        };
        // e^{self.m} ≤ m·(1 + 2·LIBM_REL)
        Ball { m, r: up(m * (1.0 + 2.0 * LIBM_REL) * e + 2.0 * LIBM_REL * m) }
    }
    /// ln(1 + x) for a ball above −1 (None otherwise): |ln(1 + x) − ln(1 + m)| ≤ r/(1 + m − r); the
    /// computed log1p(m) has error ≤ LIBM_REL·|log1p m|. For x near 0 the radius stays ~r, where ln of
    /// the ball 1 + x would add an ulp of 1.
    pub fn ln_1p(self) -> Option<Ball> {
        let den = (1.0 + self.lo()) * (1.0 - U);
        if !(den > 0.0) || !self.m.is_finite() {
            return None;
        }
        let l = self.m.ln_1p();
        let prop = if self.r == 0.0 { 0.0 } else { self.r / den };
        Some(Ball { m: l, r: up(prop + LIBM_REL * l.abs()) })
    }
    /// cos x: |cos x − cos m| ≤ |x − m|; the computed cos m has abs error ≤ LIBM_REL.
    pub fn cos(self) -> Ball {
        Ball { m: self.m.cos(), r: up(self.r + LIBM_REL) }
    }
    /// x / y for a divisor ball away from 0 (`None` when it may contain 0): |x'/y' − m_x/m_y| ≤
    /// (r_x|m_y| + |m_x| r_y)/(|m_y|(|m_y| − r_y)) for |x' − m_x| ≤ r_x, |y' − m_y| ≤ r_y.
    pub fn div(self, o: Ball) -> Option<Ball> {
        let d = o.m.abs();
        let dlo = (d - o.r) * (1.0 - U);
        if !(dlo > 0.0) || !self.m.is_finite() {
            return None;
        }
        let m = self.m / o.m;
        let prop = (self.r * d + self.m.abs() * o.r) / (d * dlo);
        Some(Ball { m, r: up(prop + U * m.abs()) })
    }
    /// A ball that contains [lo, hi].
    pub fn from_bounds(lo: f64, hi: f64) -> Ball {
        debug_assert!(lo <= hi);
        let m = 0.5 * lo + 0.5 * hi;
        Ball { m, r: up((hi - m).max(m - lo) + U * m.abs()) }
    }
}

/// A complex ball: every z with |z − (re + i·im)| ≤ r.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CBall {
    pub re: f64,
    pub im: f64,
    pub r: f64,
}

impl CBall {
    pub const ONE: CBall = CBall { re: 1.0, im: 0.0, r: 0.0 };
    pub const ZERO: CBall = CBall { re: 0.0, im: 0.0, r: 0.0 };

    pub fn new(re: f64, im: f64, r: f64) -> CBall {
        CBall { re, im, r }
    }
    /// A disk of radius `r` about 0.
    pub fn disk(r: f64) -> CBall {
        CBall { re: 0.0, im: 0.0, r }
    }
    pub fn real(b: Ball) -> CBall {
        CBall { re: b.m, im: 0.0, r: b.r }
    }
    /// Upper bound of |centre| (|re| + |im| ≥ |z|).
    #[inline]
    pub fn abs_mid_up(&self) -> f64 {
        (self.re.abs() + self.im.abs()) * (1.0 + U)
    }
    /// Upper bound of |z| over the ball.
    #[inline]
    pub fn abs_up(&self) -> f64 {
        up(self.abs_mid_up() + self.r)
    }
    pub fn add(self, o: CBall) -> CBall {
        let re = self.re + o.re;
        let im = self.im + o.im;
        CBall { re, im, r: up(self.r + o.r + U * (re.abs() + im.abs())) }
    }
    pub fn mul(self, o: CBall) -> CBall {
        let re = self.re * o.re - self.im * o.im;
        let im = self.re * o.im + self.im * o.re;
        let a = self.abs_mid_up();
        let b = o.abs_mid_up();
        // each component: two products and one sum, error ≤ 2u(|ac| + |bd|) ≤ U·|a||b|
        CBall { re, im, r: up(a * o.r + b * self.r + self.r * o.r + 2.0 * U * a * b) }
    }
    pub fn scale(self, b: Ball) -> CBall {
        let re = self.re * b.m;
        let im = self.im * b.m;
        let a = self.abs_mid_up();
        CBall { re, im, r: up(a * b.r + b.m.abs() * self.r + self.r * b.r + U * a * b.m.abs()) }
    }
    /// Multiply by an exact f64.
    pub fn scale_exact(self, x: f64) -> CBall {
        let re = self.re * x;
        let im = self.im * x;
        CBall { re, im, r: up(self.r * x.abs() + U * (re.abs() + im.abs())) }
    }
    /// z^k by repeated squaring.
    pub fn powu(self, mut k: u32) -> CBall {
        let mut acc = CBall::ONE;
        let mut b = self;
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(b);
            }
            k >>= 1;
            if k > 0 {
                b = b.mul(b);
            }
        }
        acc
    }
    /// e^{iθ} for a real ball θ: |e^{ix} − e^{iθ}| ≤ |x − θ|; each libm component has abs error ≤ LIBM_REL.
    pub fn cis(theta: Ball) -> CBall {
        let (s, c) = theta.m.sin_cos();
        CBall { re: c, im: s, r: up(theta.r + 2.0 * LIBM_REL) }
    }
    /// e^{x + iθ} for real balls x, θ.
    pub fn exp_of(x: Ball, theta: Ball) -> CBall {
        CBall::cis(theta).scale(x.exp())
    }
    /// 1/z, requiring the ball to stay away from 0.
    pub fn inv(self) -> CBall {
        let n2 = self.re * self.re + self.im * self.im;
        // |z| ≥ √(n2 (1 − 2U)) for the centre; the ball's points are at distance ≥ |z| − r from 0
        let zlo = (n2 * (1.0 - 2.0 * U)).sqrt() * (1.0 - U);
        assert!(zlo > self.r, "inverse of a ball containing 0");
        let re = self.re / n2;
        let im = -self.im / n2;
        // |1/z' − 1/z| = |z − z'|/(|z||z'|) ≤ r/(|z|(|z| − r)); rounding of the centre ≤ 3U/|z|·(1+…)
        let prop = self.r / (zlo * (zlo - self.r)) * (1.0 + 4.0 * U);
        CBall { re, im, r: up(prop + 4.0 * U / zlo) }
    }
    /// The real part as a real ball.
    pub fn re_ball(&self) -> Ball {
        Ball { m: self.re, r: self.r }
    }
}

#[cfg(test)]
mod tests {
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
        for i in 0..200_000 {
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
        for _ in 0..20_000 {
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
        for _ in 0..20_000 {
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
        for _ in 0..20_000 {
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
}
