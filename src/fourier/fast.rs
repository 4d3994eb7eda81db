//! A fast variant of the Fourier path: saddle-point contour + periodic trapezoidal rule.
//!
//! For V = Σ_i k_i S_i (integer-valued, symmetric) with characteristic function φ(z) = E e^{izV} — entire
//! and 2π-periodic, built from the θ-functions of (A.3) — and any λ > 0,
//!
//!   P[V ≥ A] = (1/2π) ∫_{-π}^{π} g(t) dt,   g(t) = φ(t − iλ) e^{-A(λ+it)} / (1 − e^{-(λ+it)})     (★)
//!
//! (expand φ(t − iλ) = Σ_v p(v) e^{λv} e^{ivt} and the geometric series Σ_{m≥A} e^{-m(λ+it)}; the
//! t-integral keeps v = m). This is the inversion integral of Prop. A.13 moved off the real axis
//! (exponential tilting): with λ at the saddle point λ ≈ A/Var(V) the integrand has the size of the
//! answer, so there is no cancellation (the paper's F(t) is of size 10⁵ for an answer of 10⁻¹⁰), and
//! the second term of (A.9) (~10⁻¹⁹, "smaller than the precision limit of Python's floating point",
//! §A.6) comes out to full relative precision.
//!
//! Quadrature. g is 2π-periodic and analytic, and the M-point trapezoidal rule is exact up to aliasing:
//!
//!   T_M − P[V ≥ A] = Σ_{j≥1} Σ_{m≥A} [p(m + jM) e^{λjM} + p(m − jM) e^{-λjM}]  ≥ 0,
//!
//! bounded by  e^{-λM}/(1 − e^{-λM})  +  e^{-λ(2A+M)} Φ(2λ)/(1 − e^{-λM}),  Φ(μ) = E e^{μV} ≤ e^{μ² Var/2}
//! (sub-Gaussianity of N_Z, Corollary 17 of the paper's ref. 28 / (A.2)). Only nodes with |t| ≤ u are
//! evaluated; the dropped ones are bounded with |φ(t − iλ)| ≤ e^{λ²Var/2} φ(t), φ(t) ≥ 0, and the
//! monotonicity of each factor between multiples of π/k_i (Prop. A.6), cell by cell (the paper's "sieve"
//! of App. D.3). With the defaults this needs a few hundred evaluations of g instead of 10⁷.
//!
//! By default φ is the *exact* characteristic function of the discrete Gaussian sums,
//! φ(t) = Π_i ψ_i(k_i t)^{n_i}, ψ(s) = Σ_j e^{-σ²(s−2πj)²/2}/θ₃(0, e^{-2π²σ²}) (A.3), so no
//! Prop. A.12 (local-CLT) error is incurred at all; `CharSource::Nu` uses the paper's ν instead.

use crate::error::Fallible;
use crate::fourier::theta::{ln_periodized_cball, ln_sup_periodized, ln_theta0_ball, periodized_c_mpfr, pi_f, theta0, theta0_mpfr, CF};
use crate::fourier::{first_above, paper_lattice, var_proxy, LatticeGroup, MechLattice};
use crate::model::GaussGroup;
use crate::num::ball::{up, Ball, BallSum, CBall, U};
use rayon::prelude::*;
use rug::{Float, Rational};
use std::f64::consts::PI;
use std::time::Instant;

/// Which characteristic function to invert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharSource {
    /// exact: Π_i ψ_i(k_i t)^{n_i} (A.3) — the law of Σ_i k_i Σ_j X_ij itself
    Exact,
    /// the paper's measure ν of Prop. A.12: Π_i P_{n_iσ_i²}(k_i t)
    Nu,
}

