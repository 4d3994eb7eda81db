//! R(t) = Π_q r_q(t)^{n_q} at the 20-digit tier's live nodes in 128-bit MPFR (docs/smoothed-fourier.md §7).
//!
//! Group q's tilted characteristic function is a sum of Poisson terms (module doc of `smooth`, §1),
//!   r_q(t) = Σ_k e^{z_k} / D_q(c),  z_k = −τ_k²/(2σ²) + i(tμ²/(2σ²) + cμτ_k/σ²),  τ_k = μt − 2πkσ².
//! **One term.** Let k be the term nearest to μt, d = |τ_k| ≤ πσ² and P = 2πσ². Every other term has
//! |τ_j| ≥ |j − k|·P − d, so with g = P − d (≥ P/2) and (g + mP)² ≥ g² + 2gmP,
//!   Σ_{j≠k} |e^{z_j}| ≤ 2e^{−g²/(2σ²)} / (1 − e^{−gP/σ²}),
//! and relative to |e^{z_k}| = e^{−d²/(2σ²)}, since d² − g² = −(P − 2d)P and P/(2σ²) = π:
//!   ρ_q = 2e^{−π(P − 2d)} / (1 − e^{−2π(P − d)}).
//! Where π(P − 2d) ≥ [`ONE_TERM_MIN`] (every wide group at a live node) r_q = e^{z_k}(1 + ξ_q)/D_q(c) with
//! |ξ_q| ≤ ρ_q, and the product over such groups is e^{Z}(1 + ζ)/Π D_q(c)^{n_q}, Z = Σ n_q z_{k_q},
//! |ζ| ≤ e^{Σ n_q ρ_q} − 1 ≤ 2Σ n_q ρ_q (Σ ≤ 1). Z collapses: with Q = Σ n_q μ_q²/(2σ_q²),
//!   Im z_k = (1 + 2c)·tμ²/(2σ²) − 2πckμ, so Im Z = (1 + 2c)·t·Q_one − 2πc·Σ n_q k_q μ_q (an integer sum),
//!   Re z_0 = −t²μ²/(2σ²), so Re Z = −t²·Q_{k=0} − Σ_{k_q≠0} n_q τ_{k_q}²/(2σ_q²):
//! one complex exponential per node, and MPFR work only for the groups off their k = 0 term. The other
//! groups (σ² below ~5, or μt midway between two terms) are evaluated term by term as before.

use super::dlap::{LapGroup, PLap};
use super::theta::{not_positive, theta_d, theta_wide};
use super::{iv, CP};
use crate::error::Fallible;
use crate::model::GaussGroup;
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::{Float, Integer, Rational};

/// π(P − 2d) at or above which a group is taken as one Poisson term with its relative remainder ρ_q
/// (ρ_q ≤ 2e^{−90} ≈ 1.6e-39).
const ONE_TERM_MIN: f64 = 90.0;

/// One Gaussian group's MPFR constants at tilt c.
pub(super) struct PGroup {
    count: u32,
    mu: f64,
    /// μ²/(2σ²), 1/(2σ²), cμ/σ², 2πσ², 1/D_q(c), n·ln D_q(c), n·ln D_q(0)
    q: Interval,
    inv2s2: Interval,
    b: Interval,
    per: Interval,
    inv_d: Interval,
    n_ln_d: Interval,
    pub(super) n_ln_d0: Interval,
    per_f: f64,
    rcut: f64,
    tail: Float,
}

impl PGroup {
    pub(super) fn new(g: &GaussGroup, c: f64, lcut: f64) -> Fallible<PGroup> {
        let pi = Interval::pi(CP);
        let s2 = Interval::from_rational(&g.sigma2, CP);
        let mu = g.mu as f64;
        let inv2s2 = Interval::one(CP).div(&s2.mul(&iv(2.0)));
        let d = theta_d(&g.sigma2, c, g.mu);
        let d0 = theta_d(&g.sigma2, 0.0, g.mu);
        if !(*d.lo() > 0) || !(*d0.lo() > 0) {
            return Err(not_positive(g));
        }
        let n = iv(g.count as f64);
        let per = pi.mul(&s2).mul(&iv(2.0));
        let s2f = g.sigma2.to_f64();
        let rcut = (2.0 * s2f * lcut).sqrt();
        let tail = 2.0 * (-lcut).exp() / (1.0 - (-2.0 * std::f64::consts::PI * rcut).exp()) * 1.001;
        Ok(PGroup {
            count: g.count,
            mu,
            q: Interval::from_rational(&((Rational::from(g.mu) * g.mu) / (Rational::from(2) * g.sigma2.clone())), CP),
            b: inv2s2.mul(&iv(2.0 * mu * c)),
            inv2s2,
            per_f: per.mid().to_f64(),
            per,
            inv_d: Interval::one(CP).div(&d),
            n_ln_d: ln_theta(g, &d).mul(&n),
            n_ln_d0: ln_theta(g, &d0).mul(&n),
            rcut,
            tail: Float::with_val(CP, tail),
        })
    }

