//! The quadrature pieces the certified moment generating functions share (`mgf.rs`, `mgf_replace.rs`): the
//! node chunking and phase recurrence of the line sums, the layer cake of the decay bounds, the f64 planning sums.

use crate::num::cinterval::{CInterval, Phases};
use crate::num::fixed_phases::{phase_sums_fixed, ACC_BITS, NODE_BITS};
use crate::num::Interval;
use rayon::prelude::*;
use rug::float::Round;
use rug::ops::AddAssignRound;
use rug::{Assign, Float};

/// Nodes per parallel chunk of the quadrature (fixed, so the sums are the same on any number of threads).
pub const CHUNK: usize = 64;
/// Pieces of the partition of the lower bound of the decay.
pub const PIECES: usize = 256;

/// Most points of [`ln_gauss_trapezoid`]'s one window; wider spans (hi beyond ~800: a subsampled noise
/// multiplier below ~0.1 at large tilts) are two windows of 561 points each. (At 2^20 points a window took
/// ~20 ms, and the tilted engine's planning of `gauss:sigma=1e-4,q=1/3,n=3` 39 s.)
const TRAPEZOID_POINTS: usize = 1 << 14;

/// Planning: ln ∫ φ(x) e^{g(x)} dx in f64 by a trapezoid sum of step 0.05 on [−14, hi], relative to its
/// largest term. `g` is the tilted log-likelihood ratio, at most a log-sum-exp of a constant and of a term
/// linear in x whose Gaussian peak is at hi − 14: the integrand is within a constant factor of two unit
/// Gaussians at 0 and at hi − 14, so where [−14, hi] holds more than [`TRAPEZOID_POINTS`] points the sum is
/// taken on [−14, 14] and [hi − 28, hi] only (what lies between is below e^{−98} of either peak).
pub fn ln_gauss_trapezoid(g: impl Fn(f64) -> f64, hi: f64) -> f64 {
    ln_gauss_trapezoid_within(g, hi, TRAPEZOID_POINTS)
}

pub fn ln_gauss_trapezoid_within(g: impl Fn(f64) -> f64, hi: f64, points: usize) -> f64 {
    let f = |x: f64| -x * x / 2.0 + g(x);
    trapezoid(|_, x| f(x), f, hi, points)
}

/// The step of [`ln_gauss_trapezoid`]'s sum.
const STEP: f64 = 0.05;

/// `inner` at the points −14 + i·0.05, i ≤ [`TRAPEZOID_POINTS`], where [`ln_gauss_trapezoid`]'s first
/// window reads it: with g = κ·inner, [`ln_gauss_trapezoid_on`] then costs one exponential per point.
pub fn trapezoid_grid(inner: impl Fn(f64) -> f64) -> Vec<f64> {
    (0..=TRAPEZOID_POINTS).map(|i| -14.0 + i as f64 * STEP).map(inner).collect()
}

/// [`ln_gauss_trapezoid`] of g = κ·inner, the first window's values of `inner` read from `grid`
/// ([`trapezoid_grid`] of the same `inner`) where given: the same value, bit for bit.
pub fn ln_gauss_trapezoid_on(inner: impl Fn(f64) -> f64, kappa: f64, hi: f64, grid: Option<&[f64]>) -> f64 {
    let f = |x: f64| -x * x / 2.0 + kappa * inner(x);
    match grid {
        Some(grid) => trapezoid(|i, x| -x * x / 2.0 + kappa * grid[i], f, hi, TRAPEZOID_POINTS),
        None => trapezoid(|_, x| f(x), f, hi, TRAPEZOID_POINTS),
    }
}

