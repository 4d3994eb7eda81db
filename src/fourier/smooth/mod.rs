//! Certified privacy profile of a heterogeneous composition of discrete Gaussian mechanisms by
//! *smoothed* Fourier inversion: the engine for budgets whose losses share no practical lattice
//! (the 2021 redistricting allocation, per-query ρ over 4097·4099, 4102·4099 and 4099²).
//! Derivations in docs/smoothed-fourier.md; every bound below is rigorous.
//!
//! **Setting.** Group q: n_q i.i.d. queries with noise N_Z(0, σ_q²) and sensitivity μ_q. One query's loss
//! under P is L = (μ² − 2μX)/(2σ²), X ~ N_Z(0, σ²); the composition's loss is the sum, and
//! δ(ε) = E_P[ψ(L − ε)] with ψ(y) = (1 − e^{−y})₊ (hockey-stick divergence, f-DP paper Lemma A.9).
//!
//! **1. Moment generating function** (Poisson summation, the θ-function form of (A.3)): for s = c + it,
//!   M_q(s) = E e^{sL} = e^{sμ²/(2σ²)} e^{c²μ²/(2σ²)} Σ_k e^{−τ_k²/(2σ²)} e^{icμτ_k/σ²} / D_q(0),
//!   τ_k = μt − 2πkσ², D_q(c) = Σ_k e^{−2π²k²σ²} cos(2πkcμ), so M_q(c) = e^{(c+c²)μ²/(2σ²)} D_q(c)/D_q(0)
//!   and the tilted characteristic function is r_q(t) = M_q(c+it)/M_q(c), |r_q| ≤ 1.
//!
//! **2. Smoothing with second-order error.** W ~ N(0, w²), S(y) = E ψ(y + W), γ = λw (λ > 1). For all y
//!   u(y) = S(y + w²/2) ≥ ψ(y) ≥ S(y) − β e^{−y²/(2γ²)} = v(y),
//!   β = w e^{w²/2} (φ(0) + w) exp(w²/(2(λ²−1)) + w²/(2λ²)).
//! Hence F_S(ε − w²/2) ≥ δ(ε) ≥ F_S(ε) − β F_B(ε), with F_S(x) = E ψ(L + W − x) and
//! F_B(x) = E e^{−(L−x)²/(2γ²)}; the gap is O(w²) (≈ 5w² in ε for the Census compositions).
//!
//! **3. Inversion on Re s = c** (exponential tilting; ψ has Laplace transform 1/(s(s+1))):
//!   F_S(x) = (1/2π) ∫ M(c+it) e^{w²s²/2} e^{−sx} / (s(s+1)) dt,
//!   F_B(x) = γ√(2π) (1/2π) ∫ M(c+it) e^{γ²s²/2} e^{−sx} dt.
//! The trapezoid rule with step h, T = 2π/h, returns exactly Σ_m e^{cmT} F(x + mT) (Poisson summation):
//! the true value plus non-negative aliasing, bounded by e^{−cT}/(1 − e^{−cT}) for m ≤ −1 (F_S ≤ 1) and
//! by a Chernoff bound at c′ > c for m ≥ 1. Nodes |t| > A are bounded with |M(c+it)| ≤ M(c) and the
//! Gaussian factor. Each node is evaluated in f64 ball arithmetic (crate::num::ball); nodes where
//! |M(c+it)/M(c)| is certified below 1e-30 are kept only as a bound (for a loose ε request, a level set
//! by its width: [`NodeSettings`]). The θ-sums, ln M(c) and the bounds are balls too (only the per-group
//! σ² constants, h/(2π) and cμ/σ² come from MPFR, whose one-ulp radius they keep), so that an ε search,
//! which evaluates the bounds ~10 times, costs microseconds per evaluation beyond the live nodes.

use crate::model::GaussGroup;
use crate::num::ball::{up, Ball, CBall, ETA, LIBM_REL, PI, SQRT_TAU, TAU, U};
use crate::num::Interval;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

mod precise;
mod sieve;

/// MPFR precision of the constants.
const CP: u32 = 128;
/// Poisson terms kept: |τ| ≤ √(2σ²·LCUT), omitted mass ≤ 2e^{−LCUT}/(1 − e^{−2πR}) (rigorously added).
const LCUT: f64 = 75.0;
/// Nodes with |M(c+it)/M(c)| below this are kept only as a bound (for loose requests a level from the
/// width, see [`NodeSettings`]).
const DEAD: f64 = 1e-30;
/// Smallest σ²/μ² handled (the θ-series need O(1/σ) terms).
const MIN_S2: f64 = 0.02;

/// Narrowest ε bracket of the f64 tier (nodes and bisection in double precision); narrower requests go to
/// the 20-digit tier ([`precise`]).
pub const F64_MIN_WIDTH: f64 = 1e-11;
/// Narrowest ε bracket requested.
pub const MIN_WIDTH: f64 = precise::MIN_WIDTH_P;

/// Tuning of the smoothed inversion.
#[derive(Clone, Debug)]
pub struct SmoothParams {
    /// Target width of the certified ε bracket; the smoothing w is chosen from it.
    pub width: f64,
    /// Smoothing standard deviation w (overrides the choice from `width`).
    pub w: Option<f64>,
    /// Width factor of the bump, γ = λw (λ > 1).
    pub lambda: f64,
    /// Tilt c (default: the saddle point).
    pub c: Option<f64>,
}

impl Default for SmoothParams {
    fn default() -> Self {
        SmoothParams { width: 2e-6, w: None, lambda: 1.1, c: None }
    }
}

/// A certified bracket and how it was obtained.
#[derive(Clone, Debug)]
pub struct SmoothResult {
    pub lo: Float,
    pub hi: Float,
    pub w: f64,
    pub c: f64,
    pub h: f64,
    pub nodes: usize,
    pub live: usize,
    /// nodes per period when the step was fitted to the loss lattice (one period evaluated)
    pub period: Option<usize>,
    pub attempts: u32,
    /// computed by the 20-digit tier ([`precise`]: MPFR nodes, sieved node range)
    pub precise: bool,
    /// why a requested 20-digit-tier bracket fell back to the f64 tier's (which is still certified)
    pub fallback: Option<String>,
}

impl SmoothResult {
    pub fn width(&self) -> f64 {
        Float::with_val_round(CP, &self.hi - &self.lo, Round::Up).0.to_f64_round(Round::Up)
    }
    pub fn interval(&self) -> Interval {
        Interval::new(self.lo.clone(), self.hi.clone())
    }
}

fn fl(x: f64) -> Float {
    Float::with_val(CP, x)
}

fn iv(x: f64) -> Interval {
    Interval::from_float(&fl(x), CP)
}

/// A ball enclosing an interval.
fn ball_of(i: &Interval) -> Ball {
    let m = i.mid().to_f64();
    let mf = fl(m);
    let a = Float::with_val_round(CP, &i.hi - &mf, Round::Up).0;
    let b = Float::with_val_round(CP, &mf - &i.lo, Round::Up).0;
    let r = if a > b { a } else { b };
    Ball::new(m, up(r.to_f64_round(Round::Up).max(0.0)))
}

/// cos over an interval: |cos x − cos lo| ≤ x − lo.
fn cos_iv(x: &Interval) -> Interval {
    let w = x.width();
    let lo = Float::with_val_round(CP, x.lo.cos_ref(), Round::Down).0;
    let hi = Float::with_val_round(CP, x.lo.cos_ref(), Round::Up).0;
    let lo = Float::with_val_round(CP, &lo - &w, Round::Down).0;
    let hi = Float::with_val_round(CP, &hi + &w, Round::Up).0;
    Interval::new(lo.max(&fl(-1.0)), hi.min(&fl(1.0)))
}

/// D(c) = Σ_k e^{−2π²k²σ²} cos(2πkcμ) (a θ-function; D(0) is θ₃(0, e^{−2π²σ²})), certified in MPFR
/// (the reference of [`theta_s_ball`], and the value the 20-digit tier uses).
fn theta_d(sigma2: &Rational, c: f64, mu: u32) -> Interval {
    let pi = Interval::pi(CP);
    let s2 = Interval::from_rational(sigma2, CP);
    let a = pi.mul(&pi).mul(&s2).mul(&iv(2.0)); // 2π²σ²
    let af = a.lo.to_f64();
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
    let t = tail.hi.clone();
    let widen = Interval::new(Float::with_val(CP, -&t), t);
    Interval::one(CP).add(&sum.mul(&iv(2.0))).add(&widen.mul(&iv(2.0)))
}

/// ln M(c) = Σ_q n_q [ (c + c²) μ²/(2σ²) + ln D_q(c) − ln D_q(0) ], certified in MPFR: the reference
/// the ball evaluation of [`Thetas`] is checked against, and the one the 20-digit tier uses.
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
fn one_plus(s: Ball) -> Ball {
    let m = 1.0 + s.m;
    let bb = m - 1.0;
    let err = (1.0 - (m - bb)) + (s.m - bb); // 1 + s.m = m + err exactly
    Ball { m, r: up(s.r + err.abs()) }
}

/// 1/(1 + s) as a tight ball (None if 1 + s may reach 0): the tilted characteristic function of a group is
/// raised to the power n_q (up to ~10⁵ queries), and with it the relative radius of this factor, so it
/// carries the exact residual of the division (q·m − 1, by a fused multiply-add) rather than an ulp.
fn inv_one_plus(s: Ball) -> Option<Ball> {
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
fn not_positive(g: &GaussGroup) -> String {
    format!("the theta sum of sigma2 = {} is not certified positive", g.sigma2)
}

/// The lattice of the loss: one query's L = (μ² − 2μX)/(2σ²) lies in μ²/(2σ²) + (μ/σ²)ℤ, so the
/// composition's in a + sℤ with s = gcd_q μ_q/σ_q² and a = Σ_q n_q μ_q²/(2σ_q²). Hence the characteristic
/// function is periodic up to a phase: with T = 2π/s, M(c + i(t + T)) = e^{iaT} M(c + it), e^{iaT} =
/// e^{2πi·frac(a/s)} exactly (e^{iTsk} = 1 for every integer k).
struct Lattice {
    /// s
    step: Rational,
    /// frac(a/s) ∈ [0, 1)
    phase: Rational,
}

impl Lattice {
    fn of(groups: &[GaussGroup]) -> Lattice {
        let slopes: Vec<Rational> = groups.iter().map(|g| Rational::from(g.mu) / g.sigma2.clone()).collect();
        let (step, _) = crate::pld::compose::common_step(&slopes);
        // a = Σ n μ²/(2σ²) is the composition's zCDP ρ
        let q = crate::model::gauss_rho(groups) / step.clone();
        let phase = &q - Rational::from(q.floor_ref());
        Lattice { step, phase }
    }

    /// e^{iaTk} = e^{2πi·frac(k·frac(a/s))} as a ball (the fraction's f64 is within 2U of itself).
    fn phase_of(&self, k: usize) -> CBall {
        let f = &self.phase * Rational::from(k);
        let f = (&f - Rational::from(f.floor_ref())).to_f64();
        CBall::cis(TAU.mul(Ball::new(f, up(2.0 * U * f + ETA))))
    }

    /// h/(2π) = 1/(m·s) for the step h = T/m fitted to m nodes per period.
    fn h_over_tau(&self, m: usize) -> Ball {
        ball_of(&Interval::from_rational(&(Rational::from(1) / (Rational::from(m) * self.step.clone())), CP))
    }
}

/// The θ-sums D_q(c) of a composition's groups and their logarithms, in ball arithmetic, each computed
/// once per group and tilt: an ε search builds several engines at one tilt, and each needs D(c), D(0)
/// and four Chernoff tilts.
struct Thetas<'a> {
    groups: &'a [GaussGroup],
    /// per group, from MPFR once per composition (every later quantity is a ball)
    consts: Vec<GroupConsts>,
    /// the lattice a + sℤ the composition's loss lives on
    lattice: Lattice,
    /// (group, tilt bits) → (D_q(c) − 1, ln D_q(c) once asked for)
    memo: std::cell::RefCell<std::collections::HashMap<(usize, u64), (Ball, Option<Ball>)>>,
}

