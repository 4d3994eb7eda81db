//! The moments of one epoch's likelihood ratio under random allocation, certified (`noise::allocation`).
//!
//! In standard units (noise 1, sensitivity μ) the epoch's pair is A = (1/t) Σᵢ N(μeᵢ, I) against
//! B = N(0, I) on ℝᵗ, and under B the likelihood ratio is the mean of t independent lognormals,
//!
//!   M = dA/dB = (1/t) Σᵢ Xᵢ,   Xᵢ = e^{μZᵢ − μ²/2},   E[X^k] = w_k = e^{μ²k(k−1)/2}   (Z ~ N(0, 1)).
//!
//! * **Positive moments** (the remove direction, D_α(A‖B) = ln E_B[M^α]/(α − 1)), exactly: by the
//!   multinomial theorem E[(Σ Xᵢ)^a] = a! [x^a] F(x)^t with F(x) = Σ_k w_k x^k/k!, the power of a
//!   truncated series with positive coefficients (no cancellation), by repeated squaring.
//! * **Negative moments** (the add direction, D_α(B‖A) = ln E_B[M^{−(α−1)}]/(α − 1)), an upper bound:
//!   for b > 0, m^{−b} = Γ(b)^{−1} ∫₀^∞ s^{b−1} e^{−sm} ds, so with ψ(θ) = E[e^{−θX}]
//!
//!   E[M^{−b}] = Γ(b)^{−1} ∫₀^∞ s^{b−1} ψ(s/t)^t ds.   (1)
//!
//!   ψ is bounded from above at the nodes of a grid in s by the least of
//!   - the even Taylor partial sums of e^{−y} (each at least e^{−y} for y ≥ 0): ψ(θ) ≤ Σ_{j≤2J} (−θ)^j w_j/j!,
//!     J = 1…4;
//!   - a Riemann sum in z (e^{−θX(z)} decreases in z, so each cell of Z takes its left end's value, the
//!     lower tail the value 1);
//!   - the bound at any smaller θ (ψ decreases).
//!
//!   Between two nodes ψ is below the chord of its logarithm (a Laplace transform is log-convex) and so
//!   below the chord of the bounds' logarithms (ψ(0) = 1 at the first node); s^{b−1} is below the
//!   exponential of the tangent of (b − 1) ln s at the cell's middle (the logarithm is concave, b ≥ 1).
//!   Near 0, where ln s bends most, the cell may instead take ψ(s/t)^t at its left node's bound and
//!   ∫ s^{b−1} exactly; each cell takes the smaller of the two. Each cell's integrand is then below
//!   one exponential of s, integrated exactly. Beyond the last node S, with k = ⌈t/2⌉ and the
//!   arithmetic–geometric mean inequality Σ_{i≤k} Xᵢ ≥ k e^{μ Σ Zᵢ/k − μ²/2},
//!
//!   Γ(b)^{−1} ∫_S^∞ s^{b−1} ψ(s/t)^t ds ≤ ψ(S/t)^{t−k} (t/k)^b e^{bμ²/2 + b²μ²/(2k)}.   (2)
//!
//! Both sides of (1) are checked against mpmath's quadrature in `scripts/reference/allocation.py`.

use crate::num::ball::Ball;
use crate::num::special::normal_cdf;
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Rational};

/// The largest order b (of E[M^{−b}]) or a (of E[M^a]) computed: beyond it the law takes the one-step
/// Gaussian's divergence, which bounds it (`noise::allocation`).
pub const MAX_ORDER: u64 = 256;

/// The cells of the sum over z ∈ [−Z_EDGE, Z_EDGE] (edges and middles exact binary fractions).
const Z_CELLS: usize = 512;
const Z_EDGE: f64 = 8.0;

/// The grid in s: from `S_FIRST`, steps of s/64 up to `S_STEP` (near 0, where ln s bends most),
/// steps of `S_STEP` up to `S_DENSE`, then growing by the factor 1 + `S_GROWTH`.
const S_FIRST: f64 = 1.0 / 1024.0;
const S_STEP: f64 = 0.05;
const S_DENSE: f64 = 40.0;
const S_GROWTH: f64 = 0.01;