/// The sum of [`ln_gauss_trapezoid`] of the log-integrand f, `first(i, x)` giving f at the i-th point x of
/// the window that starts at −14.
fn trapezoid(first: impl Fn(usize, f64) -> f64, f: impl Fn(f64) -> f64, hi: f64, points: usize) -> f64 {
    let step = STEP;
    let from_low = |hi: f64| -> Vec<f64> { (0..=((hi - -14.0) / step) as usize).map(|i| first(i, -14.0 + i as f64 * step)).collect() };
    let fs = if (hi + 14.0) / step <= points as f64 {
        from_low(hi)
    } else {
        let mut fs = from_low(14.0);
        let lo = hi - 28.0;
        fs.extend((0..=((hi - lo) / step) as usize).map(|i| f(lo + i as f64 * step)));
        fs
    };
    let top = fs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = fs.iter().map(|v| (v - top).exp()).sum();
    top + (s * step).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

/// Planning: ln Σ e^{t_i} in f64, relative to the largest term.
pub fn log_sum_exp(terms: &[f64]) -> f64 {
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

/// acc[k] += w e^{ikθ} for every k: the phases by a recurrence restarted from MPFR's sine and cosine before
/// the rectangles may have widened by [`RESTART_BITS`] bits (module doc).
pub fn add_phases(w: &Interval, theta: &Interval, acc: &mut [CInterval]) {
    let mut z = Phases::new(w, theta);
    for (k, a) in acc.iter_mut().enumerate() {
        if k > 0 {
            z.advance();
        }
        a.add_assign(z.current());
    }
}

/// The layer-cake components of a density bounded below by m_i on consecutive intervals of lengths Λ_i:
/// for levels 0 = y_0 < y_1 < … (the distinct m_i), the longest run of consecutive pieces with m_i ≥ y_j is
/// an interval inside {g ≥ y_j}, and Σ_j (y_j − y_{j−1}) 1_{I_j} ≤ g (at a point, the sum telescopes to the
/// largest level not above g). Returned as (height × length, length), rounded down.
pub fn layers(pieces: &[(Float, Float)]) -> Vec<(Float, Float)> {
    let p = 64;
    let mut levels: Vec<&Float> = pieces.iter().map(|(m, _)| m).filter(|m| **m > 0).collect();
    levels.sort_by(|a, b| a.partial_cmp(b).expect("invariant: finite lower bounds"));
    levels.dedup_by(|a, b| a == b);
    let mut out = Vec::with_capacity(levels.len());
    let mut below = Float::with_val(p, 0);
    // (in place: the same roundings as fresh values, without an allocation per piece)
    let (mut best, mut run) = (Float::new(p), Float::new(p));
    for y in levels {
        best.assign(0);
        run.assign(0);
        for (m, l) in pieces {
            if m >= y {
                run.add_assign_round(l, Round::Down);
                if run > best {
                    best.assign(&run);
                }
            } else {
                run.assign(0);
            }
        }
        let height = Float::with_val_round(p, y - &below, Round::Down).0;
        out.push((Float::with_val_round(p, &height * &best, Round::Down).0, best.clone()));
        below = y.clone();
    }
    out
}

/// Clenshaw–Curtis quadrature on [−1, 1] with the n + 1 Chebyshev points x_j = cos(jπ/n) (n even, n ≥ 2),
/// nodes and weights enclosed: w₀ = w_n = 1/(n² − 1) and, for 0 < j < n,
/// w_j = (2/n)(1 − Σ_{k=1}^{n/2−1} 2cos(2kjπ/n)/(4k² − 1) − (−1)^j/(n² − 1)) (Trefethen's `clencurt`,
/// [Tre13, Ch. 19]). The rule integrates the degree-n Chebyshev interpolant exactly, so its error on f is
/// at most 2‖f − p_n‖ ≤ 8Mρ^{−n}/(ρ − 1) for f analytic with |f| ≤ M in the Bernstein ellipse E_ρ
/// [Tre13, Thm 8.2]. The cosines come from one table of cos(2πm/n), m < n.
pub fn clenshaw_curtis(n: usize, prec: u32) -> (Vec<Interval>, Vec<Interval>) {
    assert!(n >= 2 && n.is_multiple_of(2), "Clenshaw-Curtis here takes an even degree n >= 2");
    let pi = Interval::pi(prec);
    let ni = Interval::from_i64(n as i64, prec);
    let nodes: Vec<Interval> = (0..=n).map(|j| pi.mul(&Interval::from_i64(j as i64, prec)).div(&ni).cos()).collect();
    let table: Vec<Interval> = (0..n).map(|m| pi.add(&pi).mul(&Interval::from_i64(m as i64, prec)).div(&ni).cos()).collect();
    let one = Interval::one(prec);
    let nn1 = Interval::from_i64((n * n - 1) as i64, prec);
    let ends = one.div(&nn1);
    let coef: Vec<Interval> =
        (1..n / 2).map(|k| Interval::from_i64(2, prec).div(&Interval::from_i64((4 * k * k - 1) as i64, prec))).collect();
    let weights: Vec<Interval> = (0..=n)
        .map(|j| {
            if j == 0 || j == n {
                return ends.clone();
            }
            let mut v = one.clone();
            for (i, c) in coef.iter().enumerate() {
                let k = i + 1;
                v = v.sub(&c.mul(&table[(k * j) % n]));
            }
            v = if j % 2 == 0 { v.sub(&ends) } else { v.add(&ends) };
            v.mul(&Interval::from_i64(2, prec)).div(&ni)
        })
        .collect();
    (nodes, weights)
}

/// An upper bound of |arg r(ℓ)| for r(ℓ) = 1 − q + q e^ℓ, |Im ℓ| ≤ β < π and Re ℓ ≤ A (`mgf_laplace_sub`,
/// `mgf_wor`): β (r lies in a sector), and where u = q e^A < 1 − q, asin(u/(1 − q)) = atan(x/√(1 − x²)),
/// x = u/(1 − q) (r = (1 − q) + u′e^{iy} with u′ ≤ u lies in the disc of radius u about 1 − q, seen from 0
/// under that angle), and for β ≤ π/2 atan(x sin β) (the real part 1 − q + u′cos y stays ≥ 1 − q).
pub fn arg_bound(q: &Interval, beta: &Interval, a_hi: &Interval) -> Interval {
    let p = q.prec();
    let one = Interval::one(p);
    let x = q.mul(&a_hi.exp()).div(&one.sub(q));
    let x = Interval::new(x.hi().clone(), x.hi().clone());
    let mut best = beta.hi().clone();
    if *x.hi() < 1 {
        let asin = x.div(&one.sub(&x.mul(&x)).sqrt()).atan();
        best = best.min(asin.hi());
    }
    let half_pi = Interval::pi(p).div(&Interval::from_i64(2, p));
    if *beta.hi() <= *half_pi.lo() {
        let atan = x.mul(&beta.sin()).atan();
        best = best.min(atan.hi());
    }
    Interval::new(best.clone(), best)
}

/// Planning: [`arg_bound`] in f64 (a hair above, so the plan does not promise what the bound will not give).
pub fn arg_bound_f64(q: f64, beta: f64, a: f64) -> f64 {
    let ratio = q * a.exp() / (1.0 - q);
    let mut theta = if ratio < 1.0 { beta.min(ratio.asin() * (1.0 + 1e-12)) } else { beta };
    if beta <= std::f64::consts::PI / 2.0 {
        theta = theta.min((ratio * beta.sin()).atan() * (1.0 + 1e-12));
    }
    theta
}

/// Planning: the cost of a node evaluation in fixed point against one in MPFR (measured: lines of the
/// subsampled Gaussian, 60 and 100 releases at q = 256/60000 and 20 digits, 4.0 → 0.29 s and 1.3 → 0.14 s
/// for the whole query; the sums alone more).
pub const FIXED_COST: f64 = 1.0 / 14.0;

/// Planning: whether [`chunked_sum`] is expected to keep its sums in fixed point, for `nodes` nodes,
/// k = 0..=`k_max`, node weights summing to about e^`ln_sum` and the rule's error about `tol`: the bound
/// grows by about 3·2^−125·|w| per step of the phase recurrence, 2^−126 more for the step's rounding, and
/// by two units of the sum per term, a unit about 2N·2^−184 of the largest weight (`num::fixed_phases`),
/// which must stay below half the tolerance (the rule's certified error is planned at or below it).
pub fn fixed_expected(nodes: usize, k_max: usize, tol: f64, ln_sum: f64) -> bool {
    let n = nodes as f64;
    let radius = (4.0 * k_max as f64 * 2f64.powi(-NODE_BITS) + 4.0 * n * n * 2f64.powi(1 - ACC_BITS)) * ln_sum.exp();
    radius <= 0.5 * tol
}

/// A line sum's terms: each node adds its (w, θ), in order, and [`chunked_sum`] sums w e^{ikθ} over them.
#[derive(Default)]
pub struct PhaseAcc(Vec<(Interval, Interval)>);

impl PhaseAcc {
    /// The term w e^{ikθ}, k = 0..=k_max.
    pub fn add(&mut self, w: &Interval, theta: &Interval) {
        self.0.push((w.clone(), theta.clone()));
    }
}

/// Σ over `nodes` quadrature nodes of each node's terms at k = 0..=k_max (`node(n, acc)` adds node n's, in
/// parallel chunks of [`CHUNK`] taken in order), each value widened by the rule's certified error `err`. In
/// fixed point (`num::fixed_phases`) where its bound r keeps r + err within the tolerance `tol` the rule was
/// planned for, or r within err where err is above tol/2 (then at most twice as wide as MPFR's sums), else in
/// MPFR intervals at `prec` summed in the same chunks in a fixed order: either way a function of the
/// arguments alone, on any number of threads.
pub fn chunked_sum(
    nodes: usize,
    k_max: usize,
    prec: u32,
    err: &Float,
    tol: f64,
    node: impl Fn(usize, &mut PhaseAcc) + Sync,
) -> Vec<CInterval> {
    let terms: Vec<(Interval, Interval)> = (0..nodes.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|b| {
            let mut acc = PhaseAcc::default();
            for n in b * CHUNK..((b + 1) * CHUNK).min(nodes) {
                node(n, &mut acc);
            }
            acc.0
        })
        .collect();
    let cap = ((tol - err.to_f64_round(Round::Up)) * (1.0 - 1e-15)).max(err.to_f64_round(Round::Down));
    let sum = phase_sums_fixed(&terms, k_max, prec, cap).unwrap_or_else(|| mpfr_sum(&terms, k_max, prec));
    sum.iter().map(|s| s.widen(err)).collect()
}

/// The sums of the `terms` in MPFR intervals at `prec`, by the phase recurrence ([`add_phases`]), in chunks
/// of [`CHUNK`] added in order.
fn mpfr_sum(terms: &[(Interval, Interval)], k_max: usize, prec: u32) -> Vec<CInterval> {
    let chunks: Vec<Vec<CInterval>> = terms
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut acc = vec![CInterval::real(Interval::zero(prec)); k_max + 1];
            for (w, theta) in chunk {
                add_phases(w, theta, &mut acc);
            }
            acc
        })
        .collect();
    let mut sum = vec![CInterval::real(Interval::zero(prec)); k_max + 1];
    for part in &chunks {
        for (s, v) in sum.iter_mut().zip(part) {
            *s = s.add(v);
        }
    }
    sum
}

