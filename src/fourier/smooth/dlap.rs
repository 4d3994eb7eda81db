//! Discrete Laplace factors of the smoothed inversion (docs/smoothed-fourier.md §8).
//!
//! **Loss law.** n_q queries with noise DLap(b): p(x) = r^{|x|}(1 − r)/(1 + r), r = e^{−1/b} [HSM21, §3],
//! and integer sensitivity μ ≥ 1. Under P = DLap(0, b) against Q = DLap(μ, b) one query's loss is
//! L(x) = (|x − μ| − |x|)/b, which is μ/b for x ≤ 0, (μ − 2x)/b for 0 ≤ x ≤ μ and −μ/b for x ≥ μ: a finite
//! law on the lattice μ/b − (2/b)ℤ,
//!
//!   L = v_j = (μ − 2j)/b with probability p_0 = 1/(1 + r), p_j = r^j(1 − r)/(1 + r) (0 < j < μ),
//!   p_μ = r^μ/(1 + r)   (P[X ≤ 0] = 1 − P[X ≥ 1] and P[X ≥ μ] = r^μ/(1 + r), geometric sums).
//!
//! The law is symmetric in the order of the pair (x ↦ μ − x maps one onto the other).
//!
//! **Moment generating function** (a finite sum): with u = e^{−2c/b},
//!   M(c) = E e^{cL} = e^{cμ/b} S(c),  S(c) = Σ_j p_j u^j,
//! and the tilted characteristic function is
//!   r(t) = M(c + it)/M(c) = e^{itμ/b} Σ_j w_j e^{−2itj/b},  w_j = p_j u^j / S(c)  (Σ w_j = 1, w_j > 0).
//! |r(t)| ≤ 1 everywhere and r is periodic (period πb): it does not decay, so a DLap factor never makes a
//! node negligible by itself — the Gaussian factors provide the decay, and every bound of the inversion
//! that uses |R(t)| ≤ (Gaussian factors) stays valid with DLap factors multiplied in.
//!
//! Everything certified here is evaluated in 128-bit MPFR intervals (a handful of operations per group
//! and tilt); the f64 tier takes balls enclosing them ([`LapComp`]); [`LapShape`] holds f64 estimates for
//! choosing parameters only.

use super::{ball_of, iv, CP};
use crate::error::Fallible;
use crate::fallible;
use crate::num::ball::{Ball, CBall};
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::Rational;

/// n queries of DLap(b) with sensitivity μ.
#[derive(Clone, Debug)]
pub struct LapGroup {
    pub scale: Rational,
    pub count: u32,
    pub mu: u32,
}

/// Largest sensitivity taken (the law has μ + 1 atoms, each a term at every live node).
pub const MAX_LAP_MU: u32 = 1024;
/// Largest per-query ε = μ/b taken (beyond, e^{c·μ/b} leaves the double-precision design's range).
const MAX_LAP_EPS: f64 = 50.0;

/// Ok when every DLap group is in the range the engine handles, and some discrete Gaussian group is
/// present to give the characteristic function its decay (a DLap factor has |r(t)| = 1 at every period).
pub fn check_lap(n_gauss: usize, lap: &[LapGroup]) -> Fallible<()> {
    if lap.is_empty() {
        return Ok(());
    }
    if n_gauss == 0 {
        return fallible!(
            Declined,
            "the smoothed inversion handles discrete Gaussian noise only, or discrete Laplace noise composed with it: a discrete Laplace factor's characteristic function does not decay, the Gaussian factors give the decay; use the lattice method"
        );
    }
    for g in lap {
        let eps = g.mu as f64 / g.scale.to_f64();
        if g.mu == 0 || g.mu > MAX_LAP_MU || !(eps <= MAX_LAP_EPS) || g.count == 0 {
            return fallible!(
                Declined,
                "the smoothed inversion takes discrete Laplace groups with sensitivity 1..={MAX_LAP_MU} and mu/scale <= {MAX_LAP_EPS}, got mu = {}, scale = {}",
                g.mu,
                g.scale
            );
        }
    }
    Ok(())
}

/// The atoms' probabilities p_j, j = 0..=μ, as intervals.
fn probs(g: &LapGroup) -> Vec<Interval> {
    let one = Interval::one(CP);
    let inv_b = Interval::from_rational(&(Rational::from(1) / g.scale.clone()), CP);
    let r = inv_b.neg().exp();
    let opr = one.add(&r);
    let mid = one.sub(&r).div(&opr);
    let mu = g.mu as usize;
    let mut p = Vec::with_capacity(mu + 1);
    p.push(one.div(&opr));
    let mut rj = one.clone();
    for _ in 1..mu {
        rj = rj.mul(&r);
        p.push(rj.mul(&mid));
    }
    p.push(rj.mul(&r).div(&opr));
    p
}

/// One DLap group at tilt c in MPFR: the tilted weights w_j, μ/b and 2/b, and n·ln M(c).
pub(super) struct PLap {
    pub(super) count: u32,
    pub(super) w: Vec<Interval>,
    pub(super) rate: Interval,
    pub(super) step: Interval,
    /// n·ln M(c) = n·(cμ/b + ln S(c))
    pub(super) n_ln_m: Interval,
}