/// E[M^a] for a = 0, 1, …, `a_max`, enclosed (module doc: the positive moments), at `prec` bits.
pub fn positive_moments(t: u64, mu2: &Rational, a_max: usize, prec: u32) -> Vec<Interval> {
    let p = prec + 32;
    let w = |k: usize| weight(mu2, k as u64, p);
    // F_k = w_k / k!
    let mut f = Vec::with_capacity(a_max + 1);
    let mut fact = Interval::one(p);
    for k in 0..=a_max {
        if k > 0 {
            fact = fact.mul_u64(k as u64);
        }
        f.push(w(k).div(&fact));
    }
    let power = crate::num::convolve::power(&f, t, a_max + 1);
    let mut out = Vec::with_capacity(a_max + 1);
    let mut fact = Interval::one(p);
    let ti = Interval::from_i64(t as i64, p);
    let mut t_pow = Interval::one(p);
    for (a, c) in power.iter().enumerate() {
        if a > 0 {
            fact = fact.mul_u64(a as u64);
            t_pow = t_pow.mul(&ti);
        }
        out.push(crate::noise::dgauss::round_to(&fact.mul(c).div(&t_pow), prec));
    }
    out
}

/// w_k = E[X^k] = e^{μ²k(k−1)/2}.
fn weight(mu2: &Rational, k: u64, prec: u32) -> Interval {
    let e = (mu2 * Rational::from(k * k.saturating_sub(1))) / 2u32;
    Interval::from_rational(&e, prec).exp()
}

/// Upper bounds of t·ln ψ(s/t) at the nodes of the grid in s (module doc), for the negative moments.
#[derive(Debug)]
pub struct PsiGrid {
    t: u64,
    mu2: Rational,
    prec: u32,
    /// the nodes s_j (exact binary fractions)
    s: Vec<f64>,
    /// upper bounds of t·ln ψ(s_j/t), non-increasing
    u: Vec<f64>,
}

impl PsiGrid {
    /// The grid from 0 up to at least `s_max`. The bounds of ψ at the nodes are evaluated in f64 ball
    /// arithmetic (`num::ball`), node by node in parallel; only their upper ends are kept.
    pub fn new(t: u64, mu2: &Rational, s_max: f64, prec: u32) -> PsiGrid {
        use rayon::prelude::*;
        let w: Vec<Ball> = (0..=8).map(|k| ball_of(&weight(mu2, k, 128))).collect();
        let riemann = Riemann::new(mu2, 128);
        let mut nodes = vec![0.0f64];
        let mut x = 0.0f64;
        while x < s_max {
            let h = if x < S_DENSE { (x / 64.0).clamp(S_FIRST, S_STEP) } else { x * S_GROWTH };
            // nodes on multiples of 2^-20: exact in f64 and in the intervals
            x = ((x + h) * 1_048_576.0).round() / 1_048_576.0;
            nodes.push(x);
        }
        let tb = Ball::exact(t as f64);
        let bound: Vec<f64> = nodes[1..]
            .par_iter()
            .map(|&x| {
                let theta = Ball::exact(x).div(tb).expect("t ≥ 1");
                let mut best = 1.0f64;
                for j in 1..=4 {
                    let pb = taylor_bound(theta, &w, 2 * j).hi();
                    if pb > 0.0 && pb < best {
                        best = pb;
                    }
                }
                if riemann.worth(theta.m, best) {
                    best = best.min(riemann.at(theta));
                }
                // t·ln(best), rounded up
                match Ball::exact(best).sub(Ball::exact(1.0)).ln_1p() {
                    Some(l) => tb.mul(l).hi(),
                    None => 0.0,
                }
            })
            .collect();
        let mut u = vec![0.0f64];
        for b in bound {
            let prev = *u.last().expect("the grid starts at 0");
            u.push(b.min(prev));
        }
        PsiGrid { t, mu2: mu2.clone(), prec, s: nodes, u }
    }

    /// The last node.
    pub fn end(&self) -> f64 {
        self.s.last().copied().unwrap_or(0.0)
    }

    /// An upper bound of E[M^{−b}], b ≥ 1 (module doc: (1) cell by cell, and (2) beyond the last node),
    /// as the point interval [U, U] (t ≥ 2); None if it overflows. The cells are summed in f64 ball
    /// arithmetic, each scaled by 1/Γ(b) through ln Γ(b) (enclosed in MPFR).
    pub fn negative_moment(&self, b: u64) -> Option<Interval> {
        let p = self.prec;
        // ln Γ(b) = Σ_{k<b} ln k, its lower end: dividing by less keeps an upper bound
        let ln_gamma = (2..b).fold(Interval::zero(p), |g, k| g.add(&Interval::from_i64(k as i64, p).ln()));
        let ln_gamma = Ball::exact(ln_gamma.lo().to_f64_round(Round::Down));
        let bm1 = Ball::exact((b - 1) as f64);
        let mut sum = Ball::exact(0.0);
        for j in 0..self.s.len() - 1 {
            let (a0, a1) = (Ball::exact(self.s[j]), Ball::exact(self.s[j + 1]));
            let delta = a1.sub(a0);
            let m = a0.add(a1).mul(Ball::exact(0.5));
            let chord = Ball::exact(self.u[j + 1]).sub(Ball::exact(self.u[j])).div(delta)?;
            // (b − 1) ln s ≤ (b − 1)(ln m + (s − m)/m)
            let ln_m = m.sub(Ball::exact(1.0)).ln_1p()?;
            let at_a0 = Ball::exact(self.u[j]).add(bm1.mul(ln_m.add(a0.sub(m).div(m)?))).sub(ln_gamma);
            let slope = chord.add(bm1.div(m)?);
            let cell = at_a0.exp().mul(delta).mul(Ball::exact(expm1_ratio_above(slope.mul(delta).hi())?));
            sum = sum.add(Ball::exact(cell.hi()));
        }
        let head = sum.hi();
        if !head.is_finite() {
            return None;
        }
        let hi = Float::with_val_round(p, self.tail(b).hi() + head, Round::Up).0;
        hi.is_finite().then(|| Interval::new(hi.clone(), hi))
    }

