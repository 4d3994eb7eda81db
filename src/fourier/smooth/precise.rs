//! The 20-digit tier of the smoothed inversion (docs/smoothed-fourier.md §6): the same certified sandwich
//! F_S(ε − w²/2) ≥ δ(ε) ≥ F_S(ε) − β F_B(ε) and the same quadrature bounds, with
//! - the smoothing narrowed to w ~ 1e-10 (the gap is ≈ 5w² in ε), so 10¹¹–10¹² nodes, of which the
//!   [`super::sieve`] leaves a few hundred short ranges to scan and bounds the rest through the kernels'
//!   decay in t ([`outside_sums`]);
//! - the live nodes (tens), their kernels, ln M(c), h/(2π), the sums and the abscissa x in 128-bit MPFR
//!   intervals ([`CInterval`]) instead of f64 balls, whose ~1e-16 relative radius floors the f64 tier at
//!   ~1e-11 in ε;
//! - an ε search on MPFR abscissae. The aliasing, truncation and β constants stay the f64 tier's upper
//!   bounds: they are designed below 1e-5·δ·w² and enter only as widenings.
//!
//! Used where no practical lattice exists (the 2021 redistricting budget); elsewhere the lattice engine
//! is exact and faster.

use super::design::design_upto;
use super::group::Step;
use super::kernels::kernel_max;
use super::nodes::{prepare_cut, prepare_lap, Table};
use super::pnodes::PComp;
use super::quadrature::DeltaBounds;
use super::shape::Shape;
use super::theta::Thetas;
use super::{iv, SmoothParams, SmoothResult, CP};
use crate::error::Fallible;
use crate::num::ball::{up, Ball};
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use crate::{err, fallible};
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

/// Poisson terms kept at the MPFR nodes and by the sieve: |τ| ≤ √(2σ²·LCUT_P), omitted ≤ 2e^{−100}/(1 − e^{−2πR}).
const LCUT_P: f64 = 100.0;
/// Nodes in the sieved ranges with |R| below this are kept as a bound.
const DEAD_P: f64 = 1e-40;
/// Most nodes of the 20-digit tier (sieved; the scan touches a vanishing fraction of them).
pub const MAX_NODES_P: usize = 4_000_000_000_000;
/// Most live nodes evaluated in MPFR (each costs ~10 µs per group).
const MAX_LIVE_P: usize = 20_000;
/// Narrowest ε bracket the tier tries (below, the node count exceeds [`MAX_NODES_P`] for every Census budget).
pub const MIN_WIDTH_P: f64 = 1e-24;

/// A live node in MPFR: t_n, its weight ω_n, and R(t_n) times the F_S and F_B kernels.
struct PNode {
    t: Interval,
    weight: u32,
    ps: CInterval,
    pb: CInterval,
}

/// Upper bounds of Σ_n ω_n |K_S(t_n)| and Σ_n ω_n |K_B(t_n)| over all nodes n ≥ 0 of step h:
/// |K_S(t)| = e^{w²(c²−t²)/2}/|(c+it)(c+1+it)| ≤ min(e^{w²c²/2}/(c(c+1)), e^{w²c²/2}/t²) and Σ_{n≥1} 1/(nh)² =
/// π²/(6h²); |K_B(t)| = e^{γ²(c²−t²)/2} and Σ_{n≥1} e^{−γ²h²n²/2} ≤ ∫_0^∞ e^{−γ²h²u²/2} du = √(π/2)/(γh).
pub(super) fn outside_sums(c: f64, w: f64, gamma: f64, h: f64) -> (f64, f64) {
    let ew = (w * w * c * c / 2.0).exp();
    let ks = ew / (c * (c + 1.0)) + 2.0 * ew * std::f64::consts::PI.powi(2) / (6.0 * h * h);
    let eg = (gamma * gamma * c * c / 2.0).exp();
    let kb = eg * (1.0 + (2.0 * std::f64::consts::PI).sqrt() / (gamma * h));
    (ks * 1.001, kb * 1.001)
}

/// Certified δ bounds at MPFR abscissae.
pub(super) struct Precise {
    eng: DeltaBounds,
    nodes: Vec<PNode>,
    ln_m: Interval,
    hfac: Interval,
    /// radius added to the F_S and F_B sums for the dead and sieved-out nodes
    rad_s: Float,
    rad_b: Float,
    /// sieved node ranges and nodes scanned (for the detail line)
    pub scanned: usize,
}

