//! The θ-sums of the discrete Gaussian (docs/smoothed-fourier.md §2): D_q(c) = Σ_k e^{−2π²k²σ²} cos(2πkcμ)
//! (a Jacobi θ₃ [SSW24, eq. A.3]; D_q(0) is the normalising mass), and from them
//! ln M(c) = Σ_q n_q [(c + c²)μ²/(2σ²) + ln D_q(c) − ln D_q(0)]. Two evaluations: 128-bit MPFR
//! ([`theta_d`], [`ln_mgf`]: the reference, and what the 20-digit tier uses) and f64 balls ([`Thetas`],
//! memoised per group and tilt, ~100× cheaper: what the f64 tier uses), plus each group's σ²-dependent
//! constants as balls ([`GroupConsts`]).

use super::dlap::{ln_mgf_lap, LapGroup};
use super::shape::Lattice;
use super::{ball_of, fl, iv, CP};
use crate::err;
use crate::error::{Error, Fallible};
use crate::model::GaussGroup;
use crate::num::ball::{up, Ball, U};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};

/// cos over an interval: |cos x − cos lo| ≤ x − lo.
fn cos_iv(x: &Interval) -> Interval {
    let w = x.width();
    let lo = Float::with_val_round(CP, x.lo().cos_ref(), Round::Down).0;
    let hi = Float::with_val_round(CP, x.lo().cos_ref(), Round::Up).0;
    let lo = Float::with_val_round(CP, &lo - &w, Round::Down).0;
    let hi = Float::with_val_round(CP, &hi + &w, Round::Up).0;
    Interval::new(lo.max(&fl(-1.0)), hi.min(&fl(1.0)))
}

/// True when 2π²σ² ≥ 200 is certified: then |D(c) − 1| < 2.8e-87 for every c ([`theta_d`]).
pub(super) fn theta_wide(sigma2: &Rational) -> bool {
    let pi = Interval::pi(CP);
    let a = pi.mul(&pi).mul(&Interval::from_rational(sigma2, CP)).mul(&iv(2.0));
    a.lo().to_f64_round(Round::Down) >= 200.0
}

/// D(c) = Σ_k e^{−2π²k²σ²} cos(2πkcμ) (a θ-function; D(0) is θ₃(0, e^{−2π²σ²})), certified in MPFR
/// (the reference of [`theta_s_ball`], and the value the 20-digit tier uses).
pub(super) fn theta_d(sigma2: &Rational, c: f64, mu: u32) -> Interval {
    let pi = Interval::pi(CP);
    let s2 = Interval::from_rational(sigma2, CP);
    let a = pi.mul(&pi).mul(&s2).mul(&iv(2.0)); // 2π²σ²
    let af = a.lo().to_f64();
    if a.lo().to_f64_round(Round::Down) >= 200.0 {
        // |D − 1| ≤ 2Σ_{k≥1} e^{−ak²} ≤ 2e^{−a}/(1 − e^{−a}) ≤ 2e^{−200}/(1 − e^{−200}) < 2.8e-87: the series
        // below would give 1 ± (that) rounded outward as well, at the cost of three MPFR exponentials and
        // cosines per group (10⁴ groups: 0.4 s)
        let t = Float::with_val_round(CP, 2.8e-87, Round::Up).0;
        return Interval::one(CP).widen(&t);
    }
    // terms k ≥ 1 until 2π²k²σ² > 200 (e^{-200}); tail ≤ 2e^{−a(K+1)²}/(1 − e^{−a})
    let kmax = ((200.0 / af).sqrt().ceil() as i64).max(1);
    let mut sum = Interval::zero(CP);
    let twopicmu = pi.mul(&iv(2.0 * c)).mul(&iv(mu as f64));
    for k in 1..=kmax {
        let kk = iv((k * k) as f64);
        let term = a.mul(&kk).neg().exp().mul(&cos_iv(&twopicmu.mul(&iv(k as f64))));
        sum = sum.add(&term);
    }
    let kf = (kmax + 1) as f64;
    let tail_num = a.mul(&iv(kf * kf)).neg().exp();
    let tail_den = Interval::one(CP).sub(&a.neg().exp());
    let tail = tail_num.div(&tail_den);
    let t = tail.hi().clone();
    let widen = Interval::new(Float::with_val(CP, -&t), t);
    Interval::one(CP).add(&sum.mul(&iv(2.0))).add(&widen.mul(&iv(2.0)))
}