    /// r_q(t) = e^{itμ²/(2σ²)} Σ_k e^{−τ_k²/(2σ²)} e^{icμτ_k/σ²} / D_q(c), τ_k = μt − 2πkσ² (module doc of
    /// `smooth`, §1), for the exact node t (f64 value `tf`): the terms |τ_k| ≤ 1.5R explicitly, all terms
    /// |τ_k| > R bounded by the tail (a disk, so some are counted twice: still an enclosure).
    fn ratio(&self, t: &Interval, tf: f64) -> CInterval {
        let x = t.mul(&iv(self.mu));
        let xf = self.mu * tf;
        let kmin = ((xf - 1.5 * self.rcut) / self.per_f).floor() as i64 - 1;
        let kmax = ((xf + 1.5 * self.rcut) / self.per_f).ceil() as i64 + 1;
        let mut sum = CInterval::real(Interval::zero(CP));
        for k in kmin..=kmax {
            let tau = x.sub(&self.per.mul(&Interval::from_i64(k, CP)));
            let e = tau.mul(&tau).mul(&self.inv2s2).neg();
            let ph = self.q.mul(t).add(&self.b.mul(&tau));
            sum = sum.add(&CInterval::exp_of(&e, &ph));
        }
        sum.widen(&self.tail).scale(&self.inv_d)
    }

    /// The nearest Poisson term k and an upper bound of its ρ_q when the group may be taken as that one
    /// term (π(P − 2d) ≥ [`ONE_TERM_MIN`]), for the node t with f64 value `tf` (|tf − t| ≤ an ulp of t).
    fn one_term(&self, tf: f64) -> Option<(i64, f64)> {
        let x = self.mu * tf;
        let k = (x / self.per_f).round();
        if !(k.abs() < 2f64.powi(52)) {
            return None;
        }
        // d = |μt − kP| from f64 values: the products and the difference are within a few ulps of
        // |x| + |kP|, and tf within an ulp of t; 1e-12 of that covers them all
        let kp = k * self.per_f;
        let d_hi = (x - kp).abs() + 1e-12 * (x.abs() + kp.abs()) + 1e-300;
        let gap = self.per_f * (1.0 - 1e-12) - 2.0 * d_hi;
        // π_lo < π (the f64 π is within half an ulp of it): e^{−π_lo·gap} ≥ e^{−π·gap}; (P − d) ≥ gap in the
        // denominator, and 1/(1 − e^{−2π·gap}) ≤ 1 + 1e-70 there; 1e-9 covers libm's exp
        let pi_lo = std::f64::consts::PI * (1.0 - 1e-15);
        (pi_lo * gap >= ONE_TERM_MIN).then(|| (k as i64, 2.0 * (-pi_lo * gap).exp() * (1.0 + 1e-9)))
    }
}

/// ln D_q(c) (any c): for a group with 2π²σ² ≥ 200 D ∈ [1 − ε, 1 + ε] with ε = 2.8e-87 ([`theta_d`]), so
/// |ln D| ≤ ε/(1 − ε) < 2.9e-87, without MPFR's logarithm (10⁴ groups: 0.2 s); else ln of the θ-sum.
fn ln_theta(g: &GaussGroup, d: &Interval) -> Interval {
    if theta_wide(&g.sigma2) {
        Interval::zero(CP).widen(&Float::with_val_round(CP, 2.9e-87, rug::float::Round::Up).0)
    } else {
        d.ln()
    }
}

/// The composition's groups at tilt c, in MPFR: R(t) at any node.
pub(super) struct PComp {
    groups: Vec<PGroup>,
    lap: Vec<PLap>,
    c: f64,
    /// Σ n_q μ_q²/(2σ_q²) and Σ n_q ln D_q(c) over the Gaussian groups
    q_all: Interval,
    ln_d_all: Interval,
    /// ln M(c) of the whole composition
    pub(super) ln_m: Interval,
}