    /// (2): the rest beyond the last node (t ≥ 2).
    fn tail(&self, b: u64) -> Interval {
        let p = self.prec;
        let t = self.t;
        debug_assert!(t >= 2, "one step is the Gaussian mechanism itself, with exact moments");
        let k = t.div_ceil(2);
        let u = Interval::from_float(&Float::with_val(p, *self.u.last().expect("grid")), p);
        let frac = Interval::from_i64((t - k) as i64, p).div(&Interval::from_i64(t as i64, p));
        let mu2 = Interval::from_rational(&self.mu2, p);
        let bi = Interval::from_i64(b as i64, p);
        let ln_ratio = Interval::from_i64(t as i64, p).div(&Interval::from_i64(k as i64, p)).ln();
        let e = frac
            .mul(&u)
            .add(&bi.mul(&ln_ratio))
            .add(&bi.mul(&mu2).mul_pow2(-1))
            .add(&bi.mul(&bi).mul(&mu2).div(&Interval::from_i64(2 * k as i64, p)));
        e.exp()
    }
}

/// The last node the grid needs for E[M^{−b}] with b ≤ `b_max` (t ≥ 2): where (2)'s bound, with ψ(θ) ≈ e^{−θ},
/// is below e^{−60}.
pub fn s_needed(t: u64, mu2: f64, b_max: u64) -> f64 {
    let b = b_max as f64;
    let k = t.div_ceil(2) as f64;
    let t = t as f64;
    let rest = b * (t / k).ln() + b * mu2 / 2.0 + b * b * mu2 / (2.0 * k) + 60.0;
    (rest * t / (t - k)).max(3.0 * b + 40.0)
}

/// ψ(θ) ≤ Σ_{j≤n} (−θ)^j w_j/j! for even n.
fn taylor_bound(theta: Ball, w: &[Ball], n: usize) -> Ball {
    let mut sum = Ball::exact(1.0);
    let mut term = Ball::exact(1.0);
    for (j, wj) in w.iter().enumerate().take(n + 1).skip(1) {
        term = term.mul(theta).div(Ball::exact(j as f64)).expect("j ≥ 1").neg();
        sum = sum.add(term.mul(*wj));
    }
    sum
}

/// A ball holding the interval.
fn ball_of(x: &Interval) -> Ball {
    Ball::from_bounds(x.lo().to_f64_round(Round::Down), x.hi().to_f64_round(Round::Up))
}

/// The cell sum of ψ over Z's cells (module doc). On a cell, g(z) = e^{−θX(z)} is convex where θX ≥ 1 and
/// concave where θX ≤ 1 (g″ = μ²θX(θX − 1)g); it lies below its chord on a convex cell, below its tangent
/// at the middle c on a concave one, and below its left end's value on the cell holding the turn. Each
/// line integrates against φ exactly: ∫ φ = Φ(z₁) − Φ(z₀) and ∫ (z − c)φ = φ(z₀) − φ(z₁) − c ∫ φ.
struct Riemann {
    /// Φ(z₀) and the mass above the last edge
    below: Ball,
    above: Ball,
    /// each cell's mass ∫ φ and first moment about its middle ∫ (z − c)φ
    mass: Vec<Ball>,
    moment: Vec<Ball>,
    /// the cell width h, μ, X at the edges and at the middles
    h: Ball,
    mu: Ball,
    x: Vec<Ball>,
    x_mid: Vec<Ball>,
}