/// ln M(c) = Σ_q n_q [ (c + c²) μ²/(2σ²) + ln D_q(c) − ln D_q(0) ], certified in MPFR: the reference
/// the ball evaluation of [`Thetas`] is checked against, and the one the 20-digit tier uses.
#[cfg(test)]
pub fn ln_mgf(groups: &[GaussGroup], c: f64) -> Interval {
    let mut acc = Interval::zero(CP);
    for g in groups {
        let q = (Rational::from(g.mu) * g.mu) / (Rational::from(2) * g.sigma2.clone());
        let quad = iv(c).add(&iv(c).mul(&iv(c))).mul(&Interval::from_rational(&q, CP));
        let term = quad.add(&theta_d(&g.sigma2, c, g.mu).ln()).sub(&theta_d(&g.sigma2, 0.0, g.mu).ln());
        acc = acc.add(&term.mul(&iv(g.count as f64)));
    }
    acc
}

/// D(c) − 1 = 2 Σ_{k≥1} e^{−a k²} cos(2πkcμ), a = 2π²σ², in ball arithmetic (kept apart from the 1: for
/// wide groups it is tiny, and ln D = log1p of it stays exact to its own ulps, where an ulp of 1 per query
/// would add up over the ~10⁵ queries of an allocation). The same series and tail bound as [`theta_d`],
/// ~100× cheaper than 128-bit MPFR. The radius of D is ~1e-15 relative where the terms do not cancel and
/// ~1e-12 at worst (σ²/μ² = 0.02, the smallest the engine takes, at half-integer cμ):
/// it widens ln M by at most ~n·1e-12 and so the ε bracket by ~n·1e-12/c.
fn theta_s_ball(a: Ball, c: f64, mu: u32) -> Ball {
    let kmax = ((200.0 / a.lo()).sqrt().ceil() as i64).max(1);
    // 2π in f64 is within half an ulp of the true value
    let two_pi = Ball::new(std::f64::consts::TAU, U * std::f64::consts::TAU);
    let mut sum = Ball::exact(0.0);
    for k in 1..=kmax {
        let e = a.mul(Ball::exact((k * k) as f64)).neg().exp();
        // cos(2π·ckμ) = cos(2π·frac(ckμ)): the product c·kμ is p + r exactly (r by a fused multiply-add),
        // p − round(p) is exact, so the reduced argument is known to an ulp of itself instead of an ulp of
        // ckμ (which at large tilts would swamp a θ-sum that nearly cancels)
        let m = (k * mu as i64) as f64;
        let p = c * m;
        let r = c.mul_add(m, -p);
        let frac = Ball::exact(p - p.round()).add(Ball::exact(r));
        sum = sum.add(e.mul(two_pi.mul(frac).cos()));
    }
    // omitted terms k > K: 2 Σ e^{−ak²} ≤ 2 e^{−a(K+1)²}/(1 − e^{−a})
    let kf = (kmax + 1) as f64;
    let num = a.mul(Ball::exact(kf * kf)).neg().exp().hi();
    let den = Ball::exact(1.0).sub(a.neg().exp()).lo();
    let tail = up(num / den);
    let m = 2.0 * sum.m;
    Ball { m, r: up(2.0 * sum.r + 2.0 * tail + U * m.abs()) }
}

/// 1 + s as a ball with the exact rounding error of the sum (Knuth's TwoSum) instead of an ulp of 1: D_q(c)
/// of a wide group is 1 + (tiny), often exactly 1.
pub(super) fn one_plus(s: Ball) -> Ball {
    let m = 1.0 + s.m;
    let bb = m - 1.0;
    let err = (1.0 - (m - bb)) + (s.m - bb); // 1 + s.m = m + err exactly
    Ball { m, r: up(s.r + err.abs()) }
}