impl Precise {
    fn new(th: &Thetas, c: f64, w: f64, lambda: f64, h: f64, n_nodes: usize) -> Fallible<Precise> {
        let comps = prepare_cut(th, c, LCUT_P)?;
        let step = Step { h: Ball::exact(h) };
        let lap = prepare_lap(th, c)?;
        let tab = Table::build_sieved(&comps, &lap, c, step, n_nodes, DEAD_P)?;
        if tab.live.len() > MAX_LIVE_P {
            return fallible!(Declined, "{} live nodes (at most {MAX_LIVE_P} are evaluated in MPFR)", tab.live.len());
        }
        let gamma = lambda * w;
        let (os, ob) = outside_sums(c, w, gamma, h);
        let (ks_max, kb_max) = kernel_max(c, w, gamma);
        let rad_s = Float::with_val(CP, up(up(tab.dead * ks_max) + up(tab.outside * os)));
        let rad_b = Float::with_val(CP, up(up(tab.dead * kb_max) + up(tab.outside * ob)));
        let pc = PComp::new(th.groups, th.lap, c, LCUT_P)?;
        let (ci, wi, gi) = (iv(c), iv(w), iv(gamma));
        let (w2, g2, half) = (wi.mul(&wi), gi.mul(&gi), iv(0.5));
        let node = |&(n, _): &(usize, crate::num::ball::CBall)| -> Option<PNode> {
            let tf = step.t(n);
            // n·h exactly: n < 2^53 and h has 53 bits, so the product has at most 106
            let t = Interval::from_float(&(Float::with_val(CP, n) * Float::with_val(CP, h)), CP);
            let r = pc.ratio(&t, tf.m);
            let c2t2 = ci.mul(&ci).sub(&t.mul(&t));
            let es = CInterval::exp_of(&w2.mul(&c2t2).mul(&half), &w2.mul(&ci).mul(&t));
            let eb = CInterval::exp_of(&g2.mul(&c2t2).mul(&half), &g2.mul(&ci).mul(&t));
            // (c+it)(c+1+it) = c(c+1) − t² + i t(2c+1)
            let den = CInterval::new(ci.mul(&ci.add(&iv(1.0))).sub(&t.mul(&t)), t.mul(&ci.mul(&iv(2.0)).add(&iv(1.0))));
            let ps = r.mul(&es).mul(&den.inv()?);
            let pb = r.mul(&eb);
            Some(PNode { t, weight: if n == 0 { 1 } else { 2 }, ps, pb })
        };
        // |(c+it)(c+1+it)| ≥ c(c+1) > 0: a kernel that cannot be formed is a bug
        let nodes: Vec<PNode> = tab
            .live
            .par_iter()
            .map(node)
            .collect::<Option<_>>()
            .ok_or_else(|| err!(Internal, "smoothed inversion: a node's kernel is not certified"))?;
        let ln_m = pc.ln_m.clone();
        let hfac = iv(h).div(&Interval::pi(CP).mul(&iv(2.0)));
        let scanned = tab.live.len();
        let eng = DeltaBounds::with_table(th, w, lambda, h, tab, None, 0)?;
        Ok(Precise { eng, nodes, ln_m, hfac, rad_s, rad_b, scanned })
    }

    /// Σ ω_n Re[K(t_n) e^{−i t_n x}] for F_S and (when `with_b`) F_B, widened for the unevaluated nodes.
    fn sums(&self, x: &Float, with_b: bool) -> (Interval, Interval) {
        let xi = Interval::from_float(x, CP);
        let zero = Interval::zero(CP);
        let (mut ss, mut sb) = (zero.clone(), zero.clone());
        for nd in &self.nodes {
            let e = CInterval::exp_of(&zero, &nd.t.mul(&xi).neg());
            let wgt = iv(nd.weight as f64);
            ss = ss.add(&nd.ps.mul(&e).re().mul(&wgt));
            if with_b {
                sb = sb.add(&nd.pb.mul(&e).re().mul(&wgt));
            }
        }
        (ss.widen(&self.rad_s), sb.widen(&self.rad_b))
    }