impl Riemann {
    /// The cells' constants, enclosed in MPFR at `prec` bits, then held as balls.
    fn new(mu2: &Rational, prec: u32) -> Riemann {
        let mu = Interval::from_rational(mu2, prec).sqrt();
        let half_mu2 = Interval::from_rational(mu2, prec).mul_pow2(-1);
        let at = |k: usize| Interval::from_float(&Float::with_val(prec, -Z_EDGE + Z_EDGE * k as f64 / Z_CELLS as f64), prec);
        // edges at even k, middles at odd k (the grid of half-cells, exact in binary)
        let edges: Vec<Interval> = (0..=Z_CELLS).map(|k| at(2 * k)).collect();
        let mids: Vec<Interval> = (0..Z_CELLS).map(|k| at(2 * k + 1)).collect();
        let cdf: Vec<Interval> = edges.iter().map(normal_cdf).collect();
        let pdf: Vec<Interval> = edges.iter().map(|z| density(z, prec)).collect();
        let mass: Vec<Interval> = cdf.windows(2).map(|c| c[1].sub(&c[0]).max(&Interval::zero(prec))).collect();
        let moment: Vec<Interval> = (0..Z_CELLS).map(|k| pdf[k].sub(&pdf[k + 1]).sub(&mids[k].mul(&mass[k]))).collect();
        let xf = |z: &Interval| ball_of(&mu.mul(z).sub(&half_mu2).exp());
        Riemann {
            below: ball_of(&cdf[0]),
            above: ball_of(&Interval::one(prec).sub(&cdf[Z_CELLS])),
            mass: mass.iter().map(ball_of).collect(),
            moment: moment.iter().map(ball_of).collect(),
            h: ball_of(&edges[1].sub(&edges[0])),
            mu: ball_of(&mu),
            x: edges.iter().map(xf).collect(),
            x_mid: mids.iter().map(xf).collect(),
        }
    }

    /// True if ψ, estimated in f64 (the middles' rule), is below `best` (the Taylor bounds' least) by more
    /// than the cell sum's own slack is likely to be.
    fn worth(&self, theta: f64, best: f64) -> bool {
        let est: f64 = self.mass.iter().zip(&self.x_mid).map(|(m, x)| m.m * (-theta * x.m).exp()).sum::<f64>();
        est + 1e-9 < best
    }

    /// The certified sum at θ: an upper bound of ψ(θ).
    fn at(&self, theta: Ball) -> f64 {
        let tiny = 1e-60;
        let g: Vec<Ball> = self.x.iter().map(|x| theta.mul(*x).neg().exp()).collect();
        let mut sum = self.below;
        for (k, m) in self.mass.iter().enumerate() {
            if g[k].hi() < tiny {
                // every later cell, and the mass above, is below g(z_k): bound their total by it
                return sum.add(Ball::exact(g[k].hi())).hi();
            }
            let (tx0, tx1) = (theta.mul(self.x[k]), theta.mul(self.x[k + 1]));
            let cell = if tx0.lo() >= 1.0 {
                // convex: the chord, g₀ ∫φ + (g₁ − g₀)/h ∫ (z − z₀)φ, with ∫ (z − z₀)φ = ∫ (z − c)φ + (h/2)∫φ
                let from_left = self.moment[k].add(m.mul(self.h).mul(Ball::exact(0.5)));
                let slope = g[k + 1].sub(g[k]).div(self.h).expect("h > 0");
                g[k].mul(*m).add(slope.mul(from_left))
            } else if tx1.hi() <= 1.0 {
                // concave: the tangent at the middle, g(c) ∫φ + g′(c) ∫ (z − c)φ, g′ = −μθX g
                let txc = theta.mul(self.x_mid[k]);
                let gc = txc.neg().exp();
                let slope = self.mu.mul(txc).mul(gc).neg();
                gc.mul(*m).add(slope.mul(self.moment[k]))
            } else {
                g[k].mul(*m)
            };
            sum = sum.add(cell);
        }
        sum.add(self.above.mul(g[Z_CELLS])).hi()
    }
}

/// The standard normal density at z, enclosed.
fn density(z: &Interval, prec: u32) -> Interval {
    let two_pi = Interval::pi(prec).mul_pow2(1);
    z.mul(z).mul_pow2(-1).neg().exp().div(&two_pi.sqrt())
}

/// An upper bound of (e^y − 1)/y (which increases in y; 1 at y = 0) at the point y, from libm's expm1
/// (relative error at most `LIBM_REL`) and one division; None if it overflows.
fn expm1_ratio_above(y: f64) -> Option<f64> {
    if y == 0.0 {
        return Some(1.0);
    }
    let v = y.exp_m1() / y * (1.0 + 2.0 * crate::num::ball::LIBM_REL);
    v.is_finite().then_some(v)
}

#[cfg(test)]
#[path = "moments_tests.rs"]
mod tests;
