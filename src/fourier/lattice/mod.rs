//! Certified lattice Fourier inversion: tails P[V ≥ m] and P[V ≤ m] of the loss statistic
//! V = Σ_q w_q T_q (`pld::profile`: under the alternative the composed loss is L = hV + c), at a cost that
//! does not grow with the numbers of queries n_q.
//!
//! The n-fold law is never built. For a tilt c > 0 and every integer m,
//!
//!   P[V ≥ m] = (1/2π) ∫_{−π}^{π} F(θ) dθ,   F(θ) = M(c + iθ) e^{−(c+iθ)m} / (1 − e^{−(c+iθ)}),
//!
//! with M(z) = E e^{zV} = Π_q φ_q(w_q z)^{n_q} (expand M and the geometric series Σ_{j≥m} e^{−zj}; the
//! θ-integral keeps j = v). F is 2π-periodic and its Fourier coefficient of index r is e^{cr} P[V ≥ m + r],
//! so the trapezoidal rule with N nodes θ_ℓ = 2πℓ/N is exact up to aliasing of one sign:
//!
//!   T_N = (1/N) Σ_ℓ F(θ_ℓ) = P[V ≥ m] + Σ_{q≥1} e^{cqN} P[V ≥ m + qN] + Σ_{q≥1} e^{−cqN} P[V ≥ m − qN],
//!
//! the second sum below e^{−cN}/(1 − e^{−cN}) (P ≤ 1) and the first below
//! M(c′) e^{−c′m} e^{−(c′−c)N}/(1 − e^{−(c′−c)N}) for any c′ > c (Chernoff; here c′ = 2c). So
//! P[V ≥ m] ∈ [T_N − bounds, T_N]. (The same construction as `fourier::fast` [SSW24, Prop. A.13 moved to the
//! saddle point], there in floating point; here every term is enclosed.)
//!
//! With c at the saddle point of ln M(c) − cm, |F| is a bump of width ~1/sd(V) around θ = 0 and N ≈ 10 sd(V)
//! — possibly 10⁹ nodes at n = 10⁷ — but only the few dozen nodes where |F| is not negligible are
//! evaluated (in MPFR complex interval arithmetic, `factor::Factor::ln_mgf`); all others are bounded in
//! blocks by the certified modulus bounds of `factor` (ln |ψ_q| ≤ bound(dist(w_q θ, 2πℤ))), so the work is
//! independent of n. Lower tails are upper tails of −V.

pub mod factor;
pub mod sparse;

use crate::error::Fallible;
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use factor::{cexp, Factor};
use num_complex::Complex64;
use rug::float::Round;
use rug::{Float, Rational};
use std::collections::HashMap;
use std::f64::consts::{LN_2, PI};
use std::sync::Mutex;

/// Most nodes one inversion evaluates before it declines (a composition whose factors peak together at
/// many nodes is left to the other engines).
pub const MAX_LIVE: u64 = 100_000;

/// Largest node count of one inversion (the nodes are only counted, but θ_ℓ = 2πℓ/N is formed from ℓ and N).
const MAX_NODES: u64 = 1 << 60;

/// Tails of V by certified inversion, each to a relative accuracy of about 2^-bits, cached.
#[derive(Debug)]
pub struct FourierTails {
    factors: Vec<Factor>,
    bits: u32,
    mean: f64,
    var: f64,
    support: Option<(i128, i128)>,
    /// each tail with the nodes its inversion evaluated (added to the work meter again when served)
    cache: Mutex<HashMap<(i64, bool), (Interval, u64)>>,
    /// precision of the returned intervals
    out_prec: u32,
    /// bits of mass beyond the search window (each tail beyond it is below 2^-window_bits)
    window_bits: u32,
    /// the first error met by the oracle interface
    first_error: Mutex<Option<crate::error::Error>>,
}

/// Tilt c, aliasing parameter η and node count of one inversion.
struct Plan {
    c: f64,
    eta: f64,
    nodes: f64,
}

/// One inversion's bookkeeping.
#[derive(Clone, Debug)]
struct Inversion {
    nodes: u64,
    live: u64,
}

