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
        let r = m * (1.0 + 2.0 * LIBM_REL) * e + 2.0 * LIBM_REL * m;
        if m < f64::MIN_POSITIVE && self.r > 0.0 {
            // e^m underflowed (to 0 or a subnormal), so m·expm1(r) above may be 0 while e^{m+r} is not
            // (e^{−1192 ± 512}: e^m ≈ 1e-518, e^{m+r} ≈ 4e-296): every e^x of the ball lies in (0, e^{m+r}],
            // which the ball {m ≥ 0, e^{m+r}} contains (m + r rounded up by one relative U)
            let top = (self.m + self.r) * (1.0 + U.copysign(self.m + self.r));
            return Ball { m, r: up(r.max(top.exp() * (1.0 + 2.0 * LIBM_REL))) };
        }
        Ball { m, r: up(r) }
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
    /// sin x: |sin x − sin m| ≤ |x − m|; the computed sin m has abs error ≤ LIBM_REL.
    pub fn sin(self) -> Ball {
        Ball { m: self.m.sin(), r: up(self.r + LIBM_REL) }
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
        let (a, b, dd) = (self.r * d, self.m.abs() * o.r, d * dlo);
        let prop = (a + b) / dd;
        // a product normal, or exactly 0 because a factor is
        let fine = |x: f64, zero: bool| x.is_normal() || (x == 0.0 && zero);
        if !(fine(a, self.r == 0.0) && fine(b, self.m == 0.0 || o.r == 0.0) && fine(dd, false)) {
            // a product above underflowed or overflowed (m_x = 2e-323 over 5e-60 ± 2e-66: |m_x|·r_y ≈ 4e-389
            // flushes to 0 while the propagated radius is 2e-270; |m_y| = 1.7e301: |m_y|(|m_y| − r_y) is +∞
            // and the radius 0): the same bound as (r_x + |m_x/m_y|·r_y)/(|m_y| − r_y),
            // with the computed quotient (relative error ≤ U) in place of m_x/m_y, and each remaining
            // underflow's absolute error (≤ 2^-1074, then divided by dlo) added
            let q = m.abs() * (1.0 + 2.0 * U);
            // the final division's underflow; where q·r_y is formed, its underflow and that of a subnormal
            // quotient (each ≤ 2^-1074·(1 + r_y)), carried through 1/dlo (doubled: the roundings of these terms)
            let ulp0 = f64::from_bits(1);
            let tiny = 2.0 * ulp0 + if q != 0.0 && o.r != 0.0 { 2.0 * (ulp0 * (1.0 + o.r)) / dlo } else { 0.0 };
            let prop = (self.r + q * o.r) / dlo;
            return Some(Ball { m, r: up(prop * (1.0 + 2.0 * U) + tiny + U * m.abs()) });
        }
        Some(Ball { m, r: up(prop + U * m.abs()) })
    }
    /// A ball that contains [lo, hi].
    pub fn from_bounds(lo: f64, hi: f64) -> Ball {
        debug_assert!(lo <= hi);
        let m = 0.5 * lo + 0.5 * hi;
        Ball { m, r: up((hi - m).max(m - lo) + U * m.abs()) }
    }
}

/// A certified sum of f64 balls whose midpoints are added by TwoSum [Knu97, §4.2.2, Thm B]: s + e is
/// exactly the sum of the two addends, the errors e are collected in c, and only c's own roundings (each
/// ≤ U·|c|) and the last s + c (≤ U·|result|) are lost, both bounded in [`BallSum::ball`]. The radii
/// add in f64 upward (n non-negative terms: relative error ≤ n·U/2).
#[derive(Clone, Copy, Default)]
pub struct BallSum {
    s: f64,
    c: f64,
    c_abs: f64,
    rad: f64,
    n: u64,
}

impl BallSum {
    #[inline]
    fn add_mid(&mut self, x: f64) {
        let s = self.s + x;
        let bb = s - self.s;
        let e = (self.s - (s - bb)) + (x - bb);
        self.s = s;
        self.c += e;
        self.c_abs += self.c.abs();
    }

    #[inline]
    pub fn add(&mut self, x: Ball) {
        self.add_mid(x.m);
        self.rad += x.r;
        self.n += 1;
    }