#[derive(Clone, Debug)]
pub struct FastParams {
    pub source: CharSource,
    /// the aliasing and truncation bounds are driven below 2^-tail_bits (relative to the answer's scale)
    pub tail_bits: u32,
    /// None: f64 / Complex<f64>; Some(bits): MPFR at that precision (value also in `value_mpfr`)
    pub prec: Option<u32>,
    /// cells of the truncation (sieve) bound on [u, π]
    pub sieve_cells: usize,
}

impl Default for FastParams {
    fn default() -> Self {
        FastParams { source: CharSource::Exact, tail_bits: 120, prec: None, sieve_cells: 20_000 }
    }
}

#[derive(Clone, Debug)]
pub struct FastValue {
    /// P[V ≥ A] (f64; the MPFR value rounded when `prec` is set)
    pub value: f64,
    /// the MPFR value when `prec` was set
    pub value_mpfr: Option<Float>,
    /// alias + truncation + rounding (a bound in f64, where the rounding is carried by balls)
    pub error_bound: f64,
    /// aliasing bound of the M-point trapezoidal rule (the rule overestimates by at most this)
    pub alias_bound: f64,
    /// bound on the nodes |t| > u not evaluated
    pub trunc_bound: f64,
    /// the rounding error: f64, a bound carried by ball arithmetic; MPFR (`prec`), an estimate 2^-prec × Σ|g|
    pub rounding_est: f64,
    /// threshold A of P[V ≥ A] actually inverted (after the symmetry flip for A ≤ 0)
    pub a: i64,
    pub lambda: f64,
    /// trapezoid points per period and the number actually evaluated
    pub m: u64,
    pub nodes: u64,
    pub u: f64,
    pub seconds: f64,
}

/// δ(ε) of a composition by the fast variant, both terms of (A.9).
#[derive(Clone, Debug)]
pub struct FastDelta {
    pub first: FastValue,
    pub second_prob: FastValue,
    /// e^ε second_prob
    pub second: f64,
    pub delta: f64,
    pub bound: f64,
    /// the MPFR values (first, second = e^ε·P, delta) when `prec` was set
    pub mpfr: Option<(Float, Float, Float)>,
}

struct Setup {
    ks: Vec<f64>,
    vs: Vec<f64>,
    ns: Vec<f64>,
    ln_norm: Vec<f64>,
    /// the variances and ln-normalisers enclosed, for the evaluation in ball arithmetic
    vballs: Vec<Ball>,
    ln_norm_balls: Vec<Ball>,
}

impl Setup {
    fn new(groups: &[LatticeGroup], src: CharSource) -> Setup {
        let ks = groups.iter().map(|g| g.k as f64).collect();
        let (vs, ns, ln_norm): (Vec<f64>, Vec<f64>, Vec<f64>) = match src {
            CharSource::Exact => (
                groups.iter().map(|g| g.sigma2_f64()).collect(),
                groups.iter().map(|g| g.n as f64).collect(),
                groups.iter().map(|g| theta0(g.sigma2_f64()).ln()).collect(),
            ),
            CharSource::Nu => {
                (groups.iter().map(|g| g.b2()).collect(), groups.iter().map(|_| 1.0).collect(), groups.iter().map(|_| 0.0).collect())
            }
        };
        // σ² (or nσ²) rounded to f64: at most two roundings
        let vballs: Vec<Ball> = vs.iter().map(|&v: &f64| Ball::new(v, up(2.0 * U * v))).collect();
        let ln_norm_balls = match src {
            CharSource::Exact => vballs.iter().map(|v| ln_theta0_ball(*v)).collect(),
            CharSource::Nu => vballs.iter().map(|_| Ball::exact(0.0)).collect(),
        };
        Setup { ks, vs, ns, ln_norm, vballs, ln_norm_balls }
    }