impl FourierTails {
    /// `bits`: the relative accuracy asked of every tail (the accountant's digits plus guard bits).
    pub fn new(factors: Vec<Factor>, bits: u32) -> Fallible<FourierTails> {
        if factors.is_empty() {
            return crate::fallible!(Internal, "lattice Fourier inversion of an empty composition");
        }
        let mut mean = 0.0;
        let mut var = 0.0;
        let mut support = Some((0i128, 0i128));
        for f in &factors {
            if f.n == 0 || f.w == 0 {
                return crate::fallible!(Internal, "lattice Fourier factor with n = 0 or w = 0");
            }
            let (m, v) = f.law.mean_var();
            mean += f.n as f64 * f.w as f64 * m;
            var += f.n as f64 * (f.w as f64).powi(2) * v;
            support = match (support, f.law.support()) {
                (Some((lo, hi)), Some((a, b))) => {
                    let (x, y) = (f.n as i128 * f.w as i128 * a as i128, f.n as i128 * f.w as i128 * b as i128);
                    Some((lo + x.min(y), hi + x.max(y)))
                }
                _ => None,
            };
        }
        if !(var > 0.0) || !var.is_finite() {
            return crate::fallible!(Declined, "the lattice Fourier inversion needs a statistic with positive, finite variance");
        }
        let out_prec = bits + 32;
        Ok(FourierTails {
            factors,
            bits,
            mean,
            var,
            support,
            cache: Mutex::new(HashMap::new()),
            out_prec,
            window_bits: bits + 64,
            first_error: Mutex::new(None),
        })
    }

    pub fn prec(&self) -> u32 {
        self.out_prec
    }

    /// The search window covers all but about 2^-bits of the mass on each side.
    pub fn with_window_bits(mut self, bits: u32) -> FourierTails {
        self.window_bits = bits;
        self
    }

    pub fn mean_sd(&self) -> (f64, f64) {
        (self.mean, self.var.sqrt())
    }

    /// Certified P[V ≥ m].
    pub fn ge(&self, m: i64) -> Fallible<Interval> {
        self.cached(m, true)
    }

    /// Certified P[V ≤ m].
    pub fn le(&self, m: i64) -> Fallible<Interval> {
        self.cached(m, false)
    }