impl PComp {
    pub(super) fn new(groups: &[GaussGroup], lap: &[LapGroup], c: f64, lcut: f64) -> Fallible<PComp> {
        let pg: Vec<PGroup> = groups.iter().map(|g| PGroup::new(g, c, lcut)).collect::<Result<_, _>>()?;
        let pl: Vec<PLap> = lap.iter().map(|g| PLap::new(g, c)).collect::<Result<_, _>>()?;
        let zero = Interval::zero(CP);
        let mut q_all = zero.clone();
        let mut ln_d_all = zero.clone();
        let mut ln_d0_all = zero.clone();
        for g in &pg {
            q_all = q_all.add(&g.q.mul(&iv(g.count as f64)));
            ln_d_all = ln_d_all.add(&g.n_ln_d);
            ln_d0_all = ln_d0_all.add(&g.n_ln_d0);
        }
        // ln M(c) = Σ_q n_q[(c + c²)μ²/(2σ²) + ln D_q(c) − ln D_q(0)] + Σ_DLap n ln M_q(c)
        let cc = iv(c).add(&iv(c).mul(&iv(c)));
        let mut ln_m = cc.mul(&q_all).add(&ln_d_all).sub(&ln_d0_all);
        for l in &pl {
            ln_m = ln_m.add(&l.n_ln_m);
        }
        Ok(PComp { groups: pg, lap: pl, c, q_all, ln_d_all, ln_m })
    }

    /// R(t) = Π_q r_q(t)^{n_q} at the exact node t (f64 value `tf`): the one-term groups through one complex
    /// exponential (module doc), the others term by term, the DLap factors by their finite sums.
    pub(super) fn ratio(&self, t: &Interval, tf: f64) -> CInterval {
        let zero = Interval::zero(CP);
        let mut q_off0 = zero.clone(); // Σ n q over the groups not taken at k = 0
        let mut q_full = zero.clone(); // Σ n q over the groups evaluated term by term
        let mut ln_d_full = zero.clone();
        let mut re_off0 = zero.clone(); // Σ n τ_k²/(2σ²) over the one-term groups with k ≠ 0
        let mut k_sum = Integer::new(); // Σ n k μ over the one-term groups
        let mut rho = 0.0f64;
        let mut full = CInterval::one(CP);
        for g in &self.groups {
            let n = iv(g.count as f64);
            match g.one_term(tf) {
                Some((k, r)) => {
                    rho += g.count as f64 * r;
                    if k != 0 {
                        let tau = t.mul(&iv(g.mu)).sub(&g.per.mul(&Interval::from_i64(k, CP)));
                        re_off0 = re_off0.add(&tau.mul(&tau).mul(&g.inv2s2).mul(&n));
                        q_off0 = q_off0.add(&g.q.mul(&n));
                        k_sum += Integer::from(k) * g.count * (g.mu as u32);
                    }
                }
                None => {
                    full = full.mul(&g.ratio(t, tf).powu(g.count));
                    let nq = g.q.mul(&n);
                    q_off0 = q_off0.add(&nq);
                    q_full = q_full.add(&nq);
                    ln_d_full = ln_d_full.add(&g.n_ln_d);
                }
            }
        }
        let c = iv(self.c);
        let q0 = self.q_all.sub(&q_off0);
        let q_one = self.q_all.sub(&q_full);
        let re = t.mul(t).mul(&q0).add(&re_off0).add(&self.ln_d_all.sub(&ln_d_full)).neg();
        let two_pi_c = Interval::pi(CP).mul(&iv(2.0)).mul(&c);
        let ksum = Interval::from_rational(&Rational::from(k_sum), CP);
        let im = iv(1.0).add(&c.mul(&iv(2.0))).mul(t).mul(&q_one).sub(&two_pi_c.mul(&ksum));
        let mut r = CInterval::exp_of(&re, &im);
        if rho > 0.0 {
            // |ζ| ≤ e^{Σ n ρ} − 1 ≤ 2Σ n ρ for Σ n ρ ≤ 1 (else the trivial e^{Σ n ρ}, still an enclosure)
            let s = rho * (1.0 + 1e-9);
            let zeta = if s <= 1.0 { 2.0 * s } else { s.exp() * 1.000001 };
            let rad = Float::with_val(CP, re.hi().exp_ref()) * Float::with_val(CP, zeta);
            r = r.widen(&Float::with_val_round(CP, rad * 1.000001, rug::float::Round::Up).0);
        }
        r = r.mul(&full);
        for l in &self.lap {
            r = r.mul(&l.factor(t));
        }
        r
    }
}