    /// The summand of (★) at the node t (a ball) with λ exact, enclosed: Re g(t), every rounding and libm
    /// error carried (`num::ball`).
    fn g_re_ball(&self, t: Ball, lambda: f64, a: f64) -> Ball {
        let (mut re, mut im) = (Ball::exact(0.0), Ball::exact(0.0));
        for i in 0..self.ks.len() {
            let k = Ball::exact(self.ks[i]);
            let (lr, li) = ln_periodized_cball(k.mul(t), k.mul(Ball::exact(-lambda)), self.vballs[i]);
            let n = Ball::exact(self.ns[i]);
            re = re.add(lr.sub(self.ln_norm_balls[i]).mul(n));
            im = im.add(li.mul(n));
        }
        // − (λ + it)·A
        re = re.sub(Ball::exact(lambda).mul(Ball::exact(a)));
        im = im.sub(t.mul(Ball::exact(a)));
        let num = CBall::exp_of(re, im);
        let den = CBall::ONE.add(CBall::exp_of(Ball::exact(-lambda), t.neg()).scale_exact(-1.0));
        let n2 = den.re * den.re + den.im * den.im;
        if !(n2.is_normal() && n2.sqrt() * (1.0 - 4.0 * U) > den.r) {
            return Ball::new(0.0, f64::INFINITY);
        }
        num.mul(den.inv()).re_ball()
    }

    /// ln sup_{t∈[t0,t1]} φ(t) (φ ≥ 0 on the real line)
    fn ln_sup_phi(&self, t0: f64, t1: f64) -> f64 {
        (0..self.ks.len()).map(|i| self.ns[i] * (ln_sup_periodized(self.ks[i], t0, t1, self.vs[i]) - self.ln_norm[i])).sum()
    }
}

/// Total mass of the inverted measure (1 for the exact law; Π θ₃(0, e^{-2π²B_i²}) for ν).
fn total_mass(groups: &[LatticeGroup], src: CharSource) -> f64 {
    match src {
        CharSource::Exact => 1.0,
        CharSource::Nu => groups.iter().map(|g| theta0(g.b2())).product(),
    }
}