/// The σ²-dependent constants of one group, as balls.
#[derive(Clone, Copy)]
struct GroupConsts {
    /// 2π²σ² (the θ-series exponent)
    a: Ball,
    /// μ²/(2σ²)
    q: Ball,
    /// 1/(2σ²)
    inv2s2: Ball,
    /// μ/σ² as an unevaluated sum hi + lo of two doubles, within `mu_s2_r` of the true value
    mu_s2: (f64, f64),
    mu_s2_r: f64,
    /// 2πσ² (the period of the Poisson terms in μt)
    per: Ball,
}

impl<'a> Thetas<'a> {
    fn new(groups: &'a [GaussGroup]) -> Thetas<'a> {
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
        Thetas { groups, consts, lattice: Lattice::of(groups), memo: Default::default() }
    }

    /// D_q(c) − 1 of group i.
    fn s(&self, i: usize, c: f64) -> Ball {
        let a = self.consts[i].a;
        let mu = self.groups[i].mu;
        self.memo.borrow_mut().entry((i, c.to_bits())).or_insert_with(|| (theta_s_ball(a, c, mu), None)).0
    }

    /// D_q(c) of group i.
    #[cfg(test)]
    fn d(&self, i: usize, c: f64) -> Ball {
        one_plus(self.s(i, c))
    }

    /// ln D_q(c) of group i (D_q(c) > 0: the tilted mass of a probability law).
    fn ln_d(&self, i: usize, c: f64) -> Result<Ball, String> {
        let s = self.s(i, c);
        let mut memo = self.memo.borrow_mut();
        let entry = memo.get_mut(&(i, c.to_bits())).expect("just computed");
        if entry.1.is_none() {
            entry.1 = Some(s.ln_1p().ok_or_else(|| not_positive(&self.groups[i]))?);
        }
        Ok(entry.1.expect("just set"))
    }

    fn ln_mgf(&self, c: f64) -> Result<Ball, String> {
        let cb = Ball::exact(c);
        let mut acc = Ball::exact(0.0);
        for (i, g) in self.groups.iter().enumerate() {
            let quad = cb.add(cb.mul(cb)).mul(self.consts[i].q);
            let term = quad.add(self.ln_d(i, c)?).sub(self.ln_d(i, 0.0)?);
            acc = acc.add(term.mul(Ball::exact(g.count as f64)));
        }
        Ok(acc)
    }
}

/// The groups in double precision, for choosing parameters only (tilt, node spacing, starting ε): the
/// θ-series weights e^{−2π²k²σ²} and D(0) are computed once, not at every one of the thousands of
/// evaluations of ln M(c) a saddle-point search makes.
struct Shape {
    parts: Vec<ShapePart>,
    /// Σ n μ²/σ²: the variance of the loss (continuous approximation)
    var: f64,
}

struct ShapePart {
    count: f64,
    mu: f64,
    s2: f64,
    /// e^{−2π²k²σ²}, k = 1..=K, without the trailing ones that cannot change D(c) in f64
    e: Vec<f64>,
    /// D(0) = 1 + 2 Σ_k e_k
    d0: f64,
}

impl Shape {
    fn new(groups: &[GaussGroup]) -> Shape {
        let parts = groups
            .iter()
            .map(|g| {
                let s2 = g.sigma2.to_f64();
                let a = 2.0 * std::f64::consts::PI.powi(2) * s2;
                let mut e: Vec<f64> = (1..=((200.0 / a).sqrt().ceil() as i64).max(1)).map(|k| (-a * (k * k) as f64).exp()).collect();
                let d0 = e.iter().fold(1.0, |d, &x| d + 2.0 * x);
                // D(c) = 1 + Σ 2e_k cos(…) stays ≥ 1/2 when Σ 2e_k ≤ 1/2; then a term with 2e_k < 2^-55 is
                // below half an ulp of the running sum and adding it changes nothing (nor do the smaller
                // ones after it): those cosines are not needed
                if 2.0 * e.iter().sum::<f64>() <= 0.5 {
                    e.truncate(e.iter().take_while(|&&x| 2.0 * x >= 2f64.powi(-55)).count());
                }
                ShapePart { count: g.count as f64, mu: g.mu as f64, s2, e, d0 }
            })
            .collect();
        let var = groups.iter().map(|g| g.count as f64 * (g.mu as f64).powi(2) / g.sigma2.to_f64()).sum();
        Shape { parts, var }
    }

    /// f64 estimates of ln M(c) and of its derivative Σ_q n_q [(1 + 2c)μ²/(2σ²) + D_q′(c)/D_q(c)],
    /// D_q′(c) = −Σ_k 2e_k·2πkμ sin(2πkcμ).
    fn ln_mgf_d(&self, c: f64) -> (f64, f64) {
        let (mut k_sum, mut d_sum) = (0.0, 0.0);
        for g in &self.parts {
            let (mut dc, mut ddc) = (1.0, 0.0);
            for (k, &e) in g.e.iter().enumerate() {
                let f = 2.0 * std::f64::consts::PI * (k + 1) as f64 * g.mu;
                let (s, co) = (f * c).sin_cos();
                dc += 2.0 * e * co;
                ddc -= 2.0 * e * f * s;
            }
            k_sum += g.count * ((c + c * c) * g.mu * g.mu / (2.0 * g.s2) + (dc / g.d0).ln());
            d_sum += g.count * ((1.0 + 2.0 * c) * g.mu * g.mu / (2.0 * g.s2) + ddc / dc);
        }
        (k_sum, d_sum)
    }