    /// (lower bound of F_S(x), upper bound of F_S(x), upper bound of F_B(x)); the lower two only `with_lo`.
    fn f_bounds(&self, x: &Float, with_lo: bool) -> (Float, Float, Float) {
        let e = &self.eng;
        let c = e.tab.c;
        let (ss, sb) = self.sums(x, with_lo);
        let pref = self.ln_m.sub(&Interval::from_float(x, CP).mul(&iv(c))).exp(); // M(c) e^{−cx}
        let base = pref.mul(&self.hfac);
        let fs = base.mul(&ss);
        let up_mul = |a: &Float, b: f64| Float::with_val_round(CP, a * Float::with_val(CP, b), Round::Up).0;
        let trunc_s = up_mul(pref.hi(), e.trunc_s.hi());
        let hi = Float::with_val_round(CP, fs.hi() + &trunc_s, Round::Up).0;
        let inf = Float::with_val(CP, rug::float::Special::Infinity);
        if !with_lo {
            return (-inf.clone(), hi, inf);
        }
        // aliasing (m ≥ 1) at the Chernoff tilts: decreasing in x, so at x rounded down to f64 it is an upper bound
        let xd = x.to_f64_round(Round::Down);
        let alias_hi = e
            .chern
            .iter()
            .map(|&(cp, e0, q)| up(e0.sub(Ball::exact(cp).mul(Ball::exact(xd))).exp().hi() * q))
            .fold(f64::INFINITY, f64::min);
        let alias = up(e.alias_lo + alias_hi);
        let lo = Float::with_val_round(CP, fs.lo() - &trunc_s, Round::Down).0;
        let lo = Float::with_val_round(CP, &lo - alias, Round::Down).0;
        let fb = base.mul(&iv(e.g_s2pi.hi())).mul(&sb);
        let fb_hi = Float::with_val_round(CP, fb.hi() + up_mul(pref.hi(), e.trunc_b.hi()), Round::Up).0;
        let fin = |v: Float, d: &Float| if v.is_finite() { v } else { d.clone() };
        (fin(lo, &-inf.clone()), fin(hi, &inf), fin(fb_hi, &inf))
    }

    /// Certified upper bound of δ(ε) for every ε ≥ `eps` (u(y) = S(y + w²/2), so x ≤ ε − w²/2).
    fn delta_hi(&self, eps: &Float) -> Float {
        let w = Float::with_val(CP, self.eng.ker.w);
        let sh = Float::with_val_round(CP, Float::with_val_round(CP, &w * &w, Round::Up).0 / 2u32, Round::Up).0;
        let x = Float::with_val_round(CP, eps - &sh, Round::Down).0;
        self.f_bounds(&x, false).1
    }

    /// Certified lower bound of δ(ε) for every ε ≤ `eps` (v(y) = S(y) − β e^{−y²/(2γ²)}).
    fn delta_lo(&self, eps: &Float) -> Float {
        let (fs_lo, _, fb_hi) = self.f_bounds(eps, true);
        let b = Float::with_val_round(CP, &fb_hi * Float::with_val(CP, self.eng.beta), Round::Up).0;
        let v = Float::with_val_round(CP, &fs_lo - &b, Round::Down).0;
        if v.is_nan() {
            Float::with_val(CP, rug::float::Special::NegInfinity)
        } else {
            v
        }
    }
}

/// A certified end of the ε bracket: the secant method on ln(bound(x)) − ln δ (close to linear, slope ≈ −c)
/// from `x0` to a root r within tol/16, then r + side·m for m = tol/64, 4× larger each time, until `good`
/// (the certificate) holds. None if the iteration does not settle or nothing passes.
fn crossing(
    bound: impl Fn(&Float) -> Float,
    ln_d: &Float,
    x0: f64,
    c: f64,
    tol: f64,
    side: f64,
    good: impl Fn(&Float) -> bool,
) -> Option<Float> {
    let gap = |x: &Float| {
        let v = bound(x);
        (v > 0 && v.is_finite()).then(|| Float::with_val(CP, v.ln_ref()) - ln_d)
    };
    let mut xa = Float::with_val(CP, x0);
    let mut ga = gap(&xa)?;
    let mut xb = Float::with_val(CP, &xa + Float::with_val(CP, &ga / c.max(1e-3)));
    let mut root = None;
    for _ in 0..40 {
        let gb = gap(&xb)?;
        let dx = Float::with_val(CP, &xb - &xa);
        if dx.clone().abs() <= tol / 16.0 {
            root = Some(xb);
            break;
        }
        let slope = Float::with_val(CP, &gb - &ga) / &dx;
        if !(slope < 0 && slope.is_finite()) {
            return None;
        }
        let next = Float::with_val(CP, &xb - Float::with_val(CP, &gb / &slope));
        if !next.is_finite() || Float::with_val(CP, &next - &xb).abs() > 50 {
            return None;
        }
        (xa, ga, xb) = (xb, gb, next);
    }
    let r = root?;
    let mut m = tol / 64.0;
    for _ in 0..12 {
        let x = Float::with_val(CP, &r + side * m);
        if good(&x) {
            return Some(x);
        }
        m *= 4.0;
    }
    None
}

