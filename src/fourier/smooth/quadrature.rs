//! The quadrature and its error terms (docs/smoothed-fourier.md §3–4): the trapezoid rule on the line
//! Re s = c returns F(x) plus non-negative aliasing (Poisson summation), so the rule is an upper bound of
//! F_S and F_B as it stands; the lower bound of F_S subtracts the aliasing m ≤ −1 (F_S ≤ 1) and m ≥ 1
//! (a Chernoff bound at tilts c′ > c), and both bounds carry the truncation |t| > A. With the smoothing
//! sandwich F_S(ε − w²/2) ≥ δ(ε) ≥ F_S(ε) − β F_B(ε), [`DeltaBounds`] gives certified bounds of δ at any ε.

use super::design::{chernoff_tilts, fit_to_period};
use super::kernels::Kernels;
use super::nodes::{prepare_lap, prepare_with, NodeSettings, Table};
use super::shape::Shape;
use super::theta::Thetas;
use super::{ball_of, fl, iv, CP};
use crate::err;
use crate::error::Fallible;
use crate::num::ball::{up, Ball, PI, SQRT_TAU, TAU};
use crate::num::Interval;
use rug::Float;

/// Everything needed to evaluate certified bounds of δ at any x near the design point: the node table and
/// kernels, and the x-independent factors of the truncation, aliasing and smoothing (β) bounds.
pub(super) struct DeltaBounds {
    pub(super) tab: Table,
    pub(super) ker: Kernels,
    /// ln M(c)
    ln_m: Ball,
    /// h/(2π)
    hfac: Ball,
    /// γ√(2π)
    pub(super) g_s2pi: Ball,
    /// truncation |t| > A of F_S over M(c)e^{−cx}: (1/π) e^{w²c²/2} e^{−w²A²/2}/A
    pub(super) trunc_s: Ball,
    /// the same for F_B: (1/π) γ√(2π) e^{γ²c²/2} e^{−γ²A²/2}/(γ²A)
    pub(super) trunc_b: Ball,
    /// aliasing m ≤ −1: e^{−cT}/(1 − e^{−cT}), rounded up
    pub(super) alias_lo: f64,
    /// aliasing m ≥ 1 at the Chernoff tilts c′: (c′, ln M(c′) + c′²w²/2, e^{−(c′−c)T}/(1 − e^{−(c′−c)T}) rounded up)
    pub(super) chern: Vec<(f64, Ball, f64)>,
    /// β rounded up
    pub(super) beta: f64,
}

/// The upper end of a ball, +∞ when there is none or it is not a number.
fn hi_or_inf(b: Option<Ball>) -> f64 {
    match b.map(|b| b.hi()) {
        Some(v) if !v.is_nan() => v,
        _ => f64::INFINITY,
    }
}

/// q/(1 − q) = Σ_{m≥1} e^{−mx} rounded up, for q = e^{−x} with x > 0: the aliasing series of §4 (x = cT for
/// m ≤ −1, (c′ − c)T for m ≥ 1). +∞ when it cannot be formed.
pub(super) fn geometric(x: Ball) -> f64 {
    let q = x.neg().exp();
    hi_or_inf(q.div(Ball::exact(1.0).sub(q)))
}

/// β = w e^{w²/2} (φ(0) + w) exp(w²/(2(λ²−1)) + w²/(2λ²)), φ(0) = 1/√(2π), rounded up: the bump's factor
/// in the lower bound v(y) = S(y) − β e^{−y²/(2γ²)} ≤ ψ(y) (docs/smoothed-fourier.md §3, "Lower").
pub(super) fn beta(w: f64, lambda: f64) -> f64 {
    let one = Ball::exact(1.0);
    let half = Ball::exact(0.5);
    let wi = Ball::exact(w);
    let w2 = wi.mul(wi);
    let l2 = Ball::exact(lambda).mul(Ball::exact(lambda));
    let beta = (|| {
        let phi0 = one.div(SQRT_TAU)?;
        let expo = w2.mul(half).add(w2.div(l2.sub(one).mul(Ball::exact(2.0)))?).add(w2.div(l2.mul(Ball::exact(2.0)))?);
        Some(wi.mul(phi0.add(wi)).mul(expo.exp()))
    })();
    hi_or_inf(beta)
}