/// The trapezoidal rule's window on ℝ for an integrand at most e^{ln_c}φ(x) on the left and
/// e^{ln_c + shift²/2}φ(x − shift) on the right, aiming at `tol` (`mgf.rs`, `mgf_replace.rs`): the first
/// node, a multiple of `step`, and the number of nodes.
pub fn trapezoid_window(step: f64, tol: f64, ln_c: f64, shift: f64) -> (f64, usize) {
    // (a tail factor C = e^{ln_c} below tol/4 needs no window on its side: the argument clamped at 0 — the add
    // direction of a high order, ln C = −κ_r ln(1 − q) < 0, made it negative, the window NaN and the line panic)
    let left = (2.0 * ((4.0 / tol).ln() + ln_c).max(0.0)).sqrt() + 1.0;
    let right = shift + (2.0 * ((4.0 / tol).ln() + ln_c + shift * shift / 2.0).max(0.0)).sqrt() + 1.0;
    let x_lo = (-left / step).floor() * step;
    (x_lo, ((right - x_lo) / step).ceil() as usize + 1)
}

#[cfg(test)]
mod tests {
    /// A tail factor C = e^{ln_c} below tol/4 needs no window on its side: the window is finite (its argument
    /// was negative there, the window NaN, and the line's nodes NaN).
    #[test]
    fn a_small_tail_factor_gives_a_finite_window() {
        let (x_lo, nodes) = super::trapezoid_window(1.0 / 64.0, 1e-26, -107.8, 0.0);
        assert!(x_lo == -1.0 && nodes == 129, "{x_lo} {nodes}");
        // (an ordinary factor: the window reaches past √(2 ln(4C/tol)) on both sides)
        let (x_lo, nodes) = super::trapezoid_window(1.0 / 64.0, 1e-26, 2.0, 0.0);
        let reach = (2.0 * ((4e26f64).ln() + 2.0)).sqrt();
        assert!(x_lo <= -reach && x_lo + nodes as f64 / 64.0 >= reach, "{x_lo} {nodes}");
    }

