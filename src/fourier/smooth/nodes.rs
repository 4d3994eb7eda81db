//! The nodes of the trapezoid rule (docs/smoothed-fourier.md §4, "Nodes"): each group prepared at a tilt
//! ([`Comp`]), its tilted characteristic function r_q(t) = M_q(c+it)/M_q(c) as a ball ([`comp_ratio`]),
//! certified bounds of sup |R(t)| over blocks of nodes ([`block_ln_sup`]), and the table of
//! R(t_n) = Π_q r_q(t_n)^{n_q} at the live nodes, the others kept only as a bound ([`Table`]; one period
//! of a step fitted to the loss lattice, or the [`super::sieve`]'s ranges).

use super::dlap::LapComp;
use super::group::{Comp, Step};
use super::shape::Lattice;
use super::sieve;
use super::theta::{inv_one_plus, not_positive, scale_two_f64, Thetas};
use crate::error::{Error, Fallible};
use crate::num::ball::{up, Ball, CBall, ETA, LIBM_REL, U};
use crate::{err, fallible};
use rayon::prelude::*;

/// Poisson terms kept: |τ| ≤ √(2σ²·LCUT), omitted mass ≤ 2e^{−LCUT}/(1 − e^{−2πR}) (rigorously added).
const LCUT: f64 = 75.0;
/// Nodes with |M(c+it)/M(c)| below this are kept only as a bound (for loose requests a level from the
/// width, see [`NodeSettings`]).
pub(super) const DEAD: f64 = 1e-30;
/// Smallest σ²/μ² handled (the θ-series need O(1/σ) terms).
const MIN_S2: f64 = 0.02;

/// The discrete Laplace groups prepared at tilt c (docs/smoothed-fourier.md §8).
pub(super) fn prepare_lap(th: &Thetas, c: f64) -> Fallible<Vec<LapComp>> {
    th.lap.iter().map(|g| LapComp::new(g, c)).collect()
}

/// The groups prepared at tilt c, widest first, the Poisson terms |τ| ≤ √(2σ²·75) explicit (the f64 tier).
pub(super) fn prepare_with(th: &Thetas, c: f64) -> Fallible<Vec<Comp>> {
    prepare_cut(th, c, LCUT)
}

/// [`prepare_with`] keeping the Poisson terms |τ| ≤ √(2σ²·lcut) (tail 2e^{−lcut}/(1 − e^{−2πR})).
pub(super) fn prepare_cut(th: &Thetas, c: f64, lcut: f64) -> Fallible<Vec<Comp>> {
    let mut v = Vec::new();
    for (i, g) in th.groups.iter().enumerate() {
        let k = th.consts[i];
        let s2f = g.sigma2.to_f64();
        if s2f / (g.mu as f64).powi(2) < MIN_S2 {
            return fallible!(Declined, "sigma2 = {} is too small for the smoothed Fourier engine (use the lattice method)", g.sigma2);
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
    v.sort_by(|x, y| y.key.partial_cmp(&x.key).expect("invariant: finite keys"));
    Ok(v)
}

/// r_q(t) = M_q(c+it)/M_q(c) as a ball, for t in the ball `t` (an exact node or one of a period-fitted step).
pub(super) fn comp_ratio(cp: &Comp, t: Ball) -> CBall {
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

/// The table of tilted characteristic-function values R(t_n) = M(c + i n h)/M(c), n = 0..=N.
pub(super) struct Table {
    pub(super) c: f64,
    pub(super) step: Step,
    pub(super) n_nodes: usize,
    /// nodes per period m when only the first period was evaluated
    pub(super) period: Option<usize>,
    /// (n, R(t_n)) for nodes not certified negligible
    pub(super) live: Vec<(usize, CBall)>,
    /// Σ ω_n·bound(|R(t_n)|) over the negligible nodes (ω_0 = 1, ω_n = 2)
    pub(super) dead: f64,
    /// |R(t_n)| ≤ `outside` at every node the sieve left out (0 without a sieve); their kernel-weighted sum
    /// is bounded with the kernels' decay in t (`precise::outside_sums`) rather than node by node
    pub(super) outside: f64,
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
pub(super) fn block_ln_sup(comps: &[Comp], t0: f64, t1: f64, ln_dead: f64) -> f64 {
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
    /// the discrete Laplace factors (|r| ≤ 1: they never make a node negligible, and are multiplied into
    /// the live ones)
    lap: &'a [LapComp],
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
        if small.is_none() && !sc.lap.is_empty() {
            for l in sc.lap {
                acc = acc.mul(l.factor(t));
            }
            let b = acc.abs_up();
            if b < sc.dead {
                small = Some(b);
            }
        }
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
    pub(super) fn build(
        comps: &[Comp],
        lap: &[LapComp],
        c: f64,
        step: Step,
        n_nodes: usize,
        dead: f64,
        period: Option<(usize, &Lattice)>,
    ) -> Fallible<Table> {
        let scanned = period.map_or(n_nodes, |(m, _)| (m - 1).min(n_nodes));
        let (live, dead) = Table::scan(comps, lap, step, scanned, dead)?;
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
    pub(super) fn build_sieved(comps: &[Comp], lap: &[LapComp], c: f64, step: Step, n_nodes: usize, dead: f64) -> Fallible<Table> {
        let sv = sieve::sieve(comps, step, n_nodes, dead).ok_or_else(|| {
            err!(
                Declined,
                "{n_nodes:.2e} nodes, and the widest groups' Poisson windows do not narrow them to {:.0e}",
                sieve::MAX_KEPT as f64
            )
        })?;
        let var: f64 = comps.iter().map(|cp| cp.count as f64 * 2.0 * cp.a.m).sum();
        let sc = Scan { comps, lap, step, var, dead };
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
        cancelled()?;
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
    fn scan(comps: &[Comp], lap: &[LapComp], step: Step, n_nodes: usize, dead: f64) -> Fallible<(Vec<(usize, CBall)>, f64)> {
        let chunk = 4096;
        let var: f64 = comps.iter().map(|cp| cp.count as f64 * 2.0 * cp.a.m).sum();
        let sc = Scan { comps, lap, step, var, dead };
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
        cancelled()?;
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

/// The method declines: the lattice engine is exact and fast where the loss is close to a coarse lattice.
fn too_many_live() -> Error {
    err!(
        Declined,
        "the smoothed inversion is inefficient here (more than {MAX_LIVE} non-negligible nodes: the loss is close to a coarse lattice); use the lattice method"
    )
}

/// [`crate::num::cancel::check`] as an `Interrupted` error (its message unchanged).
fn cancelled() -> Fallible<()> {
    crate::num::cancel::check().map_err(|e| err!(Interrupted, "{e}"))
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
pub(super) struct NodeSettings {
    pub(super) dead: f64,
    pub(super) restart: usize,
}

impl NodeSettings {
    const STRICT: NodeSettings = NodeSettings { dead: DEAD, restart: 0 };

    pub(super) fn for_width(width: Option<f64>, n_nodes: usize) -> NodeSettings {
        match width {
            Some(w) if w >= LOOSE_WIDTH => NodeSettings { dead: (w * 1e-6 / (n_nodes.max(1) as f64)).clamp(DEAD, 1e-12), restart: RESTART },
            _ => NodeSettings::STRICT,
        }
    }
}

/// Table scans of at most this many chunk × group units run in the calling thread.
const SERIAL_WORK: usize = 8;

/// Largest number of non-negligible nodes kept (each costs a term in every δ evaluation).
pub const MAX_LIVE: usize = 1_000_000;