    fn cached(&self, m: i64, upper: bool) -> Fallible<Interval> {
        within_limit()?;
        if let Some((v, nodes)) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&(m, upper)) {
            // (refused where the fresh inversion would be: `affordable` before its nodes)
            affordable(*nodes)?;
            meter_add(*nodes);
            return Ok(v.clone());
        }
        let before = work_meter();
        let v = self.tail(m, upper)?;
        let nodes = work_meter().saturating_sub(before);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert((m, upper), (v.clone(), nodes));
        Ok(v)
    }

    /// P[V ≥ m] (upper) or P[V ≤ m]: the smaller side directly, the other as its complement.
    fn tail(&self, m: i64, upper: bool) -> Fallible<Interval> {
        let p = self.out_prec;
        // P[V ≤ m] = P[−V ≥ −m]; P[V ≥ m] = 1 − P[V ≤ m − 1]
        let (s, mm) = if upper { (1i64, m as i128) } else { (-1i64, -(m as i128)) };
        let centre = s as f64 * self.mean;
        if (mm as f64) > centre {
            self.upper_tail(s, mm)
        } else {
            // complement: P[sV ≥ mm] = 1 − P[sV ≤ mm − 1] = 1 − P[−sV ≥ −(mm − 1)]
            let c = self.upper_tail(-s, -(mm - 1))?;
            let one = Interval::one(p);
            let v = one.sub(&c);
            Ok(v.clamp_unit())
        }
    }

    /// P[sV ≥ m] for m above the mean of sV, by the inversion of the module doc.
    fn upper_tail(&self, s: i64, m: i128) -> Fallible<Interval> {
        let p = self.out_prec;
        // bounded support: exact 0 / 1 beyond it
        if let Some((lo, hi)) = self.support {
            let (lo, hi) = if s > 0 { (lo, hi) } else { (-hi, -lo) };
            if m > hi {
                return Ok(Interval::zero(p));
            }
            if m <= lo {
                return Ok(Interval::one(p));
            }
        }
        let mf = m as f64;
        let Plan { c, eta, nodes: nf, .. } = self.plan(s, mf, self.bits)?;
        let n_nodes = (nf as u64) | 1;
        // working precision: the bits asked plus the size of n·ln φ and of c·m
        let scale: f64 = self
            .factors
            .iter()
            .map(|f| f.n as f64 * (1.0 + f.law.ln_mgf_f64(Complex64::new(s as f64 * f.w as f64 * c, 0.0)).re.abs()))
            .sum::<f64>()
            + (c * mf).abs()
            + n_nodes as f64;
        let wp = self.bits + 40 + scale.max(1.0).log2().ceil() as u32;
        let cq = Rational::from_f64(c).expect("invariant: finite tilt");
        let ci = Interval::from_rational(&cq, wp);
        let inv = Inversion { nodes: n_nodes, live: 0 };
        let (t, inv) = self.trapezoid(s, m, &ci, c, inv, wp)?;
        meter_add(inv.live);
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!(
                "lattice-fourier: P[{}V >= {m}]: tilt {c:.4e}, {} nodes, {} evaluated, {wp} bits",
                if s > 0 { "" } else { "-" },
                inv.nodes,
                inv.live
            );
        }
        // aliasing bounds (module doc, with c± = c(1 ± η)): E± ≤ M(c±) e^{−c± m} e^{−ηcN}/(1 − e^{−ηcN})
        let etaq = Rational::from_f64(eta).expect("invariant: finite eta");
        let one = Interval::one(wp);
        let ecn = ci.mul_rational(&(etaq.clone() * Rational::from(n_nodes))).neg().exp();
        let geo = ecn.div(&one.sub(&ecn));
        let side = |sign: i32| -> Fallible<Interval> {
            let f = Rational::from(1) + etaq.clone() * Rational::from(sign);
            let cs = ci.mul_rational(&f);
            Ok(self.exponent(s, m, &cs, &Interval::zero(wp), wp)?.re().exp().mul(&geo))
        };
        let e_plus = side(1)?;
        let e_minus = if eta < 1.0 { side(-1)? } else { geo.clone() };
        let lo = Float::with_val_round(wp, t.lo() - e_minus.hi(), Round::Down).0;
        let lo = Float::with_val_round(wp, &lo - e_plus.hi(), Round::Down).0;
        let v = Interval::new(lo.min(t.hi()), t.hi().clone());
        Ok(round_to(&v, p).clamp_unit())
    }

    /// The tilt, the aliasing parameter η and the node count for P[sV ≥ m] to about 2^-bits.
    fn plan(&self, s: i64, mf: f64, bits: u32) -> Fallible<Plan> {
        // the saddle point, but not closer to the mean than half a standard deviation (or half a lattice
        // step for laws concentrated on one point): near the mean the saddle tends to 0 and N ~ 1/c
        let c_min = self.saddle(s, s as f64 * self.mean + 0.5 * self.var.sqrt().max(1.0));
        let c = self.saddle(s, mf).max(c_min);
        let kc = self.k_f64(s, c);
        let tol_ln = -(bits as f64) * LN_2;
        let est_ln = kc - c * mf - (1.0 + c * (2.0 * PI * self.var).sqrt()).ln();
        if !est_ln.is_finite() || !kc.is_finite() || !(c > 0.0) {
            return crate::fallible!(Declined, "the lattice Fourier inversion's saddle point is out of the double range");
        }
        // N from the two aliasing sums (module doc), each bounded by Chernoff at a tilt c(1 ± η) on its own
        // side: Σ_{q≥1} e^{∓cqN} P[V ≥ m ± qN] ≤ M(c±)e^{−c± m} e^{−ηcN}/(1 − e^{−ηcN}); η is chosen for the
        // fewest nodes (deep tails: P ~ e^{−10⁶} needs a small η, where the plain bound P ≤ 1 would ask
        // ln(1/P)/c nodes)
        let need = |eta: f64| {
            let up = self.k_f64(s, c * (1.0 + eta)) - c * (1.0 + eta) * mf;
            let dn = self.k_f64(s, c * (1.0 - eta)) - c * (1.0 - eta) * mf;
            ((up.max(dn) - est_ln - tol_ln + 4.0) / (eta * c)).max(3.0)
        };
        let (eta, nf) = [1.0, 0.5, 0.25, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001]
            .iter()
            .map(|&e| (e, need(e)))
            .filter(|(_, n)| n.is_finite())
            .fold((1.0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
        let nf = nf.ceil();
        if !(nf < MAX_NODES as f64) {
            return crate::fallible!(Declined, "the lattice Fourier inversion would need {nf:.3e} nodes");
        }
        Ok(Plan { c, eta, nodes: nf })
    }

    /// ln M(sc) − ... as f64: K_s(c) = Σ_q n_q ln φ_q(s w_q c).
    fn k_f64(&self, s: i64, c: f64) -> f64 {
        self.factors.iter().map(|f| f.n as f64 * f.law.ln_mgf_f64(Complex64::new(s as f64 * f.w as f64 * c, 0.0)).re).sum()
    }

    /// K_s′(c) = Σ_q n_q s w_q (tilted mean of Y_q at s w_q c).
    fn k1_f64(&self, s: i64, c: f64) -> f64 {
        self.factors.iter().map(|f| f.n as f64 * s as f64 * f.w as f64 * f.law.tilted_mean_f64(s as f64 * f.w as f64 * c)).sum()
    }

    /// The tilt c > 0 with K′(c) = m (bisection in f64; any c > 0 is correct, the saddle is cheapest).
    fn saddle(&self, s: i64, m: f64) -> f64 {
        let sd = self.var.sqrt();
        let mut lo = 0.0;
        let mut hi = (m - s as f64 * self.mean).abs() / self.var + 1.0 / sd;
        let mut it = 0;
        while self.k1_f64(s, hi) < m && it < 60 {
            lo = hi;
            hi *= 2.0;
            it += 1;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if self.k1_f64(s, mid) < m {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// G(z) = Σ_q n_q ln φ_q(s w_q z) − z m at z = c + iθ, certified (None-free: an enclosure of φ that may
    /// contain 0 is an error the caller turns into a bound).
    fn exponent(&self, s: i64, m: i128, c: &Interval, theta: &Interval, wp: u32) -> Fallible<CInterval> {
        let mi = Interval::from_rational(&Rational::from(rug::Integer::from(m)), wp);
        let mut g = CInterval::new(c.mul(&mi).neg(), theta.mul(&mi).neg());
        for f in &self.factors {
            let sw = Interval::from_i64(s * f.w, wp);
            let l = f.law.ln_mgf(&c.mul(&sw), &theta.mul(&sw), wp).ok_or_else(|| crate::err!(Declined, "phi may vanish at a node"))?;
            g = g.add(&l.scale(&Interval::from_rational(&Rational::from(f.n), wp)));
        }
        Ok(g)
    }

    /// F(θ) = e^{G(c+iθ)} / (1 − e^{−(c+iθ)}).
    fn node(&self, s: i64, m: i128, c: &Interval, theta: &Interval, wp: u32) -> Fallible<CInterval> {
        let g = self.exponent(s, m, c, theta, wp)?;
        let e = cexp(&g);
        let d = CInterval::exp_of(&c.neg(), &theta.neg());
        let den = CInterval::one(wp).add(&CInterval::new(d.re().neg(), d.im().neg()));
        let inv = den.inv().ok_or_else(|| crate::err!(Internal, "1 − e^{{−z}} vanishes at a node"))?;
        // an enclosure with an infinite end (the exponent's enclosure too wide for MPFR's range, or a factor
        // whose transform is not bounded at this tilt) cannot be multiplied (0 · ∞): this engine declines
        if !(finite(&e) && finite(&inv)) {
            return crate::fallible!(Declined, "the lattice Fourier inversion's transform is not finite at a node (tilt {})", c.to_f64());
        }
        Ok(e.mul(&inv))
    }

    /// An f64 upper bound of ln |F(θ)| for every θ = 2πℓ/N with ℓ in [l1, l2] (1 ≤ l1 ≤ l2 ≤ (N−1)/2).
    fn ln_block_bound(&self, s: i64, c: f64, g0_hi: f64, n: u64, l1: u64, l2: u64) -> f64 {
        let mut ln = g0_hi;
        for f in &self.factors {
            let w = f.w.unsigned_abs() as u128;
            let (a, b) = (w * l1 as u128, w * l2 as u128);
            let nn = n as u128;
            let dmin = if a / nn != b / nn || a % nn == 0 {
                0.0
            } else {
                let (ra, rb) = (a % nn, b % nn);
                let d = ra.min(nn - rb).min(nn - ra).min(rb);
                2.0 * PI * d as f64 / n as f64
            };
            let d = dmin.min(PI);
            ln += f.n as f64 * f.law.ln_abs_bound(s as f64 * f.w as f64 * c, d);
        }
        // |1 − e^{−c−iθ}|² = (1 − e^{−c})² + 4e^{−c} sin²(θ/2), smallest at θ_{l1}
        let th = 2.0 * PI * l1 as f64 / n as f64;
        let sn = (th / 2.0).sin();
        let den2 = (-(-c).exp_m1()).powi(2) + 4.0 * (-c).exp() * sn * sn;
        ln - 0.5 * den2.ln() + 1e-9 * (1.0 + ln.abs())
    }

    /// The nodes of one inversion with N = `n` nodes that must be evaluated, and the bound on all others
    /// (f64 only: no node is evaluated here, so a composition whose factors peak together at too many
    /// nodes is declined before any MPFR work). `g0_hi` bounds Re G(c) from above, `ln_f0` is ln F(0)
    /// from below: the dead budget is Σ over dead nodes of |F| ≤ 2^-(bits+6) F(0) (module doc: T_N ≈
    /// F(0)/sd(V) and N ≈ 10 sd(V)).
    fn walk(&self, s: i64, c: f64, g0_hi: f64, ln_f0: f64, n: u64) -> Fallible<Walk> {
        let budget_ln = ln_f0 - (self.bits as f64 + 6.0) * LN_2;
        let half = (n - 1) / 2;
        let mut w = Walk { live: Vec::new(), count: 0, dead_ln: f64::NEG_INFINITY };
        let take = |w: &mut Walk, a: u64, b: u64| -> Fallible<()> {
            match w.live.last_mut() {
                Some(last) if last.1 + 1 == a => last.1 = b,
                _ => w.live.push((a, b)),
            }
            w.count += b - a + 1;
            if w.count + 1 > MAX_LIVE {
                return crate::fallible!(Declined, "the lattice Fourier inversion has more than {MAX_LIVE} live nodes");
            }
            Ok(())
        };
        // live run from ℓ = 1 while a node's own bound exceeds the per-node share of the budget
        let mut l = 1u64;
        let per_node_ln = budget_ln - ((half.max(1)) as f64).ln();
        while l <= half && self.ln_block_bound(s, c, g0_hi, n, l, l) >= per_node_ln - 2.0 {
            take(&mut w, l, l)?;
            l += 1;
        }
        // dead blocks [l, 2l − 1], [2l, 4l − 1], … with budgets B/2, B/4, …; a block over its budget is split,
        // small blocks are evaluated
        let mut stack: Vec<(u64, u64, f64)> = Vec::new();
        let mut start = l;
        let mut share: f64 = 0.5;
        while start <= half {
            let end = (2 * start).min(half + 1) - 1;
            stack.push((start, end.max(start), budget_ln + share.ln()));
            start = end.max(start) + 1;
            share *= 0.5;
        }
        stack.reverse();
        let mut blocks = 0u64;
        while let Some((a, b, bud)) = stack.pop() {
            blocks += 1;
            if blocks > 64 * MAX_LIVE {
                return crate::fallible!(
                    Declined,
                    "the lattice Fourier inversion's node bounds did not resolve in {} blocks",
                    64 * MAX_LIVE
                );
            }
            let cnt = (b - a + 1) as f64;
            let lb = self.ln_block_bound(s, c, g0_hi, n, a, b);
            if lb + cnt.ln() <= bud {
                w.dead_ln = add_ln(w.dead_ln, LN_2 + lb + cnt.ln());
                continue;
            }
            if b - a < 4 {
                take(&mut w, a, b)?;
                continue;
            }
            let mid = a + (b - a) / 2;
            stack.push((mid + 1, b, bud - LN_2));
            stack.push((a, mid, bud - LN_2));
        }
        Ok(w)
    }

    /// The m > mean of sV where the Chernoff bound min_c K_s(c) − cm on P[sV ≥ m] falls to `target_ln`
    /// (f64, by doubling and bisection on m).
    fn chernoff_edge(&self, s: i64, target_ln: f64) -> f64 {
        let centre = s as f64 * self.mean;
        let chernoff = |m: f64| {
            let c = self.saddle(s, m);
            self.k_f64(s, c) - c * m
        };
        let mut step = self.var.sqrt().max(1.0);
        let mut hi = centre + step;
        let mut it = 0;
        while chernoff(hi) > target_ln && it < 200 {
            step *= 2.0;
            hi = centre + step;
            it += 1;
        }
        let mut lo = centre;
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if chernoff(mid) > target_ln {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }

    /// Nodes an inversion would evaluate, the most over tails on each side from half a standard deviation
    /// out (where the tilt is at its floor and the node count largest) to the window's edge
    /// (`with_window_bits`; 1, 2, 4 sd and tails of 2^-64, 2^-256, … between): the f64 walk alone, a cost
    /// estimate for the engine choice. The count depends on the tail through its tilt: N_Z(0, 10¹⁰) with 3 ×
    /// DLap(1) (weights 1 and 2·10¹⁰) has ~900 live nodes 4 sd out and over 100,000 at the centre, where
    /// 1.4·10¹² nodes put two million under the Gaussian factor's bump. Every inversion walks again and
    /// declines on its own.
    pub fn live_estimate(&self) -> Fallible<u64> {
        let mut most = 0;
        let mut depths = vec![64u32, 256, 1024, 4096, 16384];
        depths.retain(|&d| d < self.window_bits);
        depths.push(self.window_bits);
        for s in [1i64, -1] {
            let sd = self.var.sqrt().max(1.0);
            let mut points: Vec<f64> = [1.0, 2.0, 4.0].iter().map(|k| s as f64 * self.mean + k * sd).collect();
            points.extend(depths.iter().map(|&d| self.chernoff_edge(s, -(d as f64) * LN_2)));
            for m in points {
                if let Some((lo, hi)) = self.support {
                    let (_, hi) = if s > 0 { (lo, hi) } else { (-hi, -lo) };
                    if m > hi as f64 {
                        continue;
                    }
                }
                let Plan { c, nodes, .. } = self.plan(s, m.round(), self.bits)?;
                let g0 = self.k_f64(s, c) - c * m.round();
                let g0_hi = g0 + 1e-9 * (1.0 + g0.abs());
                let ln_f0 = g0 - (-(-c).exp_m1()).ln();
                most = most.max(self.walk(s, c, g0_hi, ln_f0, (nodes as u64) | 1)?.count + 1);
            }
        }
        Ok(most)
    }

    /// The trapezoidal sum T_N, certified: the live nodes of [`Self::walk`] evaluated (in parallel), the
    /// others bounded in blocks.
    fn trapezoid(&self, s: i64, m: i128, ci: &Interval, c: f64, mut inv: Inversion, wp: u32) -> Fallible<(Interval, Inversion)> {
        use rayon::prelude::*;
        let n = inv.nodes;
        let zero = Interval::zero(wp);
        let f0 = self.node(s, m, ci, &zero, wp)?;
        let g0 = self.exponent(s, m, ci, &zero, wp)?;
        let g0_hi = g0.re().hi().to_f64() + 1e-9 * (1.0 + g0.re().hi().to_f64().abs());
        // ln F(0) = Re G(c) − ln(1 − e^{−c}), from the enclosure's lower end (F(0) itself may be far below the
        // double range)
        let ln_f0 = g0.re().lo().to_f64() - (-(-c).exp_m1()).ln();
        let walk = self.walk(s, c, g0_hi, ln_f0, n).inspect_err(|_| {
            if std::env::var_os("TIGHTDP_TRACE").is_some() {
                eprintln!("lattice-fourier: P[{}V >= {m}]: tilt {c:.4e}, {n} nodes: declined", if s > 0 { "" } else { "-" })
            }
        })?;
        affordable(walk.count + 1)?;
        let theta = |l: u64| Interval::pi(wp).mul_rational(&Rational::from((2 * l, n)));
        // each live node: 2 Re F(θ_ℓ), or (a factor's enclosure may contain 0) its bound, counted as dead
        let one = |l: u64| -> Fallible<(Interval, f64)> {
            crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
            match self.node(s, m, ci, &theta(l), wp) {
                Ok(f) => Ok((f.re().mul_rational(&Rational::from(2)), f64::NEG_INFINITY)),
                Err(e) if e.is_declined() => Ok((Interval::zero(wp), LN_2 + self.ln_block_bound(s, c, g0_hi, n, l, l))),
                Err(e) => Err(e),
            }
        };
        let nodes: Vec<u64> = walk.live.iter().flat_map(|&(a, b)| a..=b).collect();
        let parts: Vec<(Interval, f64)> = if nodes.len() >= PARALLEL_FROM {
            nodes.par_iter().map(|&l| one(l)).collect::<Fallible<_>>()?
        } else {
            nodes.iter().map(|&l| one(l)).collect::<Fallible<_>>()?
        };
        let mut sum = f0.re().clone();
        let mut dead_ln = walk.dead_ln;
        for (v, d) in parts {
            sum = sum.add(&v);
            dead_ln = add_ln(dead_ln, d);
        }
        // e^{dead_ln}, rounded up (with a margin for the f64 log-sum-exp)
        let dead_f = if dead_ln == f64::NEG_INFINITY {
            Float::with_val(wp, 0)
        } else {
            Float::with_val_round(wp, dead_ln + 1e-9 * (1.0 + dead_ln.abs()), Round::Up).0.exp()
        };
        let sum = sum.widen(&dead_f);
        let t = sum.mul_rational(&Rational::from((1, n)));
        inv.live = walk.count + 1;
        Ok((t, inv))
    }
}

/// The live nodes of one inversion (ranges of ℓ), their count, and ln of the bound on all other nodes.
struct Walk {
    live: Vec<(u64, u64)>,
    count: u64,
    dead_ln: f64,
}

thread_local! {
    /// Nodes the inversions asked on this thread evaluated — a tail served from the cache counts its
    /// nodes again — so that a caller can count the work of a query, the same whatever was asked before.
    static METER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn meter_add(nodes: u64) {
    METER.with(|m| m.set(m.get().saturating_add(nodes)));
}

/// The nodes counted on this thread so far ([`METER`]); a caller measures a query by the difference.
pub fn work_meter() -> u64 {
    METER.with(|m| m.get())
}

thread_local! {
    /// The meter reading at which this thread's tails are refused ([`with_work_limit`]), and whether one was.
    static LIMIT: std::cell::Cell<(u64, bool)> = const { std::cell::Cell::new((u64::MAX, false)) };
}

/// Runs `f` with every tail asked on this thread refused (`Resource`) once [`work_meter`] reads `limit` or
/// more: a work budget that holds within a query, not only between queries. The check is made before every
/// tail, served from the cache or not, so the refusal comes at the same tail whatever ran before. Returns
/// `f`'s result and whether a tail was refused (a search that reads a refused tail as "undecided" still
/// tells its caller so).
pub fn with_work_limit<R>(limit: u64, f: impl FnOnce() -> R) -> (R, bool) {
    struct Restore((u64, bool));
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    let restore = Restore(LIMIT.with(|l| l.replace((limit, false))));
    let r = f();
    let refused = LIMIT.with(|l| l.get().1);
    drop(restore);
    (r, refused)
}

/// Uncertified (f64) nodes per node of the meter: an f64 node costs well under a sixteenth of a certified one.
const F64_NODE_SHARE: u64 = 16;

/// The meter reading and this thread's limit, if the meter has reached it.
fn limit_met() -> Option<(u64, u64)> {
    let (used, (limit, _)) = (work_meter(), LIMIT.with(|l| l.get()));
    (used >= limit).then_some((used, limit))
}

/// The refusal of a tail asked at or beyond the work limit (marked, for [`with_work_limit`] to report).
fn within_limit() -> Fallible<()> {
    if let Some((used, limit)) = limit_met() {
        LIMIT.with(|l| l.set((limit, true)));
        return crate::fallible!(Resource, "the inversions' work limit is met ({used} nodes counted on this thread, limit {limit})");
    }
    Ok(())
}

/// The refusal (marked, as [`within_limit`]) of an inversion whose `nodes` would take the meter past this
/// thread's limit: the budget holds before the nodes are evaluated, not one inversion late (10^12
/// subsampled Gaussians on the pld grid: one inversion of 100,000 live nodes at 170 bits ran for 48 s past a
/// spent budget).
fn affordable(nodes: u64) -> Fallible<()> {
    let (used, (limit, _)) = (work_meter(), LIMIT.with(|l| l.get()));
    if used.saturating_add(nodes) > limit {
        LIMIT.with(|l| l.set((limit, true)));
        return crate::fallible!(
            Resource,
            "the inversions' work limit would be passed ({used} nodes counted on this thread, {nodes} more asked, limit {limit})"
        );
    }
    Ok(())
}

/// Live nodes from which one inversion evaluates them on all threads.
const PARALLEL_FROM: usize = 64;

/// ln(e^acc + e^x) in f64, with −∞ for an empty sum.
fn add_ln(acc: f64, x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return acc;
    }
    if acc >= x {
        acc + (x - acc).exp().ln_1p()
    } else {
        x + (acc - x).exp().ln_1p()
    }
}

impl FourierTails {
    /// ln P[V ≥ m] (upper) or ln P[V ≤ m] in f64: the same inversion without enclosures (for the search's
    /// first guess and the window; never returned as a value).
    pub fn ln_tail_f64(&self, m: i64, upper: bool) -> f64 {
        let (s, mm) = if upper { (1i64, m as f64) } else { (-1i64, -(m as f64)) };
        if mm > s as f64 * self.mean {
            self.ln_upper_f64(s, mm)
        } else {
            let c = self.ln_upper_f64(-s, -(mm - 1.0));
            (-c.exp()).ln_1p()
        }
    }

    fn ln_upper_f64(&self, s: i64, m: f64) -> f64 {
        if let Some((lo, hi)) = self.support {
            let (lo, hi) = if s > 0 { (lo as f64, hi as f64) } else { (-hi as f64, -lo as f64) };
            if m > hi {
                return f64::NEG_INFINITY;
            }
            if m <= lo {
                return 0.0;
            }
        }
        // (priced on the node meter at a sixteenth of a certified node, and refused — NaN, no guess — once
        // the work limit is met: a search's guesses spend the same budget as its certified tails)
        if limit_met().is_some() {
            return f64::NAN;
        }
        let Ok(Plan { c, nodes: nf, .. }) = self.plan(s, m, 40) else { return f64::NAN };
        let g = |th: f64| -> Complex64 {
            let z = Complex64::new(c, th);
            let mut g = -z * m;
            for f in &self.factors {
                g += f.law.ln_mgf_f64(z * (s * f.w) as f64) * f.n as f64;
            }
            g
        };
        let g0 = g(0.0).re;
        let f = |th: f64| -> Complex64 {
            let z = Complex64::new(c, th);
            (g(th) - g0).exp() / (Complex64::new(1.0, 0.0) - (-z).exp())
        };
        let f0 = f(0.0).re;
        let mut sum = f0;
        let h = 2.0 * PI / nf;
        let mut l = 1.0;
        while l < nf / 2.0 && l < 1e6 {
            let v = f(l * h);
            sum += 2.0 * v.re;
            if v.norm() < 1e-18 * f0.abs() && l > 4.0 {
                break;
            }
            l += 1.0;
        }
        meter_add((l as u64).div_ceil(F64_NODE_SHARE));
        (sum / nf).abs().ln() + g0
    }
}

impl crate::pld::lattice::TailOracle for FourierTails {
    fn ge(&self, m: i64) -> Interval {
        self.ge(m).unwrap_or_else(|e| self.keep(e))
    }

    fn le(&self, m: i64) -> Interval {
        self.le(m).unwrap_or_else(|e| self.keep(e))
    }

    fn window(&self) -> (i64, i64) {
        // where the Chernoff bound min_c K(c) − cm falls below −window_bits·ln 2 − 16, on each side (f64,
        // by bisection on m: the window only bounds the certified search, which checks its own ends)
        let target = -(self.window_bits as f64) * LN_2 - 16.0;
        let side = |s: i64| self.chernoff_edge(s, target) + 2.0;
        let clampi = |x: f64| x.clamp(-(i64::MAX as f64) / 4.0, i64::MAX as f64 / 4.0) as i64;
        let (mut lo, mut hi) = (clampi(-side(-1).ceil()), clampi(side(1).ceil()));
        if let Some((a, b)) = self.support {
            lo = lo.max(a.clamp(i64::MIN as i128 / 4, i64::MAX as i128 / 4) as i64 - 1);
            hi = hi.min(b.clamp(i64::MIN as i128 / 4, i64::MAX as i128 / 4) as i64 + 1);
        }
        (lo, hi)
    }

    fn hint(&self, delta: &Rational, h: &Rational, c: &Rational, d: i64) -> Option<i64> {
        let (hf, cf, ld) = (h.to_f64(), c.to_f64(), delta.to_f64().ln());
        let ln_delta = |k: i64| {
            let la = self.ln_tail_f64(k.saturating_add(1), true);
            let lb = self.ln_tail_f64((-d).saturating_sub(k).saturating_sub(1), false);
            let e = cf + hf * k as f64;
            la + (-(e + lb - la).exp()).ln_1p()
        };
        let (wlo, whi) = crate::pld::lattice::TailOracle::window(self);
        let mut lo = ((-cf / hf).floor() as i64).max(wlo.saturating_sub(d.abs()));
        let mut hi = whi;
        if lo >= hi {
            return None;
        }
        // ln δ_k decreases in k: bisect for the last k with ln δ_k > ln δ (NaN counts as below)
        for _ in 0..80 {
            if hi - lo <= 1 {
                break;
            }
            let mid = lo + (hi - lo) / 2;
            if ln_delta(mid) > ld {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    fn error(&self) -> Option<crate::error::Error> {
        self.first_error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn quantile_le(&self, alpha: f64) -> Option<i64> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return None;
        }
        let la = alpha.ln();
        let (mut lo, mut hi) = crate::pld::lattice::TailOracle::window(self);
        // ln P[V ≤ m] increases in m: bisect for the last m with ln P[V ≤ m] ≤ ln α (NaN counts as above)
        for _ in 0..80 {
            if hi - lo <= 1 {
                break;
            }
            let mid = lo + (hi - lo) / 2;
            if self.ln_tail_f64(mid, false) <= la {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }
}

impl FourierTails {
    fn keep(&self, e: crate::error::Error) -> Interval {
        let mut g = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(e);
        }
        let p = self.out_prec;
        Interval::new(Float::with_val(p, 0), Float::with_val(p, 1))
    }
}

/// An interval rounded outward to precision p.
fn round_to(v: &Interval, p: u32) -> Interval {
    Interval::new(Float::with_val_round(p, v.lo(), Round::Down).0, Float::with_val_round(p, v.hi(), Round::Up).0)
}

/// Every end of both parts finite.
fn finite(z: &CInterval) -> bool {
    [z.re().lo(), z.re().hi(), z.im().lo(), z.im().hi()].iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests;