/// P[V ≥ a] (or ν(V ≥ a)) by (★).
pub fn tail_ge(groups: &[LatticeGroup], a: i64, p: &FastParams) -> FastValue {
    let mass = total_mass(groups, p.source);
    if a <= 0 {
        // P[V ≥ a] = mass − P[V ≥ 1 − a] (V symmetric)
        let mut v = tail_ge(groups, 1 - a, p);
        v.value = mass - v.value;
        // the subtraction's rounding, and ν's mass (a θ-sum in f64) to a few ulps
        v.error_bound = up(v.error_bound + 4.0 * U * (mass + v.value.abs()));
        v.value_mpfr = v.value_mpfr.map(|x| Float::with_val(x.prec(), mass) - x);
        return v;
    }
    let t0 = Instant::now();
    let st = Setup::new(groups, p.source);
    let var = var_proxy(groups);
    let sd = var.sqrt();
    let af = a as f64;
    let lambda = (af / var).max(4.0 / sd);
    let bits_ln = p.tail_bits as f64 * std::f64::consts::LN_2;
    // scale of the answer (saddle-point estimate) and the prefactor of |g(t)| ≤ pref·φ(t)
    let ln_pref = lambda * lambda * var / 2.0 - lambda * af - (-(-lambda).exp_m1()).ln();
    let ln_scale = lambda * lambda * var / 2.0 - lambda * af - (lambda * (2.0 * PI * var).sqrt()).ln();
    let target_ln = ln_scale - bits_ln;
    // M: the aliasing bound (mass·e^{-λM} dominates) below e^{target}
    let m = ((mass.ln() - target_ln + 5.0) / lambda).ceil().max(16.0) as u64;
    let mf = m as f64;
    let q = (-lambda * mf).exp();
    let alias = mass * q / (1.0 - q) + mass * (-lambda * (2.0 * af + mf) + 2.0 * lambda * lambda * var).exp() / (1.0 - q);
    // Node selection (the "sieve" of App. D.3, made adaptive): split [0, π] into cells, bound φ on each by
    // the monotonicity of every factor between multiples of π/k_i (Prop. A.6), and evaluate only the nodes
    // of cells whose bound is not negligible; the dropped cells' bounds are summed into `trunc`.
    let cells = p.sieve_cells.max(16);
    let du = PI / cells as f64;
    let cell_ln: Vec<f64> = (0..cells)
        .map(|c| {
            let c0 = c as f64 * du;
            let nodes_in = du * mf / (2.0 * PI) + 1.0;
            (2.0 / mf).ln() + ln_pref + st.ln_sup_phi(c0, c0 + du) + nodes_in.ln()
        })
        .collect();
    let keep_below = target_ln - (cells as f64).ln();
    let mut trunc = 0.0;
    let half = m / 2; // nodes l = 0..=half cover t ∈ [0, π]
    let mut ls: Vec<u64> = Vec::new();
    let mut u: f64 = 0.0;
    for (c, &lnb) in cell_ln.iter().enumerate() {
        let l0 = ((c as f64 * du) * mf / (2.0 * PI)).ceil() as u64;
        let l1 = (((c + 1) as f64 * du) * mf / (2.0 * PI)).ceil() as u64;
        let l1 = if c + 1 == cells { half + 1 } else { l1.min(half + 1) };
        if lnb <= keep_below {
            trunc += lnb.exp();
        } else {
            ls.extend(l0..l1);
            u = u.max((c + 1) as f64 * du);
        }
    }
    let nodes = ls.len() as u64;
    let (value, value_mpfr, rounding) = match p.prec {
        None => {
            let (v, r) = ball_sum(&st, &ls, lambda, af, m);
            (v, None, r)
        }
        Some(prec) => {
            let v = tail_ge_mpfr(groups, a, lambda, m, &ls, p.source, prec);
            let r = v.to_f64().abs() * 2f64.powi(-(prec as i32) + 8) * nodes as f64;
            (v.to_f64(), Some(v), r)
        }
    };
    // the aliasing and truncation bounds are sums of exponentials of f64 sums: their own evaluation errs
    // by far less than 1e-9 relative; inflated by that
    let (alias, trunc) = (alias * (1.0 + 1e-9), trunc * (1.0 + 1e-9));
    FastValue {
        value,
        value_mpfr,
        error_bound: up(alias + trunc + rounding),
        alias_bound: alias,
        trunc_bound: trunc,
        rounding_est: rounding,
        a,
        lambda,
        m,
        nodes,
        u,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// The trapezoidal sum of (★) over the nodes `ls` in ball arithmetic: the centre is the f64 sum, the
/// radius bounds all its rounding.
fn ball_sum(st: &Setup, ls: &[u64], lambda: f64, af: f64, m: u64) -> (f64, f64) {
    let mf = m as f64;
    let weight = |l: u64| if l == 0 || 2 * l == m { 1.0 } else { 2.0 };
    let parts: Vec<BallSum> = ls
        .par_chunks(256)
        .map(|chunk| {
            let mut acc = BallSum::default();
            for &l in chunk {
                // t = 2πl/M: the ball of π times the exact 2l, then one division
                let t = crate::num::ball::PI.mul(Ball::exact(2.0 * l as f64)).div(Ball::exact(mf)).unwrap_or(Ball::new(0.0, f64::INFINITY));
                let g = st.g_re_ball(t, lambda, af);
                acc.add(Ball::new(weight(l) * g.m, up(weight(l) * g.r + U * (weight(l) * g.m).abs())));
            }
            acc
        })
        .collect();
    let mut tot = BallSum::default();
    for p in &parts {
        tot.merge(p);
    }
    let v = tot.ball().div(Ball::exact(mf)).unwrap_or(Ball::new(0.0, f64::INFINITY));
    (v.m, v.r)
}

/// The trapezoidal sum of (★) in MPFR.
fn tail_ge_mpfr(groups: &[LatticeGroup], a: i64, lambda: f64, m: u64, ls: &[u64], src: CharSource, prec: u32) -> Float {
    let p = prec + 32;
    let pi = pi_f(p);
    let lam = Float::with_val(p, lambda);
    let norms: Vec<Float> = groups
        .iter()
        .map(|g| match src {
            CharSource::Exact => theta0_mpfr(&Float::with_val(p, &g.sigma2), p),
            CharSource::Nu => Float::with_val(p, 1),
        })
        .collect();
    let vals: Vec<Float> = ls
        .par_iter()
        .map(|&l| {
            let t = Float::with_val(p, Float::with_val(p, &pi * (2 * l) as f64) / m as f64);
            let mut prod = CF::real(Float::with_val(p, 1));
            for (g, nrm) in groups.iter().zip(&norms) {
                let x = Float::with_val(p, &t * g.k);
                let y = Float::with_val(p, &lam * g.k);
                let (v, pow) = match src {
                    CharSource::Exact => (Float::with_val(p, &g.sigma2), g.n),
                    CharSource::Nu => (Float::with_val(p, &g.sigma2 * Rational::from(g.n)), 1),
                };
                let psi = periodized_c_mpfr(&x, &y, &v, p);
                let psi = CF::new(Float::with_val(p, &psi.re / nrm), Float::with_val(p, &psi.im / nrm));
                prod = prod.mul(&psi.powu(pow));
            }
            let ea = CF::exp(&Float::with_val(p, &lam * -a), &Float::with_val(p, &t * -a));
            let e1 = CF::exp(&Float::with_val(p, -&lam), &Float::with_val(p, -&t));
            let den = CF::new(Float::with_val(p, 1 - e1.re), -e1.im);
            let g = prod.mul(&ea).div(&den);
            let w = if l == 0 || 2 * l == m { 1u32 } else { 2u32 };
            g.re * w
        })
        .collect();
    let mut s = Float::with_val(p, 0);
    for v in vals {
        s += v;
    }
    Float::with_val(prec, s / m as f64)
}

/// P[V > m] = P[V ≥ ⌊m⌋ + 1].
pub fn tail_gt(groups: &[LatticeGroup], m: &Rational, p: &FastParams) -> Fallible<FastValue> {
    Ok(tail_ge(groups, first_above(m)?, p))
}

/// The paper's first term P[Σ_i a_i Σ_j X_ij > t_ε] for groups (a_i, σ_i², n_i) on ℤ/L.
pub fn first_term_fast(groups: &[(Rational, Rational, u32)], t_eps: &Rational, l: u32, p: &FastParams) -> Fallible<FastValue> {
    let (lg, m) = paper_lattice(groups, t_eps, l)?;
    tail_gt(&lg, &m, p)
}

/// δ(ε) = P[V > (ε−ρ)/h] − e^ε P[V > (ε+ρ)/h] (A.9) by the fast variant.
pub fn delta_fast(mechs: &[GaussGroup], eps: &Rational, p: &FastParams) -> Fallible<FastDelta> {
    let ml = MechLattice::new(mechs)?;
    let (m1, m2) = ml.thresholds(eps);
    let first = tail_gt(&ml.groups, &m1, p)?;
    let second_prob = tail_gt(&ml.groups, &m2, p)?;
    let mpfr = match (&first.value_mpfr, &second_prob.value_mpfr) {
        (Some(f), Some(s)) => {
            let pr = f.prec();
            let ee = Float::with_val(pr, eps).exp();
            let sec = Float::with_val(pr, s * &ee);
            let d = Float::with_val(pr, f - &sec);
            Some((f.clone(), sec, d))
        }
        _ => None,
    };
    // e^ε·P and the difference in ball arithmetic (ε rounded to f64: one relative U)
    let ef = eps.to_f64();
    let eb = Ball::new(ef, U * ef.abs()).exp();
    let second = eb.mul(Ball::new(second_prob.value, 0.0));
    let delta = Ball::new(first.value, 0.0).sub(second);
    Ok(FastDelta {
        delta: delta.m,
        second: second.m,
        bound: up(first.error_bound + eb.hi() * second_prob.error_bound + delta.r),
        first,
        second_prob,
        mpfr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::pld::compose::compose_groups;

    fn mechs(spec: &[(&str, u32)], rho: &str) -> Vec<GaussGroup> {
        let rho = parse_rational(rho).unwrap();
        spec.iter()
            .map(|(a, n)| GaussGroup {
                sigma2: Rational::from(10) / (Rational::from(2) * parse_rational(a).unwrap() * rho.clone()),
                count: *n,
                mu: 1,
            })
            .collect()
    }

    /// Fast variant vs the exact lattice accountant on a 3-level sub-composition of the DHC:
    /// both terms of (A.9), f64 (1e-12 relative) and MPFR (1e-30 relative).
    #[test]
    fn fourier_fast_vs_lattice_subcomposition() {
        let ms = mechs(&[("0.274", 10), ("0.085", 10), ("0.02", 10)], "3.65");
        let prof = compose_groups(&ms, 128).unwrap();
        for eps in ["2", "6.5", "9.25"] {
            let e = parse_rational(eps).unwrap();
            let dv = prof.delta(&e);
            let f = delta_fast(&ms, &e, &FastParams::default()).unwrap();
            let lat1 = dv.first.mid().to_f64();
            let lat2 = dv.second.mid().to_f64();
            assert!((f.first.value / lat1 - 1.0).abs() < 1e-12, "eps {eps}: first {} vs {}", f.first.value, lat1);
            assert!((f.second / lat2 - 1.0).abs() < 1e-12, "eps {eps}: second {} vs {}", f.second, lat2);
            // the printed error bound holds (it includes the rounding, #57): the certified lattice δ lies
            // within it, and it is not vacuous
            let (lo, hi) = (dv.delta.lo().to_f64(), dv.delta.hi().to_f64());
            assert!(f.delta - f.bound <= hi && lo <= f.delta + f.bound, "eps {eps}: {} ± {} vs [{lo}, {hi}]", f.delta, f.bound);
            assert!(f.bound < 1e-9 * f.delta.abs(), "eps {eps}: bound {} for {}", f.bound, f.delta);
            let pm = FastParams { prec: Some(128), tail_bits: 128, ..FastParams::default() };
            let g = delta_fast(&ms, &e, &pm).unwrap();
            let (f1, s1, _) = g.mpfr.unwrap();
            let r1 = Float::with_val(128, Float::with_val(128, &f1 - dv.first.mid()) / dv.first.mid()).abs().to_f64();
            let r2 = Float::with_val(128, Float::with_val(128, &s1 - dv.second.mid()) / dv.second.mid()).abs().to_f64();
            assert!(r1 < 1e-30 && r2 < 1e-30, "eps {eps}: mpfr rel errors {r1:e} {r2:e}");
        }
    }

    /// Small case with a negative threshold (symmetry flip) against the lattice.
    #[test]
    fn fourier_fast_small_and_flip() {
        let ms = vec![GaussGroup { sigma2: Rational::from(3), count: 4, mu: 1 }, GaussGroup { sigma2: Rational::from(6), count: 2, mu: 1 }];
        let prof = compose_groups(&ms, 128).unwrap();
        for eps in ["0", "0.5", "3"] {
            let e = parse_rational(eps).unwrap();
            let dv = prof.delta(&e);
            let f = delta_fast(&ms, &e, &FastParams::default()).unwrap();
            assert!((f.first.value - dv.first.mid().to_f64()).abs() < 1e-13, "eps {eps}");
            assert!((f.second - dv.second.mid().to_f64()).abs() < 1e-13, "eps {eps}");
        }
    }
}