    /// A trapezoid rule of the normal characteristic function (257 nodes, 500 points): the fixed-point path
    /// is taken at tolerance 1e-30 and refused at 1e-40 (as `fixed_expected` plans), and both it and MPFR's
    /// sums hold the direct sums at 300 bits (MPFR's sine and cosine of each kθ, no recurrence).
    #[test]
    fn fixed_point_and_mpfr_phase_sums_hold_the_direct_sums() {
        use super::*;
        let (nodes, k_max, prec) = (257usize, 500usize, 160u32);
        let step = Float::with_val(prec, 0.0625);
        let h = Float::with_val(prec, 0.05);
        let x = |n: usize| Interval::from_float(&Float::with_val(prec, -8 + Float::with_val(prec, &step * n as u32)), prec);
        let weight = |x: &Interval| {
            let ln_norm = Interval::pi(prec).add(&Interval::pi(prec)).ln().mul(&Interval::from_float(&Float::with_val(prec, 0.5), prec));
            x.mul(x)
                .mul(&Interval::from_float(&Float::with_val(prec, -0.5), prec))
                .sub(&ln_norm)
                .exp()
                .mul(&Interval::from_float(&step, prec))
        };
        let node = |n: usize, acc: &mut PhaseAcc| {
            let x = x(n);
            acc.add(&weight(&x), &x.mul(&Interval::from_float(&h, prec)));
        };
        let mut terms = PhaseAcc::default();
        (0..nodes).for_each(|n| node(n, &mut terms));
        let zero = Float::with_val(prec, 0);
        assert!(fixed_expected(nodes, k_max, 1e-30, 0.0) && !fixed_expected(nodes, k_max, 1e-40, 0.0));
        let fixed = phase_sums_fixed(&terms.0, k_max, prec, 1e-30).expect("fixed point holds a tolerance of 1e-30");
        assert!(phase_sums_fixed(&terms.0, k_max, prec, 1e-40).is_none(), "fixed point cannot hold 1e-40");
        let mpfr = mpfr_sum(&terms.0, k_max, prec);
        let chunked = chunked_sum(nodes, k_max, prec, &zero, 1e-30, node);
        let chunked_mpfr = chunked_sum(nodes, k_max, prec, &zero, 1e-40, node);
        for k in (0..=k_max).step_by(7) {
            let (mut re, mut im) = (Float::with_val(300, 0), Float::with_val(300, 0));
            for n in 0..nodes {
                let xn = Float::with_val(300, -8 + Float::with_val(300, &step * n as u32));
                let w = Float::with_val(300, -Float::with_val(300, xn.square_ref()) / 2u32).exp()
                    / (Float::with_val(300, rug::float::Constant::Pi) * 2u32).sqrt()
                    * &step;
                let a = Float::with_val(300, &xn * &h) * k as u32;
                re += Float::with_val(300, a.cos_ref()) * &w;
                im += Float::with_val(300, a.sin_ref()) * &w;
            }
            for (name, z) in [("fixed-point", &fixed[k]), ("MPFR", &mpfr[k]), ("chunked", &chunked[k]), ("chunked MPFR", &chunked_mpfr[k])]
            {
                assert!(
                    *z.re().lo() <= re && re <= *z.re().hi() && *z.im().lo() <= im && im <= *z.im().hi(),
                    "k = {k}: the {name} sum {z:?} misses ({re}, {im})"
                );
            }
            let width = Float::with_val(prec, fixed[k].re().hi() - fixed[k].re().lo()).to_f64();
            assert!(width <= 1e-30, "k = {k}: the fixed-point width {width:e} exceeds the tolerance");
            assert_eq!(chunked[k].re().hi(), fixed[k].re().hi(), "k = {k}: chunked_sum did not take fixed point");
            assert_eq!(chunked_mpfr[k].re().hi(), mpfr[k].re().hi(), "k = {k}: chunked_sum did not take MPFR");
        }
    }
}