/// Certified ε(δ) bracket of about `p.width` by the 20-digit tier, starting from the f64 tier's bracket
/// `start` (its tilt and midpoint). Narrows w up to three times.
pub(super) fn epsilon_precise(th: &Thetas, sh: &Shape, delta: &Rational, p: &SmoothParams, start: &SmoothResult) -> Fallible<SmoothResult> {
    let dq = Float::with_val(CP, delta);
    let ln_d = Float::with_val(CP, dq.ln_ref());
    let ld = ln_d.to_f64();
    let c = start.c;
    let lam = p.lambda;
    let mid = Float::with_val(CP, &start.lo + &start.hi) / 2u32;
    let eps0 = mid.to_f64();
    let mut w = p.w.unwrap_or_else(|| (0.5 * p.width / (4.0 * (c + 1.0) * (1.0 / (2.0 * c) + lam))).sqrt());
    // a width beyond reach within MAX_NODES_P nodes: the narrowest w that fits (N ∝ ~1/w)
    for _ in 0..4 {
        match design_upto(sh, c, w, eps0, ld, usize::MAX) {
            Ok((_, n)) if n > MAX_NODES_P => w *= n as f64 / MAX_NODES_P as f64 * 1.05,
            _ => break,
        }
    }
    let mut best: Option<SmoothResult> = None;
    for attempt in 1..=3u32 {
        let built = design_upto(sh, c, w, eps0, ld, MAX_NODES_P).and_then(|(h, n)| Precise::new(th, c, w, lam, h, n).map(|e| (e, h, n)));
        let (eng, h, n) = match (built, best.take()) {
            (Ok(b), _) => b,
            (Err(e), Some(prev)) if e.is_declined() => return Ok(prev),
            (Err(e), _) => return Err(e),
        };
        let tol = (p.width * 1e-2).max(1e-28 * eps0.abs().max(1.0));
        let hi = crossing(|x| eng.delta_hi(x), &ln_d, eps0, c, tol, 1.0, |x| eng.delta_hi(x) <= dq)
            .ok_or_else(|| err!(Declined, "smoothed inversion (20-digit tier): no certified upper end found"))?;
        let lo = crossing(|x| eng.delta_lo(x), &ln_d, eps0, c, tol, -1.0, |x| eng.delta_lo(x) >= dq)
            .filter(|x| *x <= hi)
            .ok_or_else(|| err!(Declined, "smoothed inversion (20-digit tier): no certified lower end found"))?;
        let zero = Float::with_val(CP, 0);
        let res = SmoothResult {
            lo: if lo < 0 { zero.clone() } else { lo },
            hi: if hi < 0 { zero } else { hi },
            w,
            c,
            h,
            nodes: n + 1,
            live: eng.scanned,
            period: None,
            attempts: start.attempts + attempt,
            precise: true,
            fallback: None,
        };
        let width = res.width();
        if width <= p.width || p.w.is_some() {
            return Ok(res);
        }
        w *= (p.width / width).sqrt() * 0.8;
        best = Some(res);
    }
    Ok(best.expect("invariant: three attempts"))
}

#[cfg(test)]
mod tests {
    use super::super::drivers::epsilon_f64;
    use super::super::sieve::sieve;
    use super::super::tests::mg;
    use super::*;