impl PLap {
    pub(super) fn new(g: &LapGroup, c: f64) -> Fallible<PLap> {
        let inv_b = Interval::from_rational(&(Rational::from(1) / g.scale.clone()), CP);
        let u = inv_b.mul(&iv(-2.0 * c)).exp();
        let mut a = probs(g);
        let mut uj = Interval::one(CP);
        for aj in a.iter_mut().skip(1) {
            uj = uj.mul(&u);
            *aj = aj.mul(&uj);
        }
        let s = a.iter().fold(Interval::zero(CP), |acc, x| acc.add(x));
        if !(*s.lo() > 0) {
            return fallible!(Internal, "smoothed inversion: the tilted mass of DLap({}) is not certified positive", g.scale);
        }
        let w = a.iter().map(|x| x.div(&s)).collect();
        let rate = inv_b.mul(&iv(g.mu as f64));
        let n_ln_m = rate.mul(&iv(c)).add(&s.ln()).mul(&iv(g.count as f64));
        Ok(PLap { count: g.count, w, rate, step: inv_b.mul(&iv(2.0)), n_ln_m })
    }

    /// r(t) = e^{itμ/b} Σ_j w_j e^{−2itj/b}, raised to n.
    pub(super) fn factor(&self, t: &Interval) -> CInterval {
        let zero = Interval::zero(CP);
        let st = self.step.mul(t);
        let mut sum = CInterval::real(self.w[0].clone());
        for (j, wj) in self.w.iter().enumerate().skip(1) {
            let e = CInterval::exp_of(&zero, &st.mul(&iv(j as f64)).neg());
            sum = sum.add(&e.scale(wj));
        }
        CInterval::exp_of(&zero, &self.rate.mul(t)).mul(&sum).powu(self.count)
    }
}

/// n·ln M(c) of every DLap group, in MPFR.
pub(super) fn ln_mgf_lap(lap: &[LapGroup], c: f64) -> Fallible<Interval> {
    let mut acc = Interval::zero(CP);
    for g in lap {
        acc = acc.add(&PLap::new(g, c)?.n_ln_m);
    }
    Ok(acc)
}

/// One DLap group at tilt c for the f64 tier: balls enclosing the MPFR weights and rates.
pub(super) struct LapComp {
    count: u32,
    w: Vec<Ball>,
    rate: Ball,
    step: Ball,
}

impl LapComp {
    pub(super) fn new(g: &LapGroup, c: f64) -> Fallible<LapComp> {
        let p = PLap::new(g, c)?;
        Ok(LapComp { count: p.count, w: p.w.iter().map(ball_of).collect(), rate: ball_of(&p.rate), step: ball_of(&p.step) })
    }

    /// r(t)^n as a ball for t in the ball `t`.
    pub(super) fn factor(&self, t: Ball) -> CBall {
        let st = self.step.mul(t);
        let mut sum = CBall::real(self.w[0]);
        for (j, &wj) in self.w.iter().enumerate().skip(1) {
            sum = sum.add(CBall::cis(st.mul(Ball::exact(j as f64)).neg()).scale(wj));
        }
        CBall::cis(self.rate.mul(t)).mul(sum).powu(self.count)
    }
}

/// f64 estimates for parameter choice (tilt, node spacing, starting ε): ln M(c), its derivative, and the
/// loss variance at c = 0, per group times n.
pub(super) struct LapShape {
    count: f64,
    mu: f64,
    inv_b: f64,
    p: Vec<f64>,
}

impl LapShape {
    pub(super) fn new(g: &LapGroup) -> LapShape {
        let p = probs(g).iter().map(|x| x.mid().to_f64()).collect();
        LapShape { count: g.count as f64, mu: g.mu as f64, inv_b: 1.0 / g.scale.to_f64(), p }
    }

    /// n·ln M(c) and n·d/dc ln M(c) = n·(μ/b − (2/b)·E_c[j]).
    pub(super) fn ln_mgf_d(&self, c: f64) -> (f64, f64) {
        let (mut s, mut sj) = (0.0, 0.0);
        for (j, &pj) in self.p.iter().enumerate() {
            let a = pj * (-2.0 * c * self.inv_b * j as f64).exp();
            s += a;
            sj += a * j as f64;
        }
        let k = c * self.mu * self.inv_b + s.ln();
        let d = self.mu * self.inv_b - 2.0 * self.inv_b * sj / s;
        (self.count * k, self.count * d)
    }

    /// n·Var_P(L).
    pub(super) fn var(&self) -> f64 {
        let v = |j: usize| (self.mu - 2.0 * j as f64) * self.inv_b;
        let m: f64 = self.p.iter().enumerate().map(|(j, &p)| p * v(j)).sum();
        let m2: f64 = self.p.iter().enumerate().map(|(j, &p)| p * v(j) * v(j)).sum();
        self.count * (m2 - m * m).max(0.0)
    }
}