/// The truncation factors of §4 for the nodes |t| > A (over M(c)e^{−cx}): (1/π) e^{(w²c² − w²A²)/2}/A for
/// F_S (|K_S(t)| ≤ e^{w²c²/2} e^{−w²t²/2}/t²) and (1/π) γ√(2π) e^{(γ²c² − γ²A²)/2}/(γ²A) for F_B, and γ√(2π).
/// A factor that cannot be formed is +∞ (a ball of infinite radius).
pub(super) fn truncation(w: f64, gamma: f64, c: f64, a: Ball) -> (Ball, Ball, Ball) {
    let half = Ball::exact(0.5);
    let wi = Ball::exact(w);
    let wc = wi.mul(Ball::exact(c));
    let wa = wi.mul(a);
    let trunc_s = wc.mul(wc).sub(wa.mul(wa)).mul(half).exp().div(a.mul(PI));
    let gi = Ball::exact(gamma);
    let g_s2pi = gi.mul(SQRT_TAU);
    let gc = gi.mul(Ball::exact(c));
    let ga = gi.mul(a);
    let trunc_b = g_s2pi.mul(gc.mul(gc).sub(ga.mul(ga)).mul(half).exp()).div(gi.mul(gi).mul(a).mul(PI));
    let infinite = Ball::new(0.0, f64::INFINITY);
    (trunc_s.unwrap_or(infinite), trunc_b.unwrap_or(infinite), g_s2pi)
}

impl DeltaBounds {
    /// Build for tilt c, smoothing w, bump factor λ, step h, last node N, and the requested ε-bracket
    /// width (None for a δ bracket), which sets the [`NodeSettings`]. The x-independent constants are
    /// balls; the θ-sums and ln M too ([`Thetas`]).
    pub(super) fn new(th: &Thetas, c: f64, w: f64, lambda: f64, h: f64, n_nodes: usize, width: Option<f64>) -> Fallible<DeltaBounds> {
        let comps = prepare_with(th, c)?;
        let (step, n_nodes, m) = fit_to_period(&th.lattice, h, n_nodes);
        let ns = NodeSettings::for_width(width, n_nodes);
        let lap = prepare_lap(th, c)?;
        let tab = Table::build(&comps, &lap, c, step, n_nodes, ns.dead, m.map(|m| (m, &th.lattice)))?;
        DeltaBounds::with_table(th, w, lambda, h, tab, m, ns.restart)
    }

    /// The bounds on a built table (`m`: nodes per period of a fitted step; h the designed step, used for
    /// h/(2π) when the step is not fitted).
    pub(super) fn with_table(
        th: &Thetas,
        w: f64,
        lambda: f64,
        h: f64,
        tab: Table,
        m: Option<usize>,
        restart: usize,
    ) -> Fallible<DeltaBounds> {
        let c = tab.c;
        let step = tab.step;
        let gamma = lambda * w;
        let ker = Kernels::new(&tab, w, gamma, restart);
        let ln_m = th.ln_mgf(c)?;
        // the constants below in ball arithmetic (a ball that cannot be formed — a divisor not away from
        // 0, an overflow — gives the trivial bound +∞, which the searches read as "not certified here")
        let half = Ball::exact(0.5);
        // the designed step is positive (`design_upto`), a fitted one 2π/(m·s) too
        let tt = TAU.div(step.h).ok_or_else(|| err!(Internal, "smoothed inversion: node step not positive"))?;
        let mut chern = Vec::new();
        for cp in chernoff_tilts(&Shape::with_lap(th.groups, th.lap), c, tt.m) {
            let cpw = Ball::exact(cp).mul(Ball::exact(w));
            let e0 = th.ln_mgf(cp)?.add(cpw.mul(cpw).mul(half));
            chern.push((cp, e0, geometric(Ball::exact(cp).sub(Ball::exact(c)).mul(tt))));
        }
        let beta = beta(w, lambda);
        // truncation at A = N·h
        let (trunc_s, trunc_b, g_s2pi) = truncation(w, gamma, c, Ball::exact(tab.n_nodes as f64).mul(step.h));
        let alias_lo = geometric(Ball::exact(c).mul(tt));
        Ok(DeltaBounds {
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
            trunc_s,
            trunc_b,
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
    pub(super) fn delta_hi(&self, eps: f64) -> Float {
        let w = self.ker.w;
        let sh = w * w / 2.0;
        // x ≤ ε − w²/2 (any shift ≥ w²/2 keeps u ≥ ψ)
        let x = eps - sh * (1.0 + 1e-9) - crate::num::ball::U * eps.abs() * 4.0;
        fl(self.f_bounds(x, false).1)
    }

    /// Certified lower bound of δ(ε) for any ε ≤ `eps` (uses v(y) = S(y) − β e^{−y²/(2γ²)}).
    pub(super) fn delta_lo(&self, eps: f64) -> Float {
        let (fs_lo, _, fb_hi) = self.f_bounds(eps, true);
        // fs_lo − β·fb_hi, rounded down (−∞ when either is not certified)
        let b = Ball::exact(self.beta).mul(Ball::exact(fb_hi)).hi();
        let v = Ball::exact(fs_lo).sub(Ball::exact(b)).lo();
        fl(if v.is_nan() { f64::NEG_INFINITY } else { v })
    }

    pub(super) fn live(&self) -> usize {
        self.tab.live.len()
    }

    /// The node step h (its midpoint), the last node N, and the nodes per period of a fitted step.
    pub(super) fn nodes(&self) -> (f64, usize, Option<usize>) {
        (self.tab.step.h.m, self.tab.n_nodes, self.tab.period)
    }
}