/// 1/(1 + s) as a tight ball (None if 1 + s may reach 0): the tilted characteristic function of a group is
/// raised to the power n_q (up to ~10⁵ queries), and with it the relative radius of this factor, so it
/// carries the exact residual of the division (q·m − 1, by a fused multiply-add) rather than an ulp.
pub(super) fn inv_one_plus(s: Ball) -> Option<Ball> {
    let d = one_plus(s);
    let dlo = (d.m - d.r) * (1.0 - U);
    if !(dlo > 0.0) {
        return None;
    }
    let q = 1.0 / d.m;
    let e = q.mul_add(d.m, -1.0); // q·m − 1, exactly representable
                                  // |1/x − q| ≤ |1/x − 1/m| + |1/m − q| ≤ r/(m·(m − r)) + |e|/m
    let r = d.r / (d.m * dlo) * (1.0 + 4.0 * U) + e.abs() / d.m * (1.0 + 2.0 * U);
    Some(Ball { m: q, r: up(r) })
}

/// The error when a group's θ-sum D_q(c) (a positive mass) is not certified positive in double precision.
/// The method declines: another engine (the lattice) does not need this sum.
pub(super) fn not_positive(g: &GaussGroup) -> Error {
    err!(Declined, "the theta sum of sigma2 = {} is not certified positive", g.sigma2)
}

/// The θ-sums D_q(c) of a composition's groups and their logarithms, in ball arithmetic, each computed
/// once per group and tilt: an ε search builds several [`DeltaBounds`](super::quadrature::DeltaBounds) at
/// one tilt, and each needs D(c), D(0) and four Chernoff tilts.
pub(super) struct Thetas<'a> {
    pub(super) groups: &'a [GaussGroup],
    /// the discrete Laplace groups (docs/smoothed-fourier.md §8)
    pub(super) lap: &'a [LapGroup],
    /// per group, from MPFR once per composition (every later quantity is a ball)
    pub(super) consts: Vec<GroupConsts>,
    /// the lattice a + sℤ the composition's loss lives on
    pub(super) lattice: Lattice,
    /// (group, tilt bits) → (D_q(c) − 1, ln D_q(c) once asked for)
    memo: std::cell::RefCell<std::collections::HashMap<(usize, u64), (Ball, Option<Ball>)>>,
}

/// The σ²-dependent constants of one group, as balls.
#[derive(Clone, Copy)]
pub(super) struct GroupConsts {
    /// 2π²σ² (the θ-series exponent)
    pub(super) a: Ball,
    /// μ²/(2σ²)
    pub(super) q: Ball,
    /// 1/(2σ²)
    pub(super) inv2s2: Ball,
    /// μ/σ² as an unevaluated sum hi + lo of two doubles, within `mu_s2_r` of the true value
    pub(super) mu_s2: (f64, f64),
    pub(super) mu_s2_r: f64,
    /// 2πσ² (the period of the Poisson terms in μt)
    pub(super) per: Ball,
}

impl<'a> Thetas<'a> {
    #[cfg(test)]
    pub(super) fn new(groups: &'a [GaussGroup]) -> Thetas<'a> {
        Thetas::with_lap(groups, &[])
    }

    /// The θ-sums of the Gaussian groups and the discrete Laplace groups `lap`.
    pub(super) fn with_lap(groups: &'a [GaussGroup], lap: &'a [LapGroup]) -> Thetas<'a> {
        let pi = Interval::pi(CP);
        let consts = groups
            .iter()
            .map(|g| {
                let s2 = Interval::from_rational(&g.sigma2, CP);
                let mu = g.mu as f64;
                let inv2s2 = Interval::one(CP).div(&s2.mul(&iv(2.0)));
                let (mu_s2, mu_s2_r) = two_f64(&inv2s2.mul(&iv(2.0 * mu)));
                GroupConsts {
                    a: ball_of(&pi.mul(&pi).mul(&s2).mul(&iv(2.0))),
                    q: ball_of(&Interval::from_rational(&((Rational::from(g.mu) * g.mu) / (Rational::from(2) * g.sigma2.clone())), CP)),
                    inv2s2: ball_of(&inv2s2),
                    mu_s2,
                    mu_s2_r,
                    per: ball_of(&pi.mul(&s2).mul(&iv(2.0))),
                }
            })
            .collect();
        Thetas { groups, lap, consts, lattice: Lattice::of_mixed(groups, lap), memo: Default::default() }
    }