    /// The 20-digit tier's ε bracket contains the lattice engine's 128-bit value (an independent, exact
    /// method) on commensurate compositions with wide groups (σ² ≥ 500, so the sieve runs) and narrow
    /// ones, at widths where its live nodes include the loss lattice's aliasing bumps (a few hundred MPFR
    /// nodes); and it is no wider than asked.
    #[test]
    fn precise_bracket_contains_lattice_epsilon() {
        let cases = [
            vec![mg("500", 2, 1), mg("700", 1, 1), mg("7/4", 4, 1), mg("5/2", 4, 1)],
            vec![mg("600", 3, 1), mg("900", 2, 2), mg("1", 3, 1)],
        ];
        for gs in &cases {
            let prof = crate::pld::compose::compose_groups(gs, 128).unwrap();
            let (sh, th) = (Shape::new(gs), Thetas::new(gs));
            for (d, width) in [("1e-10", 1e-6), ("1e-6", 4e-7)] {
                let delta = crate::num::parse_rational(d).unwrap();
                let exact = prof.epsilon(&delta).unwrap();
                let start = epsilon_f64(gs, &delta, &SmoothParams { width: 1e-5, ..Default::default() }).unwrap();
                let r = epsilon_precise(&th, &sh, &delta, &SmoothParams { width, ..Default::default() }, &start).unwrap();
                assert!(r.precise);
                assert!(
                    r.lo <= *exact.lo() && *exact.hi() <= r.hi,
                    "{gs:?} delta {d}: lattice [{}, {}] not in [{}, {}]",
                    exact.lo(),
                    exact.hi(),
                    r.lo,
                    r.hi
                );
                assert!(r.width() <= width, "{gs:?} delta {d}: width {}", r.width());
            }
        }
    }

    /// Every node the sieve leaves out lies outside all Poisson windows |μt − k·2πσ²| ≤ R of at least one
    /// group (checked directly, in f64 with a relative margin, at 20 000 random left-out nodes of a
    /// redistricting-like composition with incommensurate σ²), and the sieve leaves under 1% of the nodes.
    #[test]
    fn sieve_leaves_out_only_nodes_outside_a_groups_windows() {
        let gs = [mg("79623/10", 5, 2), mg("44241/10", 1, 2), mg("24307/10", 4, 2), mg("16009/10", 2, 2), mg("3/2", 3, 2)];
        let th = Thetas::new(&gs);
        let comps = prepare_cut(&th, 2.8, LCUT_P).unwrap();
        let (h, n_nodes) = (0.25, 4_000_000_000usize);
        let step = Step { h: Ball::exact(h) };
        let sv = sieve(&comps, step, n_nodes, DEAD_P).expect("wide groups sieve");
        assert!(sv.bound < DEAD_P);
        let kept: usize = sv.ranges.iter().map(|&(a, b)| b - a + 1).sum();
        assert!(sv.ranges[0].0 == 0 && (kept as f64) < 0.01 * n_nodes as f64, "kept {kept}");
        let mut rng = crate::num::xorshift::XorShift(99);
        let mut checked = 0;
        while checked < 20_000 {
            let n = (rng.next_u64() % n_nodes as u64) as usize;
            let i = sv.ranges.partition_point(|&(_, b)| b < n);
            if i < sv.ranges.len() && sv.ranges[i].0 <= n {
                continue;
            }
            let t = n as f64 * h;
            let outside = gs.iter().any(|g| {
                let (s2, mu) = (g.sigma2.to_f64(), g.mu as f64);
                let (per, r) = (2.0 * std::f64::consts::PI * s2, (2.0 * s2 * LCUT_P).sqrt());
                let k = (mu * t / per).round();
                // the nearest window centre and its neighbours, with a margin far above f64 rounding
                (-1..=1).all(|j| (mu * t - (k + j as f64) * per).abs() > r * (1.0 + 1e-9) + 1e-4)
            });
            assert!(outside, "node {n} (t = {t}) left out but inside every group's windows");
            checked += 1;
        }
        // and conversely every node of the first 4·10⁶ (t ≤ 10⁶) inside a window of each sieving group (window
        // fraction 2R/(2πσ²) ≤ 1/4) is kept: near t = 0 and at the windows' rare coincidences
        let sieving: Vec<(f64, f64, f64)> = gs
            .iter()
            .map(|g| (g.sigma2.to_f64(), g.mu as f64))
            .map(|(s2, mu)| (2.0 * std::f64::consts::PI * s2, (2.0 * s2 * LCUT_P).sqrt(), mu))
            .filter(|&(per, r, _)| 2.0 * r / per <= 0.25)
            .collect();
        assert_eq!(sieving.len(), 4);
        let mut inside_all = 0;
        for n in 0..4_000_000usize {
            let t = n as f64 * h;
            let inside = sieving.iter().all(|&(per, r, mu)| {
                let k = (mu * t / per).round();
                (mu * t - k * per).abs() < r * (1.0 - 1e-9)
            });
            if inside {
                let i = sv.ranges.partition_point(|&(_, b)| b < n);
                assert!(i < sv.ranges.len() && sv.ranges[i].0 <= n, "node {n} (t = {t}) inside every window but left out");
                inside_all += 1;
            }
        }
        assert!(inside_all > 100, "only {inside_all} nodes inside every window");
    }
}
