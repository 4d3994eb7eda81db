//! Sieve of the node range by the Poisson windows of the widest groups (docs/smoothed-fourier.md §4,
//! "Sieve"), for the 10¹¹–10¹² nodes of a 20-digit bracket, where even the block certificates of the
//! node scan ([`super::nodes`]) cost seconds.
//!
//! Group q's tilted characteristic function r_q(t) is a sum of Poisson terms e^{−τ_k²/(2σ²)}·(phase)/D_q(c),
//! τ_k = μt − k·2πσ². Where every |τ_k| exceeds R = √(2σ²·LCUT), all the terms are in the omitted tail of
//! [`super::nodes::comp_ratio`], so |r_q(t)| ≤ tail·|1/D_q(c)| and |R(t)| ≤ (tail·|1/D_q(c)|)^{n_q} (the other
//! factors have modulus ≤ 1). The set where some |τ_k| ≤ R is the union of the windows
//! W_k = [(k·2πσ² − R)/μ, (k·2πσ² + R)/μ], a fraction 2R/(2πσ²) = √(2·LCUT)/(πσ) of the t-axis: ~4% for the
//! widest redistricting query (σ² ≈ 8000). Intersecting the windows of the wide groups one after the
//! other leaves a few hundred short candidate intervals out of [0, A]; only the nodes in them are scanned.

use super::group::{Comp, Step};
use crate::num::ball::{up, Ball, ETA, U};
use rayon::prelude::*;

/// A group sieves only if its windows cover at most this fraction of the t-axis.
const MAX_FRACTION: f64 = 0.25;
/// Independent pieces of [0, A] sieved in parallel: at least this many, and enough that the first group
/// has about [`WINDOWS_PER_SLAB`] windows in each.
const SLABS: usize = 512;
const WINDOWS_PER_SLAB: f64 = 4096.0;
/// Most candidate intervals a slab may hold (and 16× that over all slabs), and most nodes the sieve may
/// leave to scan: beyond any of them the sieve gives up (a loss close to a coarse lattice, whose aliasing bumps no window intersection removes).
const MAX_CANDIDATES: usize = 50_000;
pub(super) const MAX_KEPT: usize = 200_000_000;

/// What the sieve leaves: the node ranges still to scan and the bound on every other node.
pub(super) struct Sieved {
    /// disjoint node ranges [n0, n1], increasing
    pub ranges: Vec<(usize, usize)>,
    /// |R(t_n)| ≤ `bound` at every node in none of the ranges
    pub bound: f64,
}

/// |r_q| outside the group's windows, raised to n_q, rounded up (None when it certifies nothing).
fn outside_bound(cp: &Comp) -> Option<f64> {
    let b = up(cp.tail * (cp.inv_d.m + cp.inv_d.r));
    if !(b < 1.0) {
        return None;
    }
    let mut acc = 1.0f64;
    for _ in 0..cp.count.min(64) {
        acc = up(acc * b);
    }
    Some(acc)
}

/// The part of [a, b] (t ≥ 0) inside the group's windows, appended to `out` in increasing order.
fn refine(cp: &Comp, a: f64, b: f64, out: &mut Vec<(f64, f64)>) {
    let r = cp.rcut;
    let x_lo = cp.mu * a * (1.0 - U) - ETA;
    let x_hi = cp.mu * b * (1.0 + U) + ETA;
    let p = cp.per.m;
    let kmin = ((x_lo - r) / p).floor() as i64 - 1;
    let kmax = ((x_hi + r) / p).ceil() as i64 + 1;
    for k in kmin..=kmax {
        // k·2πσ² lies in the ball kp; the window in μt is [kp.lo − R, kp.hi + R], widened for the rounding
        // of the sums and of the division by μ
        let kp = cp.per.mul(Ball::exact(k as f64));
        let (lo_x, hi_x) = (kp.lo() - r, kp.hi() + r);
        let lo_x = lo_x - 2.0 * U * (lo_x.abs() + r) - ETA;
        let hi_x = hi_x + 2.0 * U * (hi_x.abs() + r) + ETA;
        let (lo_t, hi_t) = (lo_x / cp.mu, hi_x / cp.mu);
        let lo_t = lo_t - 2.0 * U * lo_t.abs() - ETA;
        let hi_t = hi_t + 2.0 * U * hi_t.abs() + ETA;
        let (lo, hi) = (lo_t.max(a), hi_t.min(b));
        if lo <= hi {
            out.push((lo, hi));
        }
    }
}