    pub fn merge(&mut self, o: &BallSum) {
        self.add_mid(o.s);
        self.c += o.c;
        self.c_abs += self.c.abs() + o.c_abs;
        self.rad += o.rad;
        self.n += o.n + 2;
    }

    pub fn ball(&self) -> Ball {
        let m = self.s + self.c;
        Ball::new(m, up(self.rad * (1.0 + (self.n as f64 + 2.0) * U) + 2.0 * U * self.c_abs + U * m.abs()))
    }
}

/// The rounding allowance k·|a|·|b| of a product (a, b ≥ 0), evaluated as (k·a)·b as it always was,
/// except where k·a underflows while the allowance does not (a subnormal |a| times b ≈ 1e306: (k·a)·b
/// is 0 while k·(a·b) ≈ 1e-24); then k·(a·b), whose underflow, if any, errs by less than 2^-1074.
#[inline]
fn rounding(k: f64, a: f64, b: f64) -> f64 {
    let t = k * a * b;
    if k * a >= f64::MIN_POSITIVE || a == 0.0 || b == 0.0 {
        return t;
    }
    let ulp0 = f64::from_bits(1);
    k * (a * b) * (1.0 + 2.0 * U) + 2.0 * ulp0
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
    /// Upper bound of |centre|: libm's hypot with its error allowance, never above |re| + |im| (≥ |z|).
    /// The sum alone overstates |z| by up to √2, and a product's radius carries that factor: Horner's rule
    /// over a few hundred atoms at ζ = e^{iθ} far from the axes grew the radius ~1.35× a step, to 1e-4 for
    /// a sum of 1e-5 (`fourier::lattice::sparse`, the subsampled Gaussian's dominating law at h = 1/2000).
    #[inline]
    pub fn abs_mid_up(&self) -> f64 {
        let l1 = (self.re.abs() + self.im.abs()) * (1.0 + U);
        let h = self.re.hypot(self.im) * (1.0 + 2.0 * LIBM_REL) + f64::from_bits(1);
        if h.is_finite() {
            h.min(l1)
        } else {
            l1
        }
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
        CBall { re, im, r: up(a * o.r + b * self.r + self.r * o.r + rounding(2.0 * U, a, b)) }
    }
    pub fn scale(self, b: Ball) -> CBall {
        let re = self.re * b.m;
        let im = self.im * b.m;
        let a = self.abs_mid_up();
        CBall { re, im, r: up(a * b.r + b.m.abs() * self.r + self.r * b.r + rounding(U, a, b.m.abs())) }
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
        // the centre's |z|² must be a normal f64 (|z| between ~1e-154 and ~1e154): beyond, re/n2 would be 0
        // and the radius ~1e-300 for an inverse up to 1e-154 (found by random_tests)
        assert!(n2.is_normal(), "inverse of a ball whose centre's |z|² is not a normal f64: {self:?}");
        // |z| ≥ √(n2 (1 − 2U)) for the centre; the ball's points are at distance ≥ |z| − r from 0
        let zlo = (n2 * (1.0 - 2.0 * U)).sqrt() * (1.0 - U);
        assert!(zlo > self.r, "inverse of a ball containing 0");
        let re = self.re / n2;
        let im = -self.im / n2;
        // |1/z' − 1/z| = |z − z'|/(|z||z'|) ≤ r/(|z|(|z| − r)); rounding of the centre ≤ 3U/|z|·(1+…)
        let den = zlo * (zlo - self.r);
        let prop = if den.is_normal() {
            self.r / den * (1.0 + 4.0 * U)
        } else {
            // |z|(|z| − r) underflowed (|z| − r tiny: a subnormal product loses its relative accuracy): two
            // divisions instead, with their underflows (≤ 2^-1074 each, the first carried through 1/(|z| − r))
            let ulp0 = f64::from_bits(1);
            (self.r / zlo / (zlo - self.r)) * (1.0 + 6.0 * U) + 2.0 * (ulp0 + ulp0 / (zlo - self.r))
        };
        CBall { re, im, r: up(prop + 4.0 * U / zlo) }
    }
    /// The real part as a real ball.
    pub fn re_ball(&self) -> Ball {
        Ball { m: self.re, r: self.r }
    }
}

#[cfg(test)]
mod random_tests;
#[cfg(test)]
mod tests;