    /// D_q(c) − 1 of group i.
    pub(super) fn s(&self, i: usize, c: f64) -> Ball {
        let a = self.consts[i].a;
        let mu = self.groups[i].mu;
        self.memo.borrow_mut().entry((i, c.to_bits())).or_insert_with(|| (theta_s_ball(a, c, mu), None)).0
    }

    /// ln D_q(c) of group i (D_q(c) > 0: the tilted mass of a probability law).
    fn ln_d(&self, i: usize, c: f64) -> Fallible<Ball> {
        let s = self.s(i, c);
        let mut memo = self.memo.borrow_mut();
        let entry = memo.get_mut(&(i, c.to_bits())).expect("invariant: just computed");
        if entry.1.is_none() {
            entry.1 = Some(s.ln_1p().ok_or_else(|| not_positive(&self.groups[i]))?);
        }
        Ok(entry.1.expect("invariant: just set"))
    }

    /// ln M(c) = Σ_q n_q [(c + c²)μ²/(2σ²) + ln D_q(c) − ln D_q(0)] as a ball.
    pub(super) fn ln_mgf(&self, c: f64) -> Fallible<Ball> {
        let cb = Ball::exact(c);
        let mut acc = Ball::exact(0.0);
        for (i, g) in self.groups.iter().enumerate() {
            let quad = cb.add(cb.mul(cb)).mul(self.consts[i].q);
            let term = quad.add(self.ln_d(i, c)?).sub(self.ln_d(i, 0.0)?);
            acc = acc.add(term.mul(Ball::exact(g.count as f64)));
        }
        if !self.lap.is_empty() {
            acc = acc.add(ball_of(&ln_mgf_lap(self.lap, c)?));
        }
        Ok(acc)
    }
}

/// An MPFR interval as hi + lo (two doubles) and a bound on its distance from every point of the interval.
fn two_f64(i: &Interval) -> ((f64, f64), f64) {
    let mid = i.mid();
    let hi = mid.to_f64();
    let rest = Float::with_val(CP, &mid - hi);
    let lo = rest.to_f64();
    let gap = Float::with_val_round(CP, &rest - lo, Round::Up).0.abs();
    let spread = Float::with_val_round(CP, i.width(), Round::Up).0;
    ((hi, lo), Float::with_val_round(CP, &gap + &spread, Round::Up).0.to_f64_round(Round::Up))
}

/// c·(hi + lo) for an f64 c as a ball whose radius is about the distance of its f64 centre from the true
/// product (an ulp/2), as MPFR would give: b = cμ/σ² multiplies τ up to ~10⁶ in the phases of the far
/// nodes, where an extra ulp of b widens every one of them (and moves the production brackets). The
/// product c·hi = p + e exactly (fused multiply-add), p + (e + c·lo) = m + err exactly (TwoSum).
pub(super) fn scale_two_f64((hi, lo): (f64, f64), r: f64, c: f64) -> Ball {
    let p = c * hi;
    let e = c.mul_add(hi, -p);
    let cl = c * lo;
    let t = e + cl;
    let m = p + t;
    let bb = m - p;
    let err = (p - (m - bb)) + (t - bb);
    // |true − m| ≤ |err| + |e + c·lo − t| + |c·lo − cl| + |c|·r
    Ball { m, r: up(err.abs() + U * (t.abs() + cl.abs()) + c.abs() * r) }
}