    /// f64 estimate of ln M(c) = Σ_q n_q [(c + c²)μ²/(2σ²) + ln(D_q(c)/D_q(0))].
    fn ln_mgf(&self, c: f64) -> f64 {
        self.parts
            .iter()
            .map(|g| {
                let mut dc = 1.0;
                for (k, &e) in g.e.iter().enumerate() {
                    dc += 2.0 * e * (2.0 * std::f64::consts::PI * (k + 1) as f64 * c * g.mu).cos();
                }
                g.count * ((c + c * c) * g.mu * g.mu / (2.0 * g.s2) + (dc / g.d0).ln())
            })
            .sum()
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
fn scale_two_f64((hi, lo): (f64, f64), r: f64, c: f64) -> Ball {
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

/// One group prepared for node evaluation at tilt c.
struct Comp {
    count: u32,
    mu: f64,
    inv2s2: Ball,
    a: Ball,
    b: Ball,
    per: Ball,
    rcut: f64,
    tail: f64,
    inv_d: Ball,
    key: f64,
}

#[cfg(test)]
fn prepare(groups: &[GaussGroup], c: f64) -> Result<Vec<Comp>, String> {
    prepare_with(&Thetas::new(groups), c)
}

fn prepare_with(th: &Thetas, c: f64) -> Result<Vec<Comp>, String> {
    prepare_cut(th, c, LCUT)
}

/// [`prepare_with`] keeping the Poisson terms |τ| ≤ √(2σ²·lcut) (tail 2e^{−lcut}/(1 − e^{−2πR})).
fn prepare_cut(th: &Thetas, c: f64, lcut: f64) -> Result<Vec<Comp>, String> {
    let mut v = Vec::new();
    for (i, g) in th.groups.iter().enumerate() {
        let k = th.consts[i];
        let s2f = g.sigma2.to_f64();
        if s2f / (g.mu as f64).powi(2) < MIN_S2 {
            return Err(format!("sigma2 = {} is too small for the smoothed Fourier engine (use the lattice method)", g.sigma2));
        }
        let mu = g.mu as f64;
        let rcut = (2.0 * s2f * lcut).sqrt();
        let inv_d = inv_one_plus(th.s(i, c)).ok_or_else(|| not_positive(g))?;
        // omitted Poisson terms: 2 e^{−LCUT} / (1 − e^{−2π R}), inflated for rounding
        let tail = 2.0 * (-lcut).exp() / (1.0 - (-2.0 * std::f64::consts::PI * rcut).exp()) * 1.001;
        v.push(Comp {
            count: g.count,
            mu,
            inv2s2: k.inv2s2,
            a: k.q,
            b: scale_two_f64(k.mu_s2, k.mu_s2_r, c),
            per: k.per,
            rcut,
            tail,
            inv_d,
            key: s2f / (mu * mu),
        });
    }
    // widest (slowly oscillating) first: at large t they certify a negligible node soonest
    v.sort_by(|x, y| y.key.partial_cmp(&x.key).unwrap());
    Ok(v)
}

/// r_q(t) = M_q(c+it)/M_q(c) as a ball, for t in the ball `t` (an exact node or one of a period-fitted step).
fn comp_ratio(cp: &Comp, t: Ball) -> CBall {
    let xm = cp.mu * t.m;
    let x = if t.r == 0.0 { Ball::new(xm, crate::num::ball::U * xm.abs()) } else { Ball::exact(cp.mu).mul(t) };
    let p = cp.per.m;
    let slack = cp.rcut * 1e-9 + 1e-9 + x.r;
    let kmin = ((xm - cp.rcut - slack) / p).floor() as i64;
    let kmax = ((xm + cp.rcut + slack) / p).ceil() as i64;
    let mut sum = CBall::ZERO;
    let at = cp.a.mul(t);
    for k in kmin..=kmax {
        let tau = x.sub(cp.per.mul(Ball::exact(k as f64)));
        if tau.m.abs() - tau.r > cp.rcut * 1.5 {
            continue; // beyond the kept window: covered by the tail bound (|τ| > R)
        }
        let e = tau.mul(tau).mul(cp.inv2s2).neg();
        let ph = at.add(cp.b.mul(tau));
        sum = sum.add(CBall::exp_of(e, ph));
    }
    sum.r = up(sum.r + cp.tail);
    sum.scale(cp.inv_d)
}

/// The node step h and the nodes t_n = n·h. The designed step is a multiple of 2^-20, so n·h is exact in
/// f64 (radius 0); a step fitted to the period of the loss lattice, h = T/m = 2π/(m·s), is irrational
/// and the nodes are balls.
#[derive(Clone, Copy)]
struct Step {
    h: Ball,
}

impl Step {
    fn t(&self, n: usize) -> Ball {
        if self.h.r == 0.0 {
            // n·h = p + e exactly (n < 2^53; fused multiply-add): exact (e = 0) unless n·h needs more than
            // 53 bits, as at the 10¹¹ nodes of a 20-digit bracket
            let nf = n as f64;
            let p = nf * self.h.m;
            let e = nf.mul_add(self.h.m, -p);
            if e == 0.0 {
                Ball::exact(p)
            } else {
                Ball::new(p, up(e.abs()))
            }
        } else {
            Ball::exact(n as f64).mul(self.h)
        }
    }

    /// An interval [lo, hi] ⊇ [t_{n0}, t_{n1}] with lo ≥ 0.
    fn span(&self, n0: usize, n1: usize) -> (f64, f64) {
        let (a, b) = (self.t(n0), self.t(n1));
        if a.r == 0.0 && b.r == 0.0 {
            (a.m, b.m)
        } else {
            (self.t(n0).lo().max(0.0), self.t(n1).hi())
        }
    }
}

/// The table of tilted characteristic-function values R(t_n) = M(c + i n h)/M(c), n = 0..=N.
struct Table {
    c: f64,
    step: Step,
    n_nodes: usize,
    /// nodes per period m when only the first period was evaluated
    period: Option<usize>,
    /// (n, R(t_n)) for nodes not certified negligible
    live: Vec<(usize, CBall)>,
    /// Σ ω_n·bound(|R(t_n)|) over the negligible nodes (ω_0 = 1, ω_n = 2)
    dead: f64,
    /// |R(t_n)| ≤ `outside` at every node the sieve left out (0 without a sieve); their kernel-weighted sum
    /// is bounded with the kernels' decay in t ([`Kernels::outside_sums`]) rather than node by node
    outside: f64,
}

/// Upper bound of sup |r_q(t)| over t ∈ [t0, t1] (0 ≤ t0 ≤ t1), certified: every Poisson term has
/// modulus e^{−τ_k²/(2σ²)} with τ_k = μt − 2πkσ², so over the block it is at most e^{−d_k²/(2σ²)}, d_k the
/// distance from 0 to the range of τ_k; terms with |τ_k| > R throughout are covered by the tail bound, as
/// in `comp_ratio`. |r_q| ≤ 1 always (|M(c+it)| ≤ M(c)), so the bound is capped at 1.
fn comp_block_sup(cp: &Comp, t0: f64, t1: f64) -> f64 {
    // μt over the block, widened for the rounding of the products
    let x_lo = (cp.mu * t0) * (1.0 - U) - ETA;
    let x_hi = (cp.mu * t1) * (1.0 + U) + ETA;
    let p = cp.per.m;
    let slack = cp.rcut * 1e-9 + 1e-9;
    let kmin = ((x_lo - cp.rcut - slack) / p).floor() as i64 - 1;
    let kmax = ((x_hi + cp.rcut + slack) / p).ceil() as i64 + 1;
    if kmax - kmin > 4096 {
        return 1.0; // a block this wide in units of the period certifies nothing: caller splits
    }
    let inv2s2_lo = cp.inv2s2.lo();
    let mut sum = cp.tail;
    for k in kmin..=kmax {
        let kp = cp.per.mul(Ball::exact(k as f64));
        // τ_k ∈ [x_lo − kp.hi, x_hi − kp.lo]
        let lo = x_lo - kp.hi();
        let hi = x_hi - kp.lo();
        let d = if lo > 0.0 {
            lo * (1.0 - U)
        } else if hi < 0.0 {
            -hi * (1.0 - U)
        } else {
            0.0
        };
        let y = d * d * inv2s2_lo * (1.0 - 4.0 * U);
        sum = up(sum + Ball::exact(-y).exp().hi());
    }
    up(sum * (cp.inv_d.m + cp.inv_d.r)).min(1.0)
}

/// Upper bound of sup |R(t)| = Π_q sup |r_q(t)|^{n_q} over t ∈ [t0, t1], in logarithms (rounded up);
/// stops early once below `ln_dead` − 1 (the remaining factors are at most 1).
fn block_ln_sup(comps: &[Comp], t0: f64, t1: f64, ln_dead: f64) -> f64 {
    let mut ln_b = 0.0f64;
    for cp in comps {
        let s = comp_block_sup(cp, t0, t1);
        if s <= 0.0 {
            return f64::NEG_INFINITY;
        }
        // ln s rounded up (libm error ≤ LIBM_REL relative, plus an absolute allowance), times n_q
        let l = s.ln();
        let l_up = l + LIBM_REL * l.abs() + 1e-300;
        let term = l_up * cp.count as f64;
        ln_b += term;
        ln_b += U * ln_b.abs() + U * term.abs();
        if ln_b < ln_dead - 1.0 {
            break;
        }
    }
    ln_b
}

/// What a node scan needs: the prepared groups, the node step, the loss variance Σ n_q μ_q²/σ_q², and
/// the level below which |R(t_n)| is kept only as a bound.
struct Scan<'a> {
    comps: &'a [Comp],
    step: Step,
    var: f64,
    dead: f64,
}

/// Nodes n0..=n1 (t_n = n·h): blocks whose certified sup |R| is below the dead level are bounded as a
/// whole (most of the nodes at narrow smoothing, far from t = 0), the others split down to single nodes,
/// which are evaluated as balls. Live nodes are pushed in increasing n. The variance only decides where a
/// block certificate is worth trying: where ½·var·t² is below ln(1/dead) − 8, |R(t)| ≈ e^{−var·t²/2} is
/// far above the dead level at the block's first node, the certificate would fail, and the nodes are
/// evaluated directly (what is certified does not depend on it).
fn scan_nodes(sc: &Scan, n0: usize, n1: usize, live: &mut Vec<(usize, CBall)>, dead: &mut f64) {
    let comps = sc.comps;
    let ln_dead = sc.dead.ln();
    if n1 > n0 {
        let (t0, t1) = sc.step.span(n0, n1);
        let near_zero = 0.5 * sc.var * t0 * t0 < -ln_dead - 8.0;
        // near t = 0 no certificate is tried: the trivial bound |R| ≤ 1 (ln_b = 0) sends the block on to splitting
        let ln_b = if near_zero { 0.0 } else { block_ln_sup(comps, t0, t1, ln_dead) };
        if ln_b < ln_dead {
            let b = (ln_b.exp() * (1.0 + 2.0 * LIBM_REL)).max(0.0) + ETA;
            // weights ω_0 = 1, ω_n = 2
            let w = 2.0 * (n1 - n0 + 1) as f64 - if n0 == 0 { 1.0 } else { 0.0 };
            *dead = up(*dead + w * b);
            return;
        }
        if n1 - n0 >= 8 {
            let m = n0 + (n1 - n0) / 2;
            scan_nodes(sc, n0, m, live, dead);
            scan_nodes(sc, m + 1, n1, live, dead);
            return;
        }
    }
    for n in n0..=n1 {
        let t = sc.step.t(n);
        let mut acc = CBall::ONE;
        let mut small = None;
        for cp in comps {
            let r = comp_ratio(cp, t);
            acc = acc.mul(r.powu(cp.count));
            let b = acc.abs_up();
            if b < sc.dead {
                // remaining factors have modulus ≤ 1
                small = Some(b);
                break;
            }
        }
        let w = if n == 0 { 1.0 } else { 2.0 };
        match small {
            Some(b) => *dead = up(*dead + w * b),
            None => live.push((n, acc)),
        }
    }
}

impl Table {
    /// The table over nodes 0..=N. With `period` = (m, lattice), h = T/m for the lattice's period T: only
    /// the first period's nodes 0..m−1 are evaluated, and node km + j is R(t_j + kT) = e^{iaTk} R(t_j)
    /// (see [`Lattice`]); its dead nodes repeat too, each period k ≥ 1 adding at most twice the first's
    /// bound (weights 2 instead of ω_j ≥ 1, moduli unchanged).
    fn build(comps: &[Comp], c: f64, step: Step, n_nodes: usize, dead: f64, period: Option<(usize, &Lattice)>) -> Result<Table, String> {
        let scanned = period.map_or(n_nodes, |(m, _)| (m - 1).min(n_nodes));
        let (live, dead) = Table::scan(comps, step, scanned, dead)?;
        let Some((m, lat)) = period else {
            return Ok(Table { c, step, n_nodes, period: None, live, dead, outside: 0.0 });
        };
        let periods = n_nodes / m;
        let mut all = Vec::with_capacity(live.len() * (periods + 1));
        all.extend_from_slice(&live);
        for k in 1..=periods {
            let ph = lat.phase_of(k);
            for &(j, r) in &live {
                let n = k * m + j;
                if n > n_nodes {
                    break;
                }
                all.push((n, r.mul(ph)));
            }
        }
        if all.len() > MAX_LIVE {
            return Err(too_many_live());
        }
        let dead = up(dead * (1.0 + 2.0 * periods as f64));
        Ok(Table { c, step, n_nodes, period: Some(m), live: all, dead, outside: 0.0 })
    }

    /// The table over nodes 0..=N of an exact step by the [`sieve`]: only the nodes in its ranges are scanned
    /// (live or dead as in [`Table::scan`]); every other node is bounded by the sieve's `outside`. Err when no
    /// group sieves (the node range is then too long to scan).
    fn build_sieved(comps: &[Comp], c: f64, step: Step, n_nodes: usize, dead: f64) -> Result<Table, String> {
        let sv = sieve::sieve(comps, step, n_nodes, dead).ok_or_else(|| {
            format!("{n_nodes:.2e} nodes, and the widest groups' Poisson windows do not narrow them to {:.0e}", sieve::MAX_KEPT as f64)
        })?;
        let var: f64 = comps.iter().map(|cp| cp.count as f64 * 2.0 * cp.a.m).sum();
        let sc = Scan { comps, step, var, dead };
        // long ranges in pieces of 4096 nodes, as in `scan`
        let pieces: Vec<(usize, usize)> =
            sv.ranges.iter().flat_map(|&(a, b)| (a..=b).step_by(4096).map(move |p| (p, (p + 4095).min(b)))).collect();
        let parts: Vec<(Vec<(usize, CBall)>, f64)> = pieces
            .par_iter()
            .map(|&(n0, n1)| {
                let (mut live, mut d) = (Vec::new(), 0.0f64);
                if crate::num::cancel::requested() {
                    return (live, d);
                } // discarded: see num::cancel
                scan_nodes(&sc, n0, n1, &mut live, &mut d);
                (live, d)
            })
            .collect();
        let mut live = Vec::new();
        crate::num::cancel::check()?;
        let mut dsum = 0.0;
        for (l, d) in parts {
            live.extend(l);
            dsum = up(dsum + d);
            if live.len() > MAX_LIVE {
                return Err(too_many_live());
            }
        }
        Ok(Table { c, step, n_nodes, period: None, live, dead: dsum, outside: sv.bound })
    }

    /// Live nodes and the dead bound over nodes 0..=n_nodes.
    fn scan(comps: &[Comp], step: Step, n_nodes: usize, dead: f64) -> Result<(Vec<(usize, CBall)>, f64), String> {
        let chunk = 4096;
        let var: f64 = comps.iter().map(|cp| cp.count as f64 * 2.0 * cp.a.m).sum();
        let sc = Scan { comps, step, var, dead };
        let n_live = std::sync::atomic::AtomicUsize::new(0);
        let one = |ci: usize| {
            let mut live = Vec::new();
            if n_live.load(std::sync::atomic::Ordering::Relaxed) > MAX_LIVE {
                return (live, 0.0);
            }
            if crate::num::cancel::requested() {
                return (live, 0.0);
            } // discarded: see num::cancel
            let mut dead = 0.0f64;
            scan_nodes(&sc, ci * chunk, ((ci + 1) * chunk).min(n_nodes + 1) - 1, &mut live, &mut dead);
            n_live.fetch_add(live.len(), std::sync::atomic::Ordering::Relaxed);
            (live, dead)
        };
        let chunks = (n_nodes + 1).div_ceil(chunk);
        // a small table in the calling thread: handing a few chunks to the pool costs more (thread
        // wake-ups, ~30% of a 1e-3-wide query) than the parallel scan saves
        let parts: Vec<(Vec<(usize, CBall)>, f64)> = if chunks * comps.len() <= SERIAL_WORK {
            (0..chunks).map(one).collect()
        } else {
            (0..chunks).into_par_iter().map(one).collect()
        };
        crate::num::cancel::check()?;
        if n_live.into_inner() > MAX_LIVE {
            return Err(too_many_live());
        }
        let mut live = Vec::new();
        let mut dead = 0.0;
        for (l, d) in parts {
            live.extend(l);
            dead = up(dead + d);
        }
        Ok((live, dead))
    }
}

fn too_many_live() -> String {
    format!(
        "the smoothed inversion is inefficient here (more than {MAX_LIVE} non-negligible nodes: the loss is close to a coarse lattice); use the lattice method"
    )
}

/// x-independent node factors for F_S and F_B.
struct Kernels {
    w: f64,
    gamma: f64,
    ks: Vec<(Ball, CBall, CBall)>,
    /// e^{−i t_n x} is formed from the previous node's for up to this many consecutive nodes (0: always
    /// by libm), see [`Kernels::sums`]
    restart: usize,
}

/// Smallest requested ε-bracket width that takes the loose [`NodeSettings`]; narrower requests (the
/// production brackets) keep the strict ones.
const LOOSE_WIDTH: f64 = 1e-8;
/// Run length of the phase recurrence before it restarts from libm.
const RESTART: usize = 16;

/// How much accuracy the node work may give up for speed, from the requested ε-bracket width. Both only
/// widen the certified bracket, never invalidate it.
/// - `dead`: nodes with |R(t_n)| below it are kept only as a bound. At most 2N such nodes add at most
///   2N·dead·max|K| to the sums' radius; a loose request takes dead = 1e-6·width/N (δ-relative ~1e-6 of
///   the width, so the bracket widens by ~1e-6 of itself), between 1e-30 and 1e-12.
/// - `restart`: the phases e^{−i t_n x} are formed by recurrence for up to this many consecutive nodes;
///   each step adds ~4e-15 to their radius, so 16 steps widen δ by ~1e-13 relative, below 1e-4 of a
///   loose width. Strict: 0 (libm's sine and cosine at every node), dead = 1e-30.
#[derive(Clone, Copy)]
struct NodeSettings {
    dead: f64,
    restart: usize,
}

impl NodeSettings {
    const STRICT: NodeSettings = NodeSettings { dead: DEAD, restart: 0 };

    fn for_width(width: Option<f64>, n_nodes: usize) -> NodeSettings {
        match width {
            Some(w) if w >= LOOSE_WIDTH => NodeSettings { dead: (w * 1e-6 / (n_nodes.max(1) as f64)).clamp(DEAD, 1e-12), restart: RESTART },
            _ => NodeSettings::STRICT,
        }
    }
}

impl Kernels {
    fn new(tab: &Table, w: f64, gamma: f64, restart: usize) -> Kernels {
        let c = tab.c;
        let cb = Ball::exact(c);
        let c2 = cb.mul(cb);
        let w2 = Ball::exact(w).mul(Ball::exact(w));
        let g2 = Ball::exact(gamma).mul(Ball::exact(gamma));
        let half = Ball::exact(0.5);
        let node = |&(n, r): &(usize, CBall)| {
            let tb = tab.step.t(n);
            let t = tb.m;
            let t2 = tb.mul(tb);
            // e^{w²(c+it)²/2} = e^{w²(c²−t²)/2} · e^{i w² c t}
            let es = CBall::exp_of(w2.mul(c2.sub(t2)).mul(half), w2.mul(cb).mul(tb));
            let eb = CBall::exp_of(g2.mul(c2.sub(t2)).mul(half), g2.mul(cb).mul(tb));
            // 1/((c+it)(c+1+it)) with (c+it)(c+1+it) = c(c+1) − t² + i t(2c+1)
            let den = if tb.r == 0.0 {
                let den = CBall::new(c * (c + 1.0) - t * t, t * (2.0 * c + 1.0), 0.0);
                CBall { r: up(crate::num::ball::U * 2.0 * (den.re.abs() + den.im.abs() + t * t)), ..den }
            } else {
                let re = cb.mul(cb.add(Ball::exact(1.0))).sub(t2);
                let im = tb.mul(cb.mul(Ball::exact(2.0)).add(Ball::exact(1.0)));
                CBall::new(re.m, im.m, up(re.r + im.r))
            };
            let ps = r.mul(es).mul(den.inv());
            let pb = r.mul(eb);
            (tb, ps, pb)
        };
        let ks = if tab.live.len() <= SERIAL_NODES { tab.live.iter().map(node).collect() } else { tab.live.par_iter().map(node).collect() };
        Kernels { w, gamma, ks, restart }
    }

    /// Σ_n ω_n Re[K(t_n) e^{−i t_n x}] for the kernel of F_S and, when `with_b`, of F_B, as balls
    /// (negligible nodes bounded). The phases e^{−i t_n x}: at consecutive nodes (t_n = n·h exactly) the
    /// next is the previous times e^{−ihx}, for up to `restart` steps, then again libm's sine and cosine
    /// (which otherwise cost more than the rest of the sum).
    fn sums(&self, tab: &Table, x: f64, with_b: bool) -> (Ball, Ball) {
        let (mut ss, mut sb) = (Ball::exact(0.0), Ball::exact(0.0));
        let step = CBall::cis(tab.step.h.mul(Ball::exact(x)).neg());
        let (mut e, mut prev, mut run) = (CBall::ONE, usize::MAX, 0usize);
        for (&(t, ps, pb), &(n, _)) in self.ks.iter().zip(&tab.live) {
            if run < self.restart && prev != usize::MAX && n == prev + 1 {
                e = e.mul(step);
                run += 1;
            } else {
                e = CBall::cis(t.mul(Ball::exact(x)).neg());
                run = 0;
            }
            prev = n;
            let wgt = if n == 0 { 1.0 } else { 2.0 };
            let zs = ps.mul(e);
            ss = ss.add(Ball { m: wgt * zs.re, r: wgt * zs.r });
            if with_b {
                let zb = pb.mul(e);
                sb = sb.add(Ball { m: wgt * zb.re, r: wgt * zb.r });
            }
        }
        let (ks_max, kb_max) = kernel_max(tab.c, self.w, self.gamma);
        ss.r = up(ss.r + tab.dead * ks_max);
        sb.r = up(sb.r + tab.dead * kb_max);
        (ss, sb)
    }
}

/// Upper bounds of |K_S(t)| ≤ e^{w²c²/2}/(c(c+1)) and |K_B(t)| ≤ e^{γ²c²/2} over all t (the factors of
/// a negligible node's bound).
fn kernel_max(c: f64, w: f64, gamma: f64) -> (f64, f64) {
    ((w * w * c * c / 2.0).exp() / (c * (c + 1.0)) * 1.001, (gamma * gamma * c * c / 2.0).exp() * 1.001)
}

/// The tilts c′ > c of the Chernoff bound on the aliasing m ≥ 1 (parameter choice only: every c′ > c gives
/// a valid bound, the engine takes the smallest). The fixed ones c + 0.5, c + 1, 1.5c + 1, 2c + 1 suit a
/// loss of small variance; for a wide loss (n = 1e5 queries of N_Z(0, 37.7): variance 2,650, c = 0.13,
/// T = 2π/h ≈ 411) they overshoot: at c′ = c + 0.5 the bound is e^{ln M(c′) − c′x − (c′−c)T} ≈ e^{111},
/// and no lower bound of δ was certified. The best c′ for x near ε solves K′(c′) = x + T (K = ln M),
/// i.e. K′(c′) ≈ K′(c) + T at the saddle point; the roots for T scaled by 0.6…1.6 are added.
fn chernoff_tilts(sh: &Shape, c: f64, t_per: f64) -> Vec<f64> {
    let mut tilts = vec![c + 0.5, c + 1.0, 1.5 * c + 1.0, 2.0 * c + 1.0];
    let k1 = sh.ln_mgf_d(c).1;
    if !(k1.is_finite() && t_per.is_finite() && t_per > 0.0) {
        return tilts;
    }
    for f in [0.6, 0.8, 1.0, 1.25, 1.6] {
        let target = k1 + f * t_per;
        // K′ is increasing (K convex): bracket, then bisect
        let mut b = c + 1e-3;
        let mut k = 0;
        while sh.ln_mgf_d(b).1 < target && k < 60 {
            b = c + 2.0 * (b - c);
            k += 1;
        }
        if k == 60 {
            continue;
        }
        let (_, b) = bisect_decreasing(c, b, 60, |x| sh.ln_mgf_d(x).1 < target);
        if b > c && b.is_finite() {
            tilts.push(b);
        }
    }
    tilts
}

/// Everything needed to evaluate certified bounds of δ at any x near the design point.
pub struct Engine {
    tab: Table,
    ker: Kernels,
    /// ln M(c)
    ln_m: Ball,
    /// h/(2π)
    hfac: Ball,
    /// γ√(2π)
    g_s2pi: Ball,
    /// truncation |t| > A of F_S over M(c)e^{−cx}: (1/π) e^{w²c²/2} e^{−w²A²/2}/A
    trunc_s: Ball,
    /// the same for F_B: (1/π) γ√(2π) e^{γ²c²/2} e^{−γ²A²/2}/(γ²A)
    trunc_b: Ball,
    /// aliasing m ≤ −1: e^{−cT}/(1 − e^{−cT}), rounded up
    alias_lo: f64,
    /// aliasing m ≥ 1 at the Chernoff tilts c′: (c′, ln M(c′) + c′²w²/2, e^{−(c′−c)T}/(1 − e^{−(c′−c)T}) rounded up)
    chern: Vec<(f64, Ball, f64)>,
    /// β rounded up
    beta: f64,
}

/// The upper end of a ball, +∞ when there is none or it is not a number.
fn hi_or_inf(b: Option<Ball>) -> f64 {
    match b.map(|b| b.hi()) {
        Some(v) if !v.is_nan() => v,
        _ => f64::INFINITY,
    }
}

impl Engine {
    /// Build for tilt c, smoothing w, bump factor λ, step h, last node N, and the requested ε-bracket
    /// width (None for a δ bracket), which sets the [`NodeSettings`]. The x-independent constants are
    /// balls; the θ-sums and ln M too ([`Thetas`]).
    fn new(th: &Thetas, c: f64, w: f64, lambda: f64, h: f64, n_nodes: usize, width: Option<f64>) -> Result<Engine, String> {
        let comps = prepare_with(th, c)?;
        let (step, n_nodes, m) = fit_to_period(&th.lattice, h, n_nodes);
        let ns = NodeSettings::for_width(width, n_nodes);
        let tab = Table::build(&comps, c, step, n_nodes, ns.dead, m.map(|m| (m, &th.lattice)))?;
        Engine::with_table(th, w, lambda, h, tab, m, ns.restart)
    }

    /// The engine on a built table (`m`: nodes per period of a fitted step; h the designed step, used for
    /// h/(2π) when the step is not fitted).
    fn with_table(th: &Thetas, w: f64, lambda: f64, h: f64, tab: Table, m: Option<usize>, restart: usize) -> Result<Engine, String> {
        let c = tab.c;
        let step = tab.step;
        let gamma = lambda * w;
        let ker = Kernels::new(&tab, w, gamma, restart);
        let ln_m = th.ln_mgf(c)?;
        // the constants below in ball arithmetic (a ball that cannot be formed — a divisor not away from
        // 0, an overflow — gives the trivial bound +∞, which the searches read as "not certified here")
        let one = Ball::exact(1.0);
        let half = Ball::exact(0.5);
        let tt = TAU.div(step.h).ok_or("smoothed inversion: node step not positive")?;
        // q/(1 − q) rounded up, for q = e^{−x} with x > 0
        let geometric = |x: Ball| {
            let q = x.neg().exp();
            hi_or_inf(q.div(one.sub(q)))
        };
        let mut chern = Vec::new();
        for cp in chernoff_tilts(&Shape::new(th.groups), c, tt.m) {
            let cpw = Ball::exact(cp).mul(Ball::exact(w));
            let e0 = th.ln_mgf(cp)?.add(cpw.mul(cpw).mul(half));
            chern.push((cp, e0, geometric(Ball::exact(cp).sub(Ball::exact(c)).mul(tt))));
        }
        // β = w e^{w²/2} (φ(0) + w) exp(w²/(2(λ²−1)) + w²/(2λ²)), φ(0) = 1/√(2π)
        let wi = Ball::exact(w);
        let w2 = wi.mul(wi);
        let l2 = Ball::exact(lambda).mul(Ball::exact(lambda));
        let beta = (|| {
            let phi0 = one.div(SQRT_TAU)?;
            let expo = w2.mul(half).add(w2.div(l2.sub(one).mul(Ball::exact(2.0)))?).add(w2.div(l2.mul(Ball::exact(2.0)))?);
            Some(wi.mul(phi0.add(wi)).mul(expo.exp()))
        })();
        let beta = hi_or_inf(beta);
        let a = Ball::exact(tab.n_nodes as f64).mul(step.h);
        let wc = wi.mul(Ball::exact(c));
        let wa = wi.mul(a);
        // (1/π) e^{(w²c² − w²A²)/2}/A and (1/π) γ√(2π) e^{(γ²c² − γ²A²)/2}/(γ²A)
        let trunc_s = wc.mul(wc).sub(wa.mul(wa)).mul(half).exp().div(a.mul(PI));
        let gi = Ball::exact(gamma);
        let g_s2pi = gi.mul(SQRT_TAU);
        let gc = gi.mul(Ball::exact(c));
        let ga = gi.mul(a);
        let trunc_b = g_s2pi.mul(gc.mul(gc).sub(ga.mul(ga)).mul(half).exp()).div(gi.mul(gi).mul(a).mul(PI));
        let alias_lo = geometric(Ball::exact(c).mul(tt));
        let infinite = Ball::new(0.0, f64::INFINITY);
        Ok(Engine {
            tab,
            ker,
            ln_m,
            // h/(2π) multiplies every δ bound: its radius is kept at MPFR's (an ulp of the f64), one division;
            // for a period-fitted step h/(2π) = 1/(m·s) exactly
            hfac: match m {
                None => ball_of(&iv(h).div(&Interval::pi(CP).mul(&iv(2.0)))),
                Some(m) => th.lattice.h_over_tau(m),
            },
            g_s2pi,
            trunc_s: trunc_s.unwrap_or(infinite),
            trunc_b: trunc_b.unwrap_or(infinite),
            alias_lo,
            chern,
            beta,
        })
    }

    /// Certified bounds [lo, hi] on F_S(x) and an upper bound on F_B(x), in ball arithmetic. Where a
    /// quantity leaves the f64 range (x far below the design point, where M(c)e^{−cx} overflows) the
    /// bound returned is the trivial one (lo −∞, hi +∞), which is valid and only tells the searches
    /// "not certified here".
    fn f_bounds(&self, x: f64, with_lo: bool) -> (f64, f64, f64) {
        let c = self.tab.c;
        let (ss, sb) = self.ker.sums(&self.tab, x, with_lo);
        let xb = Ball::exact(x);
        let pref = self.ln_m.sub(Ball::exact(c).mul(xb)).exp(); // M(c) e^{−cx}
        let base = pref.mul(self.hfac);
        let fs = base.mul(ss);
        let trunc_s = pref.mul(self.trunc_s).hi();
        let finite = |v: f64, inf: f64| if v.is_finite() { v } else { inf };
        let hi = Ball::exact(fs.hi()).add(Ball::exact(trunc_s)).hi();
        if !with_lo {
            return (f64::NEG_INFINITY, finite(hi, f64::INFINITY), f64::INFINITY);
        }
        // aliasing (m ≥ 1): min over c′ of M(c′)e^{c′²w²/2}e^{−c′x} · e^{−(c′−c)T}/(1 − e^{−(c′−c)T})
        let alias_hi =
            self.chern.iter().map(|&(cp, e0, q)| up(e0.sub(Ball::exact(cp).mul(xb)).exp().hi() * q)).fold(f64::INFINITY, f64::min);
        let alias = up(self.alias_lo + alias_hi);
        let lo = Ball::exact(fs.lo()).sub(Ball::exact(trunc_s)).sub(Ball::exact(alias)).lo();
        // F_B upper: aliasing is non-negative, so the rule itself is an upper bound
        let fb_hi = base.mul(self.g_s2pi).mul(sb).add(pref.mul(self.trunc_b)).hi();
        (finite(lo, f64::NEG_INFINITY), finite(hi, f64::INFINITY), finite(fb_hi, f64::INFINITY))
    }

    /// Certified upper bound of δ(ε) for any ε ≥ `eps` (uses u(y) = S(y + w²/2)).
    pub fn delta_hi(&self, eps: f64) -> Float {
        let w = self.ker.w;
        let sh = w * w / 2.0;
        // x ≤ ε − w²/2 (any shift ≥ w²/2 keeps u ≥ ψ)
        let x = eps - sh * (1.0 + 1e-9) - crate::num::ball::U * eps.abs() * 4.0;
        fl(self.f_bounds(x, false).1)
    }

    /// Certified lower bound of δ(ε) for any ε ≤ `eps` (uses v(y) = S(y) − β e^{−y²/(2γ²)}).
    pub fn delta_lo(&self, eps: f64) -> Float {
        let (fs_lo, _, fb_hi) = self.f_bounds(eps, true);
        // fs_lo − β·fb_hi, rounded down (−∞ when either is not certified)
        let b = Ball::exact(self.beta).mul(Ball::exact(fb_hi)).hi();
        let v = Ball::exact(fs_lo).sub(Ball::exact(b)).lo();
        fl(if v.is_nan() { f64::NEG_INFINITY } else { v })
    }

    pub fn live(&self) -> usize {
        self.tab.live.len()
    }

    /// The node step h (its midpoint), the last node N, and the nodes per period of a fitted step.
    fn nodes(&self) -> (f64, usize, Option<usize>) {
        (self.tab.step.h.m, self.tab.n_nodes, self.tab.period)
    }
}

/// Periods of the loss lattice a node range must span before the step is fitted to the period.
const MIN_PERIODS: f64 = 2.0;
/// Fewest and most nodes per period of a fitted step.
const PERIOD_NODES: (f64, f64) = (8.0, 1e7);

/// The step and last node for the designed step h and last node N: when the nodes t ≤ N·h span at least
/// [`MIN_PERIODS`] periods T = 2π/s of the loss lattice (a lattice small against the range of t, as for one
/// Census level), h is lowered to T/m, m = ⌈T/h⌉ (a smaller step only shrinks the aliasing), N raised so
/// that N·h does not shrink, and m returned: the table then evaluates one period ([`Table::build`]).
/// Otherwise h (exact) and N unchanged.
fn fit_to_period(lat: &Lattice, h: f64, n_nodes: usize) -> (Step, usize, Option<usize>) {
    let plain = (Step { h: Ball::exact(h) }, n_nodes, None);
    let period = std::f64::consts::TAU / lat.step.to_f64();
    let per_period = period / h;
    if !(period.is_finite() && n_nodes as f64 * h >= MIN_PERIODS * period && (PERIOD_NODES.0..=PERIOD_NODES.1).contains(&per_period)) {
        return plain;
    }
    let m = per_period.ceil() as usize;
    let hm = TAU.mul(lat.h_over_tau(m));
    // N·h ≥ the designed range: N ≥ N_design·h_design / h.lo
    let n = ((n_nodes as f64 * h) / hm.lo()).ceil() as usize;
    (Step { h: hm }, n, Some(m))
}

/// Saddle point: the c > 0 minimising ln M(c) − cε − ln(c(c+1)).
pub fn saddle(groups: &[GaussGroup], eps: f64) -> f64 {
    saddle_of(&Shape::new(groups), eps)
}

fn saddle_of(sh: &Shape, eps: f64) -> f64 {
    let f = |c: f64| sh.ln_mgf(c) - c * eps - (c * (c + 1.0)).ln();
    let (mut a, mut b) = (1e-3f64, 60.0f64);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..200 {
        let x1 = b - g * (b - a);
        let x2 = a + g * (b - a);
        let before = (a, b);
        if f(x1) < f(x2) {
            b = x2;
        } else {
            a = x1;
        }
        // an unchanged (a, b) is a fixed point of this deterministic step (~80 steps from [1e-3, 60]):
        // the remaining iterations would return the same tilt
        if (a, b) == before {
            break;
        }
    }
    (0.5 * (a + b)).max(0.05)
}

/// Saddle-point estimate of ln δ(ε) (parameter choice only).
fn ln_delta_estimate(sh: &Shape, eps: f64) -> f64 {
    let c = saddle_of(sh, eps);
    estimate_at(sh, sh.ln_mgf(c), c, eps)
}

/// The saddle-point estimate of ln δ(ε) at tilt c, given K = ln M(c): K − cε − ln(c(c + 1)) − ½ln(2π·var).
fn estimate_at(sh: &Shape, k: f64, c: f64, eps: f64) -> f64 {
    k - c * eps - (c * (c + 1.0)).ln() - 0.5 * (2.0 * std::f64::consts::PI * sh.var).ln()
}

/// Bisection of [a, b] for a decreasing quantity: `above(x)` says it is still above the target at x (then
/// x becomes the new a). Stops at adjacent doubles — re-testing an end point would reproduce its verdict,
/// nothing moves any more — or after `iters` steps; returns the final (a, b).
fn bisect_decreasing(mut a: f64, mut b: f64, iters: usize, above: impl Fn(f64) -> bool) -> (f64, f64) {
    for _ in 0..iters {
        let m = 0.5 * (a + b);
        if m == a || m == b {
            break;
        }
        if above(m) {
            a = m;
        } else {
            b = m;
        }
    }
    (a, b)
}

/// Table scans of at most this many chunk × group units run in the calling thread.
const SERIAL_WORK: usize = 8;
/// Kernels of at most this many live nodes are formed in the calling thread.
const SERIAL_NODES: usize = 2048;

/// Largest number of non-negligible nodes kept (each costs a term in every δ evaluation).
pub const MAX_LIVE: usize = 1_000_000;

/// Largest number of nodes.
pub const MAX_NODES: usize = 50_000_000;

/// Node spacing and count for tilt c, smoothing w, and the δ scale of interest (as a logarithm).
fn design(sh: &Shape, c: f64, w: f64, eps: f64, ln_dscale: f64) -> Result<(f64, usize), String> {
    design_upto(sh, c, w, eps, ln_dscale, MAX_NODES)
}

/// [`design`] with a node limit.
fn design_upto(sh: &Shape, c: f64, w: f64, eps: f64, ln_dscale: f64, max_nodes: usize) -> Result<(f64, usize), String> {
    // tolerance of the aliasing and truncation terms: 1e-5·δ·w² (the smoothing gap is ~10 δ w²)
    let ln_tol = (1e-5f64).ln() + ln_dscale + 2.0 * w.ln();
    // aliasing e^{−cT} ≤ tol
    let t_per = -ln_tol / c;
    let h = ((2.0 * std::f64::consts::PI / t_per) * 1048576.0).floor() / 1048576.0;
    // truncation (1/π) pref e^{w²c²/2} e^{−w²A²/2}/A ≤ tol
    let lpref = sh.ln_mgf(c) - c * eps + w * w * c * c / 2.0;
    let mut a = 10.0 / w;
    for _ in 0..4 {
        let v = 2.0 * (lpref - std::f64::consts::PI.ln() - ln_tol - a.ln());
        a = v.max(1.0).sqrt() / w;
    }
    let n = a / h;
    if !(h > 0.0 && n > 0.0 && n.is_finite()) {
        return Err(format!(
            "the smoothed inversion has no valid quadrature here (tilt c = {c:.3}, step {h:.3e}: epsilon or delta outside its range); use the lattice method"
        ));
    }
    if !(n < max_nodes as f64) {
        return Err(format!(
            "the smoothed inversion would need {n:.2e} nodes here (tilt c = {c:.3}: epsilon small or delta large); use the lattice method"
        ));
    }
    Ok((h, n.ceil() as usize))
}

/// Range of σ²/μ² the double-precision design of the smoothed inversion handles: outside it the
/// cumulants (∝ μ²/σ²) overflow or vanish in f64 and the node search does not terminate in practice.
pub const SIGMA2_RANGE: (f64, f64) = (1e-6, 1e15);

pub fn check_groups(groups: &[GaussGroup]) -> Result<(), String> {
    for g in groups {
        let s = g.sigma2.to_f64() / (g.mu as f64 * g.mu as f64);
        if !(SIGMA2_RANGE.0..=SIGMA2_RANGE.1).contains(&s) {
            return Err(format!(
                "the smoothed inversion handles sigma2/sensitivity² in [{:e}, {:e}] (double-precision design), got {s:.3e}; use --method auto",
                SIGMA2_RANGE.0, SIGMA2_RANGE.1
            ));
        }
    }
    Ok(())
}

/// Certified bracket of δ(ε) by smoothed inversion.
pub fn delta_smooth(groups: &[GaussGroup], eps: &Rational, p: &SmoothParams) -> Result<SmoothResult, String> {
    check_groups(groups)?;
    let e_dn = Float::with_val_round(53, eps, Round::Down).0.to_f64();
    let e_up = Float::with_val_round(53, eps, Round::Up).0.to_f64();
    let sh = Shape::new(groups);
    let th = Thetas::new(groups);
    let c = p.c.unwrap_or_else(|| saddle_of(&sh, e_dn));
    let w = p.w.unwrap_or(1e-4);
    let mut ln_dscale = ln_delta_estimate(&sh, e_dn) - 1e3f64.ln();
    for attempt in 1..=4 {
        let (h, n) = design(&sh, c, w, e_dn, ln_dscale)?;
        let eng = Engine::new(&th, c, w, p.lambda, h, n, None)?;
        let (h, n, period) = eng.nodes();
        let hi = eng.delta_hi(e_dn);
        let lo = eng.delta_lo(e_up);
        let lo = if lo < 0 { Float::with_val(CP, 0) } else { lo };
        // if δ came out far below the design scale, the aliasing tolerance was too loose: redo
        let ln_hi = if hi > 0 { Float::with_val(CP, hi.ln_ref()).to_f64() } else { ln_dscale - 50.0 };
        if ln_hi < ln_dscale - 1e2f64.ln() && attempt < 4 {
            ln_dscale = ln_hi - 1e3f64.ln();
            continue;
        }
        return Ok(SmoothResult {
            lo,
            hi,
            w,
            c,
            h,
            nodes: n + 1,
            live: eng.live(),
            period,
            attempts: attempt,
            precise: false,
            fallback: None,
        });
    }
    unreachable!()
}

/// A certified end of an ε bracket found by the secant method: `gap(x)` = ln(bound at x) − ln δ (None
/// where the bound is not positive) is close to linear in x with slope ≈ −c, so a few secant steps from
/// `x0` find its root r; then points ever further outside it (r + side·m, m = step/1024, 8× larger each
/// time) are tested with `good` (the certificate) and the first that passes is returned. None if the iteration does not settle or
/// no candidate passes (the caller then bisects). ~6 evaluations of the bound instead of ~35.
fn verified_crossing(gap: impl Fn(f64) -> Option<f64>, x0: f64, c: f64, step: f64, side: f64, good: impl Fn(f64) -> bool) -> Option<f64> {
    let (mut xa, mut fa) = (x0, gap(x0)?);
    let mut xb = xa + fa / c.max(1e-3);
    let mut root = None;
    for _ in 0..12 {
        let fb = gap(xb)?;
        if (xb - xa).abs() <= 0.25 * step {
            root = Some(xb);
            break;
        }
        let slope = (fb - fa) / (xb - xa);
        if !(slope < 0.0 && slope.is_finite()) {
            return None;
        }
        let next = xb - fb / slope;
        if !next.is_finite() || (next - xb).abs() > 50.0 {
            return None;
        }
        (xa, fa, xb) = (xb, fb, next);
    }
    let r = root?;
    // the secant root is accurate far below `step` (to ~1e-13 relative where the bound is smooth): the
    // first candidate is a thousandth of a step outside it, the next ones 8× further out each
    let mut m = (step / 1024.0).max(4.0 * f64::EPSILON * r.abs());
    for _ in 0..8 {
        let x = r + side * m;
        if good(x) {
            return Some(x);
        }
        m *= 8.0;
    }
    None
}

/// Bisection between a point where `good` holds and one where it does not, down to `step`; returns the
/// last point where `good` was verified (each endpoint of an ε bracket is certified by its own test).
fn boundary(mut good_x: f64, mut bad_x: f64, step: f64, good: impl Fn(f64) -> bool) -> f64 {
    while (good_x - bad_x).abs() > step {
        let m = 0.5 * (good_x + bad_x);
        if good(m) {
            good_x = m;
        } else {
            bad_x = m;
        }
    }
    good_x
}

/// The ε where the saddle-point estimate of ln δ(ε) equals `ld`, searched along the tilt: the saddle c of
/// ε solves K′(c) = ε + (2c + 1)/(c(c + 1)) (K = ln M), so ε(c) is explicit and increasing (K″ > 0) and the
/// estimate K(c) − cε(c) − ln(c(c + 1)) − ½ln(2π·var) decreasing in c; a bisection on c costs ~60
/// evaluations of K, where one on ε costs a tilt search (~160) each. None when the root's tilt is outside
/// the range [0.05, 60] of [`saddle_of`] (then the bisection on ε decides). Parameter choice only.
fn eps_estimate_by_tilt(sh: &Shape, ld: f64) -> Option<f64> {
    let at = |c: f64| {
        let (k, dk) = sh.ln_mgf_d(c);
        let eps = dk - (2.0 * c + 1.0) / (c * (c + 1.0));
        (eps, estimate_at(sh, k, c, eps))
    };
    let (a, b) = (0.05f64, 60.0f64);
    // φ(c) = the estimate at ε(c) has φ′(c) = −c·ε′(c) < 0 for every c > 0 (whatever the sign of ε(c))
    if !(at(a).1 > ld && at(b).1 < ld) {
        return None;
    }
    let (a, b) = bisect_decreasing(a, b, 200, |c| at(c).1 > ld);
    let e = at(0.5 * (a + b)).0;
    (e.is_finite() && e > 0.0).then_some(e)
}

/// The same ε by bisection on ε, each step a tilt search (the general case).
fn eps_estimate_by_bisection(sh: &Shape, ld: f64) -> Result<f64, String> {
    let mut b = 1.0f64;
    while ln_delta_estimate(sh, b) > ld {
        b *= 2.0;
        if b > 1e6 {
            return Err("epsilon estimate diverged".into());
        }
    }
    let (a, b) = bisect_decreasing(0.0, b, 80, |e| ln_delta_estimate(sh, e) > ld);
    Ok(0.5 * (a + b))
}

/// Certified bracket of ε(δ) by smoothed inversion, narrowing the smoothing until the bracket is at most
/// `p.width` wide (or the attempts run out; the bracket is certified either way).
pub fn epsilon_smooth(groups: &[GaussGroup], delta: &Rational, p: &SmoothParams) -> Result<SmoothResult, String> {
    // before any table is sized from σ² (a σ² of 1e-30 would ask petabytes)
    check_groups(groups)?;
    if !(p.width >= MIN_WIDTH) {
        return Err(format!("the smoothed inversion's bracket width must be at least {MIN_WIDTH:e}"));
    }
    if p.width >= F64_MIN_WIDTH {
        return epsilon_f64(groups, delta, p);
    }
    // below the f64 tier's floor: its bracket first (certified, ~1e-11 wide, and the tilt and midpoint the
    // 20-digit tier starts from), then the 20-digit tier; if that cannot finish, the f64 bracket stands
    let (sh, th) = (Shape::new(groups), Thetas::new(groups));
    let first = epsilon_f64_with(&sh, &th, delta, &SmoothParams { width: F64_START_WIDTH, w: None, ..p.clone() })?;
    match precise::epsilon_precise(&th, &sh, delta, p, &first) {
        Ok(r) if r.width() < first.width() => Ok(r),
        Ok(_) => Ok(SmoothResult { fallback: Some("the 20-digit tier came out no narrower".into()), ..first }),
        Err(e) => Ok(SmoothResult { fallback: Some(e), ..first }),
    }
}

/// Width of the f64-tier bracket a 20-digit request starts from.
const F64_START_WIDTH: f64 = 1e-10;

/// The f64 tier of [`epsilon_smooth`].
fn epsilon_f64(groups: &[GaussGroup], delta: &Rational, p: &SmoothParams) -> Result<SmoothResult, String> {
    epsilon_f64_with(&Shape::new(groups), &Thetas::new(groups), delta, p)
}

/// [`epsilon_f64`] on the composition's [`Shape`] and [`Thetas`] (built once when the 20-digit tier follows).
fn epsilon_f64_with(sh: &Shape, th: &Thetas, delta: &Rational, p: &SmoothParams) -> Result<SmoothResult, String> {
    check_groups(th.groups)?;
    let d = delta.to_f64();
    if *delta > 0 && *delta < 1 && !(d >= 1e-300) {
        return Err(format!(
            "delta = {} is below the smoothed inversion's double-precision range (1e-300); use --method lattice or auto",
            crate::num::format::fmt_rational(delta)
        ));
    }
    if !(d > 0.0 && d < 1.0) {
        return Err("delta must be in (0, 1)".into());
    }
    // starting point: ε of the saddle-point estimate
    let ld = d.ln();
    let mut eps0 = match eps_estimate_by_tilt(sh, ld) {
        Some(e) => e,
        None => eps_estimate_by_bisection(sh, ld)?,
    };
    let mut c = p.c.unwrap_or_else(|| saddle_of(sh, eps0));
    let lam = p.lambda;
    let mut w = p.w.unwrap_or_else(|| (0.5 * p.width / (4.0 * (c + 1.0) * (1.0 / (2.0 * c) + lam))).sqrt());
    let dq = Float::with_val(CP, delta);
    let mut last: Option<SmoothResult> = None;
    for attempt in 1..=5u32 {
        // a later, narrower attempt that would be too costly returns the (certified) bracket already found
        let built = design(sh, c, w, eps0, ld).and_then(|(h, n)| Engine::new(th, c, w, lam, h, n, Some(p.width)));
        let eng = match (built, last.take()) {
            (Ok(b), _) => b,
            (Err(_), Some(prev)) => return Ok(prev),
            (Err(e), None) => return Err(e),
        };
        // bisection resolution: well below the target width, above the f64 spacing at ε
        let (h, n, period) = eng.nodes();
        let step = (p.width * 1e-3).max(16.0 * f64::EPSILON * eps0.abs().max(1.0));
        // ε_hi: smallest x with δ_hi(x) ≤ δ — by the secant method, then verified; by bisection if that fails
        let ln_gap = |v: Float| {
            let v = v.to_f64();
            (v > 0.0 && v.is_finite()).then(|| v.ln() - ld)
        };
        let eps_hi = match verified_crossing(|x| ln_gap(eng.delta_hi(x)), eps0, c, step, 1.0, |x| eng.delta_hi(x) <= dq) {
            Some(x) => x,
            None => {
                let (mut lo_x, mut hi_x) = (eps0 - 0.25, eps0 + 0.25);
                let mut k = 0;
                while eng.delta_hi(hi_x) > dq {
                    hi_x += 0.5 * (1 << k.min(6)) as f64;
                    k += 1;
                    if k > 60 {
                        return Err("smoothed inversion: no upper bracket found".into());
                    }
                }
                k = 0;
                while eng.delta_hi(lo_x) <= dq && lo_x > 0.0 {
                    lo_x -= 0.5 * (1 << k.min(6)) as f64;
                    k += 1;
                }
                boundary(hi_x, lo_x, step, |x| eng.delta_hi(x) <= dq)
            }
        };
        // ε_lo: largest x with δ_lo(x) ≥ δ, the same way
        let start = eps_hi - 10.0 * step - 0.01;
        let lo_x = match verified_crossing(|x| ln_gap(eng.delta_lo(x)), start, c, step, -1.0, |x| eng.delta_lo(x) >= dq) {
            Some(x) if x <= eps_hi => x,
            _ => {
                let mut lo_x = start;
                let mut k = 0;
                while eng.delta_lo(lo_x) < dq {
                    lo_x -= 0.01 * (1 << k.min(10)) as f64;
                    k += 1;
                    if k > 60 || lo_x < 0.0 {
                        lo_x = 0.0;
                        break;
                    }
                }
                boundary(lo_x, eps_hi, step, |x| eng.delta_lo(x) >= dq)
            }
        };
        // ε(δ) ≥ 0: a certified upper end below 0 means δ(0) ≤ δ(eps_hi) ≤ δ (δ is non-increasing), so ε = 0
        let res = SmoothResult {
            lo: fl(lo_x.max(0.0)),
            hi: fl(eps_hi.max(0.0)),
            w,
            c,
            h,
            nodes: n + 1,
            live: eng.live(),
            period,
            attempts: attempt,
            precise: false,
            fallback: None,
        };
        let width = res.width();
        let mid = 0.5 * (lo_x + eps_hi);
        let c_new = p.c.unwrap_or_else(|| saddle_of(sh, mid));
        let recentre = (c_new - c).abs() > 0.2 * c;
        if width <= p.width && !recentre {
            return Ok(res);
        }
        if !recentre && p.w.is_none() {
            w *= (p.width / width).sqrt() * 0.8;
        }
        eps0 = mid;
        c = c_new;
        last = Some(res);
        if p.w.is_some() && !recentre {
            break;
        }
    }
    Ok(last.unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// n queries of N_Z(0, σ²) with sensitivity μ (also for the 20-digit tier's tests).
    pub(super) fn mg(s2: &str, n: u32, mu: u32) -> GaussGroup {
        GaussGroup { sigma2: crate::num::parse_positive_rational(s2, "s").unwrap(), count: n, mu }
    }

    /// b = cμ/σ² from the two-double μ/σ²: the ball holds the 256-bit product and its radius is at most an
    /// ulp of its centre (as tight as the MPFR ball it replaces).
    #[test]
    fn scaled_two_double_holds_the_product_within_an_ulp() {
        let mut rng = crate::num::xorshift::XorShift(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        for _ in 0..2000 {
            let s2 = Rational::from(((next() % 10_000_000) + 1, (next() % 1000) + 1));
            let mu = 1 + (next() % 3) as u32;
            let c = (next() % 1_000_000) as f64 / 997.0 + 1e-3;
            let g = GaussGroup { sigma2: s2.clone(), count: 1, mu };
            let th = Thetas::new(std::slice::from_ref(&g));
            let k = th.consts[0];
            let b = scale_two_f64(k.mu_s2, k.mu_s2_r, c);
            let exact = Float::with_val(256, Float::with_val(256, &(Rational::from(mu) / s2.clone())) * c);
            let d = Float::with_val(256, &exact - b.m).abs().to_f64();
            assert!(d <= b.r, "c = {c}, sigma2 = {s2}, mu = {mu}: |b − exact| = {d:e} > radius {:e}", b.r);
            let ulp = f64::EPSILON * b.m.abs();
            assert!(b.r <= ulp, "c = {c}, sigma2 = {s2}: radius {:e} above an ulp {ulp:e}", b.r);
        }
    }

    /// ψ ≤ u and v ≤ ψ (section 2 of the module doc), checked pointwise with MPFR and the closed form
    /// S(y) = Φ(y/w) − e^{−y + w²/2} Φ(y/w − w) — an independent evaluation of the smoothed hockey stick.
    #[test]
    fn smoothing_bounds_hold_pointwise() {
        let p = 200;
        let phi = |z: &Float| -> Float {
            // Φ(z) = erfc(−z/√2)/2
            let s = Float::with_val(p, -z.clone()) / Float::with_val(p, 2).sqrt();
            s.erfc() / 2u32
        };
        for &(w, lam) in &[(1e-2f64, 1.1f64), (3e-3, 1.1), (1e-3, 1.5), (1e-4, 1.05)] {
            let wf = Float::with_val(p, w);
            let s_of = |y: &Float| -> Float {
                let a = phi(&Float::with_val(p, y / &wf));
                let e = Float::with_val(p, -y.clone() + Float::with_val(p, &wf * &wf) / 2u32).exp();
                let b = phi(&Float::with_val(p, Float::with_val(p, y / &wf) - &wf));
                a - e * b
            };
            let g = lam * w;
            let beta = w
                * (w * w / 2.0).exp()
                * (1.0 / (2.0 * std::f64::consts::PI).sqrt() + w)
                * (w * w / (2.0 * (lam * lam - 1.0)) + w * w / (2.0 * lam * lam)).exp();
            for i in -4000..=4000 {
                let y = Float::with_val(p, i as f64 * w / 400.0);
                let psi = if y > 0 { Float::with_val(p, 1) - Float::with_val(p, -y.clone()).exp() } else { Float::with_val(p, 0) };
                let u = s_of(&Float::with_val(p, &y + Float::with_val(p, wf.square_ref()) / 2u32));
                let bump = Float::with_val(p, -Float::with_val(p, y.square_ref()) / (2.0 * g * g)).exp() * beta;
                let v = s_of(&y) - bump;
                assert!(u >= psi, "u < psi at y = {y} (w = {w})");
                assert!(v <= psi, "v > psi at y = {y} (w = {w})");
            }
        }
    }

    /// ln M(c) from the θ-series against the direct sum Σ_x p(x) e^{cL(x)} in MPFR.
    #[test]
    fn mgf_theta_matches_direct_sum() {
        for &(s2, mu) in &[("0.3", 1u32), ("6/5", 1), ("5", 2), ("100", 1), ("7919/3", 3)] {
            let g = mg(s2, 1, mu);
            for &c in &[0.4f64, 1.3, 2.7] {
                let th = ln_mgf(std::slice::from_ref(&g), c);
                let s2f = Float::with_val(200, &g.sigma2);
                let muf = mu as f64;
                let (mut z, mut m) = (Float::with_val(200, 0), Float::with_val(200, 0));
                let r = (60.0 * s2f.to_f64().sqrt()) as i64 + 60;
                for x in -r..=r {
                    let px = Float::with_val(200, -(x * x) as f64 / 2.0) / &s2f;
                    let px = px.exp();
                    let l = Float::with_val(200, muf * muf - 2.0 * muf * x as f64) / Float::with_val(200, &s2f * 2u32);
                    m += Float::with_val(200, &px * Float::with_val(200, l * c).exp());
                    z += px;
                }
                let direct = (m / z).ln();
                let tol = Float::with_val(200, 1e-30);
                assert!(
                    th.lo <= Float::with_val(200, &direct + &tol) && Float::with_val(200, &direct - &tol) <= th.hi,
                    "{s2} {mu} {c}: {direct} not in {th}"
                );
                assert!(th.width() < 1e-25);
            }
        }
    }

    /// The secant search returns only points its certificate accepted, close to the crossing, and gives up
    /// (so that the caller bisects) when the bound is not a decreasing function near it.
    #[test]
    fn verified_crossing_returns_certified_points_near_the_root() {
        // ln δ(x) − ln δ₀ = −c(x − r)(1 + (x − r)²/10): smooth, decreasing, not linear
        for &(r, c) in &[(9.6f64, 4.5f64), (45.4, 1.26), (0.3, 0.05), (1e3, 30.0)] {
            let gap = |x: f64| Some(-c * (x - r) * (1.0 + (x - r).powi(2) / 10.0));
            let step = 1e-6;
            let hi = verified_crossing(gap, r + 0.7, c, step, 1.0, |x| x >= r).unwrap();
            assert!(hi >= r && hi - r <= step, "upper end {hi} for root {r}");
            let lo = verified_crossing(gap, r - 0.3, c, step, -1.0, |x| x <= r).unwrap();
            assert!(lo <= r && r - lo <= step, "lower end {lo} for root {r}");
            // a certificate that never passes near the root: no answer
            assert!(verified_crossing(gap, r + 0.7, c, step, 1.0, |x| x >= r + 1.0).is_none());
        }
        // increasing (a bound that is not a privacy profile): no answer
        assert!(verified_crossing(|x| Some(x - 3.0), 1.0, 2.0, 1e-6, 1.0, |_| true).is_none());
        // undefined bound: no answer
        assert!(verified_crossing(|_| None, 1.0, 2.0, 1e-6, 1.0, |_| true).is_none());
    }

    /// The ball θ-sums and ln M(c) that the engine uses against the 128-bit MPFR ones (which the test
    /// above checks against the direct sum): the narrow MPFR interval must lie inside the ball, and the
    /// ball must stay narrow (its radius is what the engine adds to every bound).
    #[test]
    fn ball_thetas_enclose_the_mpfr_ones() {
        let groups = [mg("0.02", 3, 1), mg("0.3", 7, 1), mg("6/5", 1, 1), mg("5", 40, 2), mg("50000/10001", 10, 1), mg("7919/3", 1000, 3)];
        let th = Thetas::new(&groups);
        let inside = |b: Ball, i: &Interval| Float::with_val(CP, b.lo()) <= i.lo && i.hi <= Float::with_val(CP, b.hi());
        for (i, g) in groups.iter().enumerate() {
            for &c in &[0.0f64, 0.05, 0.4, 1.3, 2.7, 13.25, 59.5] {
                let exact = theta_d(&g.sigma2, c, g.mu);
                let b = th.d(i, c);
                assert!(inside(b, &exact), "D: sigma2 {} c {c}: {exact} not inside {b:?}", g.sigma2);
                // worst here: σ² = 0.02 at half-integer cμ, where the θ-sum cancels to ~1% of its terms
                assert!(b.r <= 1e-11 * b.m.abs(), "D: sigma2 {} c {c}: radius {} too wide", g.sigma2, b.r);
            }
        }
        for &c in &[0.05f64, 0.4, 1.3, 2.7, 13.25] {
            let exact = ln_mgf(&groups, c);
            let b = th.ln_mgf(c).unwrap();
            assert!(inside(b, &exact), "ln M({c}): {exact} not inside {b:?}");
            assert!(b.r <= 1e-12 * b.m.abs().max(1.0), "ln M({c}): radius {} too wide", b.r);
        }
        // wide groups with many queries (redistricting-like: σ² = 4097·4099): ln D(c) − ln D(0) is ~0 and
        // must not cost an ulp of 1 per query
        let wide = [mg("16793603", 100_000, 1), mg("4102", 3000, 1)];
        let th = Thetas::new(&wide);
        for &c in &[0.3f64, 2.8416] {
            let exact = ln_mgf(&wide, c);
            let b = th.ln_mgf(c).unwrap();
            assert!(inside(b, &exact), "ln M({c}): {exact} not inside {b:?}");
            assert!(b.r <= 1e-14 * b.m.abs(), "wide groups, ln M({c}) = {}: radius {} too wide", b.m, b.r);
        }
    }

    /// r_q(t) in ball arithmetic against the direct complex sum Σ_x p(x) e^{(c+it)L(x)} / M(c) (MPFR).
    #[test]
    fn tilted_charfn_matches_direct_sum() {
        let c = 1.7;
        for &(s2, mu) in &[("6/5", 1u32), ("37/4", 2), ("300", 1)] {
            let g = mg(s2, 1, mu);
            let comps = prepare(std::slice::from_ref(&g), c).unwrap();
            for &t in &[0.0f64, 0.375, 3.0, 17.25, 123.5, 4096.125] {
                let r = comp_ratio(&comps[0], Ball::exact(t));
                let (re, im) = direct_ratio(&g, c, t);
                let dre = re - r.re;
                let dim = im - r.im;
                let d = (Float::with_val(200, dre.square_ref()) + Float::with_val(200, dim.square_ref())).sqrt().to_f64();
                assert!(d <= r.r, "{s2} mu {mu} t {t}: distance {d} > radius {}", r.r);
                assert!(r.r < 1e-9, "radius {} too wide", r.r);
            }
        }
    }

    /// r(t) = M(c+it)/M(c) of one query by the direct sum over the noise values (200 bits; independent of
    /// the θ-series): (Re, Im).
    fn direct_ratio(g: &GaussGroup, c: f64, t: f64) -> (Float, Float) {
        let s2f = Float::with_val(200, &g.sigma2);
        let muf = g.mu as f64;
        let (mut re, mut im, mut m) = (Float::with_val(200, 0), Float::with_val(200, 0), Float::with_val(200, 0));
        let rr = (60.0 * s2f.to_f64().sqrt()) as i64 + 60;
        for x in -rr..=rr {
            let px = (Float::with_val(200, -(x * x) as f64 / 2.0) / &s2f).exp();
            let l = Float::with_val(200, muf * muf - 2.0 * muf * x as f64) / Float::with_val(200, &s2f * 2u32);
            let mag = Float::with_val(200, &px * Float::with_val(200, &l * c).exp());
            let ph = Float::with_val(200, &l * t);
            re += Float::with_val(200, &mag * Float::with_val(200, ph.cos_ref()));
            im += Float::with_val(200, &mag * Float::with_val(200, ph.sin_ref()));
            m += mag;
        }
        (Float::with_val(200, &re / &m), Float::with_val(200, &im / &m))
    }

    /// The block bound of the node scan dominates |r(t)| at every point of the block (direct sums), for
    /// blocks near and away from the periods 2πσ²/μ, narrow and wide; a composition's block bound dominates
    /// the product of the points' moduli and certifies some block negligible (below 1e-30).
    #[test]
    fn block_bound_dominates_pointwise_values() {
        let c = 1.3;
        let groups = [mg("6/5", 1, 1), mg("37/4", 1, 2), mg("300", 1, 1)];
        for g in &groups {
            let comps = prepare(std::slice::from_ref(g), c).unwrap();
            let per = 2.0 * std::f64::consts::PI * g.sigma2.to_f64() / g.mu as f64;
            for &(t0, len) in &[(0.0, 0.5), (0.3, 2.0), (per - 0.05, 0.1), (per * 3.0 + 0.7, 0.01), (11.0, 40.0), (0.9 * per, 0.05 * per)] {
                let ln_b = block_ln_sup(&comps, t0, t0 + len, DEAD.ln());
                for i in 0..=16 {
                    let t = t0 + len * i as f64 / 16.0;
                    let (re, im) = direct_ratio(g, c, t);
                    let m = (Float::with_val(200, re.square_ref()) + Float::with_val(200, im.square_ref())).sqrt().to_f64();
                    assert!(
                        m.ln() <= ln_b + 1e-12,
                        "σ² {} block [{t0}, {}]: |r({t})| = {m:e} > bound {:e}",
                        g.sigma2,
                        t0 + len,
                        ln_b.exp()
                    );
                }
            }
        }
        // a composition: Π |r_q|^{n_q} at each point against the joint bound
        let comp_groups = vec![mg("6/5", 30, 1), mg("37/4", 20, 2), mg("300", 50, 1)];
        let comps = prepare(&comp_groups, c).unwrap();
        let mut certified_small = false;
        for &(t0, len) in &[(2.0, 3.0), (20.0, 1.0), (100.0, 50.0)] {
            let ln_b = block_ln_sup(&comps, t0, t0 + len, DEAD.ln());
            for i in 0..=8 {
                let t = t0 + len * i as f64 / 8.0;
                let ln_m: f64 = comp_groups
                    .iter()
                    .map(|g| {
                        let (re, im) = direct_ratio(g, c, t);
                        g.count as f64
                            * (Float::with_val(200, re.square_ref()) + Float::with_val(200, im.square_ref())).sqrt().to_f64().ln()
                    })
                    .sum();
                assert!(ln_m <= ln_b + 1e-9, "block [{t0}, {}]: ln|R({t})| = {ln_m} > {ln_b}", t0 + len);
            }
            certified_small |= ln_b < DEAD.ln();
        }
        assert!(certified_small, "the block bound never certified a negligible block");
    }

    /// Distance from ε to the nearest atom of the composed loss (offset Σ nμ²/(2σ²) + step·ℤ).
    fn atom_distance(gs: &[GaussGroup], eps: &Rational) -> f64 {
        let lat = Lattice::of(gs);
        // (ε − a)/s up to an integer
        let k = (eps.clone() / lat.step.clone() - lat.phase.clone()).to_f64();
        (k - k.round()).abs() * lat.step.to_f64()
    }

    /// Certified δ brackets contain the exact lattice δ (crate::pld, an independent method), and away from
    /// the loss atoms the bracket is second-order narrow. (When ε sits on an atom, the bump term picks up
    /// β × the atom's mass, β ≈ 0.4w: first order, still certified.)
    #[test]
    fn delta_bracket_contains_lattice_value() {
        let cases = [vec![mg("5", 3, 1)], vec![mg("2", 2, 1), mg("3", 4, 1), mg("7/2", 1, 2)], vec![mg("1/2", 6, 1), mg("9", 5, 1)]];
        let mut narrow_checked = 0;
        for gs in &cases {
            let prof = crate::pld::compose_groups(gs, 128).unwrap();
            for &e in &["1/2", "2", "37/10", "3.75", "4.31"] {
                let eps = crate::num::parse_rational(e).unwrap();
                let exact = prof.delta(&eps).delta;
                let r = delta_smooth(gs, &eps, &SmoothParams { w: Some(3e-4), ..Default::default() }).unwrap();
                assert!(r.lo <= exact.lo && exact.hi <= r.hi, "{gs:?} eps {e}: lattice {} not in [{}, {}]", exact.lo, r.lo, r.hi);
                if atom_distance(gs, &eps) > 20.0 * 1.1 * 3e-4 {
                    // second order: gap ≈ w²·(P[L>ε]/2 + λ f(ε)) ≪ 1e-4·δ at w = 3e-4
                    let rel = (Float::with_val(CP, &r.hi - &r.lo) / &exact.hi).to_f64();
                    assert!(rel < 1e-4, "{gs:?} eps {e}: relative width {rel}");
                    narrow_checked += 1;
                }
            }
        }
        assert!(narrow_checked >= 5, "only {narrow_checked} off-atom cases");
    }

    /// Certified ε brackets contain the lattice ε and are no wider than asked.
    #[test]
    fn epsilon_bracket_contains_lattice_value() {
        let cases = [
            vec![mg("2", 20, 1), mg("3", 40, 1), mg("7/2", 10, 2)],
            vec![mg("1/2", 6, 1), mg("9", 50, 1), mg("45", 200, 1)],
            vec![mg("5", 10, 1), mg("45", 30, 1), mg("15/2", 4, 2)],
        ];
        for gs in &cases {
            let prof = crate::pld::compose_groups(gs, 128).unwrap();
            for &d in &["1e-10", "1e-5"] {
                let delta = crate::num::parse_rational(d).unwrap();
                let exact = prof.epsilon(&delta).unwrap();
                let r = epsilon_smooth(gs, &delta, &SmoothParams { width: 1e-7, ..Default::default() }).unwrap();
                assert!(r.lo <= exact.lo && exact.hi <= r.hi, "{gs:?} delta {d}: lattice {} not in [{}, {}]", exact.lo, r.lo, r.hi);
                assert!(r.width() <= 1e-7, "{gs:?} delta {d}: width {}", r.width());
            }
        }
    }

    /// Random compositions (fixed seed): 2–4 groups, σ² = a/b with small b (so a lattice exists), counts
    /// 1–12, sensitivities 1–2, δ ∈ {1e-3, 1e-6, 1e-9}, requested widths 1e-2 and 1e-5 (node phases by
    /// recurrence, dead level from the width) and 1e-9 (libm phases, dead level 1e-30): the certified ε
    /// bracket always contains the lattice value (or the engine declines with its clear error on coarse
    /// lattices; at least 6 cases must run, at least 3 of them on a step fitted to the lattice's period).
    #[test]
    fn random_compositions_contain_lattice_epsilon() {
        let mut rng = crate::num::xorshift::XorShift(0x2545F4914F6CDD1D);
        let mut next = |m: u64| rng.next_u64() % m;
        let (mut checked, mut fitted) = (0, 0);
        for case in 0..12 {
            let k = 2 + next(3) as usize;
            let gs: Vec<GaussGroup> = (0..k)
                .map(|_| {
                    let b = 1 + next(4);
                    let a = b * (2 + next(30)) + next(b);
                    GaussGroup { sigma2: Rational::from((a, b)), count: 1 + next(12) as u32, mu: 1 + next(2) as u32 }
                })
                .collect();
            let d = ["1e-3", "1e-6", "1e-9"][case % 3];
            let delta = crate::num::parse_rational(d).unwrap();
            let Ok(prof) = crate::pld::compose_groups(&gs, 96) else { continue };
            let exact = prof.epsilon(&delta).unwrap();
            let width = [1e-2, 1e-5, 1e-9][(case / 3) % 3];
            match epsilon_smooth(&gs, &delta, &SmoothParams { width, ..Default::default() }) {
                Ok(r) => {
                    assert!(
                        r.lo <= exact.lo && exact.hi <= r.hi,
                        "case {case} {gs:?} delta {d} width {width:e}: lattice {} not in [{}, {}]",
                        exact.lo,
                        r.lo,
                        r.hi
                    );
                    checked += 1;
                    fitted += r.period.is_some() as usize;
                }
                Err(e) => assert!(e.contains("lattice method"), "case {case}: unexpected error {e}"),
            }
        }
        assert!(checked >= 6, "only {checked} random cases ran");
        assert!(fitted >= 3, "only {fitted} cases took the period-fitted step");
    }
    /// A table built on a period-fitted step evaluates one period and repeats it with the phase e^{iaTk}
    /// (see `Lattice`); every repeated node must agree with R(t_n) evaluated directly at its (ball) node:
    /// the two balls intersect. Cases: one group (a Census level), two groups on a common lattice, and a
    /// sensitivity-2 group (offset a/s not an integer, so the phases are not 1).
    #[test]
    fn period_fitted_table_matches_direct_evaluation() {
        let cases = [vec![mg("5", 10, 1)], vec![mg("2", 3, 1), mg("3", 4, 1)], vec![mg("7/2", 2, 2), mg("3", 1, 1)]];
        for gs in &cases {
            let comps = prepare(gs, 1.5).unwrap();
            let lat = Lattice::of(gs);
            let (step, n, m) = fit_to_period(&lat, 0.5, 1000);
            let m = m.expect("t up to 500 spans two periods: the step is fitted");
            assert!(step.h.m <= 0.5 && n as f64 * step.h.m >= 500.0, "{gs:?}: step {} and {n} nodes", step.h.m);
            let tab = Table::build(&comps, 1.5, step, n, 1e-30, Some((m, &lat))).unwrap();
            let mut repeated = 0;
            let mut phased = 0;
            for &(k, r) in &tab.live {
                let t = step.t(k);
                let direct = comps.iter().fold(CBall::ONE, |acc, cp| acc.mul(comp_ratio(cp, t).powu(cp.count)));
                let dist = ((direct.re - r.re).powi(2) + (direct.im - r.im).powi(2)).sqrt();
                assert!(dist <= (direct.r + r.r) * 1.01 + 1e-300, "{gs:?} node {k}: table {r:?}, direct {direct:?}");
                if k >= m {
                    repeated += 1;
                    let first = tab.live.iter().find(|&&(j, _)| j == k % m).expect("repeated from the first period").1;
                    phased += ((first.re - r.re).abs() + (first.im - r.im).abs() > 1e-6) as usize;
                }
            }
            assert!(repeated > 0, "{gs:?}: no node past the first period");
            if gs[0].mu == 2 {
                assert!(phased > 0, "{gs:?}: every phase was 1");
            }
        }
        // no common period within reach (the 2021 redistricting's 4097·4099-type denominators): unchanged
        let gs = [mg("16793617/4", 3, 1), mg("16801816/3", 2, 1)];
        let (step, n, m) = fit_to_period(&Lattice::of(&gs), 0.5, 400);
        assert!(m.is_none() && step.h == Ball::exact(0.5) && n == 400);
    }
}