/// Sieve nodes 0..=N of the exact step `step` by the windows of every group whose windows are sparse
/// (fraction ≤ [`MAX_FRACTION`]) and whose outside bound is below `dead`; None when no group qualifies or
/// the sieve leaves too much ([`MAX_CANDIDATES`], [`MAX_KEPT`]).
pub(super) fn sieve(comps: &[Comp], step: Step, n_nodes: usize, dead: f64) -> Option<Sieved> {
    let sievers: Vec<(&Comp, f64)> = comps
        .iter()
        .filter(|cp| 2.0 * cp.rcut / cp.per.m <= MAX_FRACTION)
        .filter_map(|cp| outside_bound(cp).filter(|&b| b < dead).map(|b| (cp, b)))
        .collect();
    if sievers.is_empty() {
        return None;
    }
    let bound = sievers.iter().map(|s| s.1).fold(0.0, f64::max);
    let t_max = step.t(n_nodes).hi();
    let first = sievers[0].0;
    let slabs = ((t_max * first.mu / first.per.m / WINDOWS_PER_SLAB) as usize).clamp(SLABS, 1 << 22);
    let slab = t_max / slabs as f64;
    let total = std::sync::atomic::AtomicUsize::new(0);
    let pieces: Option<Vec<Vec<(f64, f64)>>> = (0..slabs)
        .into_par_iter()
        .map(|i| {
            let a = if i == 0 { 0.0 } else { slab * i as f64 };
            let b = if i + 1 == slabs { t_max } else { slab * (i + 1) as f64 };
            let mut cand = vec![(a, b)];
            for &(cp, _) in &sievers {
                // windows per candidate ≈ its length over the window period: count before building them
                let est: f64 = cand.iter().map(|&(a, b)| (b - a) * cp.mu / cp.per.m + 1.0).sum();
                if est > MAX_CANDIDATES as f64 {
                    return None;
                }
                let mut next = Vec::new();
                for &(a, b) in &cand {
                    refine(cp, a, b, &mut next);
                }
                cand = next;
                if cand.is_empty() {
                    break;
                }
            }
            let held = total.fetch_add(cand.len(), std::sync::atomic::Ordering::Relaxed) + cand.len();
            (held <= MAX_CANDIDATES * 16).then_some(cand)
        })
        .collect();
    let pieces = pieces?;
    // the slab ends overlap by nothing and touch: a node at a slab boundary is in the hull of both sides'
    // ranges below, which are widened by a node each
    let h = step.h.m;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (a, b) in pieces.into_iter().flatten() {
        // nodes whose t_n may lie in [a, b]: t_n ∈ n·h(1 ± 2U), one node of slack each side
        let n0 = ((a / h) * (1.0 - 4.0 * U)).floor().max(1.0) as usize - 1;
        let n1 = (((b / h) * (1.0 + 4.0 * U)).ceil() as usize).saturating_add(1).min(n_nodes);
        if n0 > n1 {
            continue;
        }
        match ranges.last_mut() {
            Some(last) if n0 <= last.1 + 1 => last.1 = last.1.max(n1),
            _ => ranges.push((n0, n1)),
        }
    }
    let kept: usize = ranges.iter().map(|&(a, b)| b - a + 1).sum();
    (kept <= MAX_KEPT).then_some(Sieved { ranges, bound })
}
