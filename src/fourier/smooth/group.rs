//! What the node scan (`nodes.rs`) and the sieve (`sieve.rs`) share: one group prepared at a tilt
//! ([`Comp`], built by `nodes::prepare_with`) and the node step ([`Step`]).

use crate::num::ball::{up, Ball};

/// One group prepared for node evaluation at tilt c:
/// r_q(t) = e^{itμ²/(2σ²)} Σ_k e^{−τ_k²/(2σ²)} e^{icμτ_k/σ²} / D_q(c), τ_k = μt − 2πkσ² (docs/smoothed-fourier.md
/// §2), with the Poisson terms |τ_k| ≤ R = `rcut` explicit and the rest in `tail`.
pub(super) struct Comp {
    /// n_q
    pub(super) count: u32,
    /// μ_q
    pub(super) mu: f64,
    /// 1/(2σ²)
    pub(super) inv2s2: Ball,
    /// μ²/(2σ²) (the phase e^{itμ²/(2σ²)})
    pub(super) a: Ball,
    /// cμ/σ²
    pub(super) b: Ball,
    /// 2πσ²
    pub(super) per: Ball,
    /// R = √(2σ²·lcut)
    pub(super) rcut: f64,
    /// the omitted Poisson terms |τ_k| > R, 2e^{−lcut}/(1 − e^{−2πR}) inflated for rounding
    pub(super) tail: f64,
    /// 1/D_q(c)
    pub(super) inv_d: Ball,
    /// σ²/μ² (the order of the groups: widest first)
    pub(super) key: f64,
}

/// The node step h and the nodes t_n = n·h. The designed step is a multiple of 2^-20, so n·h is exact in
/// f64 (radius 0); a step fitted to the period of the loss lattice, h = T/m = 2π/(m·s), is irrational
/// and the nodes are balls.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub(super) h: Ball,
}

impl Step {
    pub(super) fn t(&self, n: usize) -> Ball {
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
    pub(super) fn span(&self, n0: usize, n1: usize) -> (f64, f64) {
        let (a, b) = (self.t(n0), self.t(n1));
        if a.r == 0.0 && b.r == 0.0 {
            (a.m, b.m)
        } else {
            (self.t(n0).lo().max(0.0), self.t(n1).hi())
        }
    }
}
