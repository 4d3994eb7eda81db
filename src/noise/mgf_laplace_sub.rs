//! The moment generating function of the Poisson-subsampled Laplace mechanism's privacy loss (add/remove
//! neighbours) on vertical lines, certified: what the tilted Fourier engine inverts for
//! `laplace:scale=B,q=Q`.
//!
//! With ε₀ = Δ/b, the Laplace mechanism's loss ℓ under its `Add` measure B (the output without the record)
//! has atoms ½ at −ε₀ and ½e^{−ε₀} at ε₀ and the density ¼e^{−(ℓ+ε₀)/2} between (`noise::laplace`, mirrored).
//! The subsampled pair's density ratio is r(ℓ) = 1 − q + q e^ℓ (`noise::subsample`), so with κ = 1 + s
//! (`Remove`, L = ln r under (1 − q)B + qA) or κ = −s (`Add`, L = −ln r under B),
//!
//!   M(s) = E_B[r(ℓ)^κ] = ½ r(−ε₀)^κ + ½e^{−ε₀} r(ε₀)^κ + ∫_{−ε₀}^{ε₀} ¼e^{−(ℓ+ε₀)/2} r(ℓ)^κ dℓ.
//!
//! The atoms are exact. The integral is taken by Clenshaw–Curtis quadrature (`mgf_quad::clenshaw_curtis`),
//! whose error is at most 2ε₀ · 4Mρ^{−n}/(ρ − 1) for an integrand analytic with |f| ≤ M in the Bernstein
//! ellipse E_ρ of [−ε₀, ε₀] [Tre13, Thm 8.2]:
//! * **Analyticity.** r vanishes or turns negative only on Im ℓ = ±π (mod 2π): on |Im ℓ| ≤ β < π,
//!   r = 1 − q + q e^{Re ℓ} e^{i Im ℓ} lies in a sector, |arg r| ≤ β and r(Re ℓ) cos(β/2) ≤ |r| ≤ r(Re ℓ).
//! * **The ellipse.** With semi-minor axis β, ρ = (β + α)/ε₀ and semi-major axis α = √(ε₀² + β²); on it
//!   |Re ℓ| ≤ α, so |f| ≤ M = ¼e^{(α−ε₀)/2} R^{Re κ} e^{|Im κ|θ}, R = r(α) for Re κ ≥ 0 and r(−α)cos(β/2)
//!   otherwise, and θ ≥ |arg r|: β, asin(u/(1 − q)) where u = q e^α < 1 − q (r lies in the disc of radius u
//!   about 1 − q), and for β ≤ π/2 atan(u sin β/(1 − q)) (Re r ≥ 1 − q there). The rule is composite: equal panels of [−ε₀, ε₀], each with Clenshaw–Curtis of a degree up
//!   to 128 on its own ellipse (semi-minor β, semi-major α_w = √(w² + β²) about a panel of half-length w, so
//!   |Re ℓ| ≤ ε₀ + α_w − w in the bound); the errors add up to 8ε₀Mρ_w^{−n}/(ρ_w − 1), ρ_w = (β + α_w)/w.
//!   The plan takes the β (up to 0.95π), degree and panels that need the fewest nodes for the line's
//!   largest |t|.
//! * **The decay in t.** The tilted continuous part pushed to the loss u = ±ln r has density
//!   ¼e^{−(ℓ+ε₀)/2} r^{Re κ} · r/(q e^ℓ) (du/dℓ = q e^ℓ/r); on a piece [a, b] its lower bound takes the first
//!   and last factors at b (both fall) and r^{Re κ} at its smaller end, and the layer cake of `mgf_quad`
//!   gives uniform components. The atoms do not decay: n-fold powers bring them down, as the Laplace
//!   mechanism's own.
//!
//! **The exponential mechanism on a Poisson subsample** (`expmech:epsilon=E,q=Q`, [`LaplaceSub::bounded_range`]).
//! Every ε-bounded-range mechanism is dominated, in both orders of every pair of neighbours, by the pair
//! whose loss has the density e^{(ε+ℓ)/2}/(2(e^ε − 1)) under A and e^{(ε−ℓ)/2}/(2(e^ε − 1)) under B on
//! (−ε, ε) (`noise::bounded_range`; [DDR20, §4]), so the subsampled pairs of `noise::subsample` are built on
//! it as on any law. Its B-density is the Laplace mechanism's continuous part at ε₀ = ε with the front
//! F = e^ε/(2(e^ε − 1)) in place of ¼, and it has no atoms:
//!
//!   M(s) = ∫_{−ε}^{ε} F e^{−(ℓ+ε)/2} r(ℓ)^κ dℓ.
//!
//! The quadrature, its error bound (M scales by F/¼) and the decay's layer cake are the ones above with F in
//! place of ¼; without atoms the whole tilted measure decays.

use super::mgf_quad::{add_phases, arg_bound, arg_bound_f64, chunked_sum, clenshaw_curtis, layers, log_sum_exp};
use crate::noise::direction::Direction;
use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rug::{Float, Rational};
use std::f64::consts::PI;

/// Pieces of [−ε₀, ε₀] for the decay's layer cake.
const LAYER_PIECES: usize = 64;

/// The subsampled Laplace law's quantities at one precision (module doc).
pub(super) struct LaplaceSub {
    q: Interval,
    e0: Interval,
    qf: f64,
    e0f: f64,
    qr: Rational,
    e0r: Rational,
    prec: u32,
    /// the continuous part on [0, ε₀] only (fixed-size batches, `mgf_wor`), not on [−ε₀, ε₀]
    from_zero: bool,
    /// the bounded-range pair's law (module doc): no atoms, the continuous part's front e^{ε₀}/(2(e^{ε₀} − 1))
    bounded_range: bool,
}

/// The quadrature's plan: `panels` equal panels of [−ε₀, ε₀], each with Clenshaw–Curtis of degree n (n + 1
/// Chebyshev points), and the ellipses' semi-minor axis β.
struct Plan {
    panels: usize,
    n: usize,
    beta: f64,
}

/// The degrees a panel may take (each one's weights cost n²/2 operations, once per line).
const DEGREES: [usize; 5] = [8, 16, 32, 64, 128];
/// Most panels of a plan (beyond, the rule is taken at its own, certified, larger error).
const MAX_PANELS: usize = 1 << 20;

/// The real part of κ and the phase's sign: 1 + c and + (`Remove`), −c and − (`Add`).
fn kappa(dir: Direction, c: f64) -> (f64, i64) {
    match dir {
        Direction::Remove => (1.0 + c, 1),
        Direction::Add => (-c, -1),
    }
}

impl LaplaceSub {
    pub(super) fn new(q: &Rational, eps0: &Rational, prec: u32) -> LaplaceSub {
        LaplaceSub {
            q: Interval::from_rational(q, prec),
            e0: Interval::from_rational(eps0, prec),
            qf: q.to_f64(),
            e0f: eps0.to_f64(),
            qr: q.clone(),
            e0r: eps0.clone(),
            prec,
            from_zero: false,
            bounded_range: false,
        }
    }

    /// The bounded-range pair's law on a Poisson subsample (module doc): its loss has no atoms and the
    /// density e^{ε₀}/(2(e^{ε₀} − 1)) · e^{−(ℓ+ε₀)/2} on (−ε₀, ε₀) under B, ε₀ the mechanisms' range ε.
    pub(super) fn bounded_range(q: &Rational, eps: &Rational, prec: u32) -> LaplaceSub {
        LaplaceSub { bounded_range: true, ..LaplaceSub::new(q, eps, prec) }
    }

    /// The same law at another precision.
    fn at(&self, prec: u32) -> LaplaceSub {
        LaplaceSub { from_zero: self.from_zero, bounded_range: self.bounded_range, ..LaplaceSub::new(&self.qr, &self.e0r, prec) }
    }

    /// The continuous part's front F, its density being F e^{−(ℓ+ε₀)/2}: ¼ (the Laplace mechanism) or
    /// e^{ε₀}/(2(e^{ε₀} − 1)) (the bounded-range pair), enclosed.
    fn front(&self) -> Interval {
        if self.bounded_range {
            self.e0.exp().div(&self.e0.exp_m1().mul(&Interval::from_i64(2, self.prec)))
        } else {
            self.f(0.25)
        }
    }

    /// ln F in f64 (planning).
    fn ln_front_f64(&self) -> f64 {
        if self.bounded_range {
            self.e0f - (2.0 * self.e0f.exp_m1()).ln()
        } else {
            0.25f64.ln()
        }
    }

    /// The same law whose continuous part is integrated on [0, ε₀] only: the part of the loss above 0 that
    /// the fixed-size batches' law keeps (`mgf_wor`).
    pub(super) fn positive_half(q: &Rational, eps0: &Rational, prec: u32) -> LaplaceSub {
        LaplaceSub { from_zero: true, ..LaplaceSub::new(q, eps0, prec) }
    }

    /// The continuous part's interval [lo, ε₀]: its lower end and its length, in f64.
    fn lo_span_f64(&self) -> (f64, f64) {
        if self.from_zero {
            (0.0, self.e0f)
        } else {
            (-self.e0f, 2.0 * self.e0f)
        }
    }

    /// The lower end of [lo, ε₀], enclosed.
    fn lo(&self) -> Interval {
        if self.from_zero {
            Interval::zero(self.prec)
        } else {
            self.e0.neg()
        }
    }

    /// The half-length of each of `panels` equal panels of [lo, ε₀], and 8 × the panels' total half-length
    /// (the composite rule's error factor, module doc), enclosed.
    fn panel_half(&self, panels: usize) -> (Interval, Interval) {
        let p = self.prec;
        if self.from_zero {
            (self.e0.div(&Interval::from_i64(2 * panels as i64, p)), self.f(4.0).mul(&self.e0))
        } else {
            (self.e0.div(&Interval::from_i64(panels as i64, p)), self.f(8.0).mul(&self.e0))
        }
    }

    fn f(&self, x: f64) -> Interval {
        Interval::from_float(&Float::with_val(self.prec, x), self.prec)
    }

    /// r(ℓ) = 1 − q + q e^ℓ, enclosed.
    pub(super) fn r(&self, l: &Interval) -> Interval {
        Interval::one(self.prec).sub(&self.q).add(&self.q.mul(&l.exp()))
    }

    /// q and ε₀, enclosed.
    pub(super) fn q_e0(&self) -> (&Interval, &Interval) {
        (&self.q, &self.e0)
    }

    /// q and ε₀ in f64.
    pub(super) fn q_e0_f64(&self) -> (f64, f64) {
        (self.qf, self.e0f)
    }

    /// ln r(ℓ) in f64, stable where e^ℓ overflows.
    pub(super) fn ln_r_f64(&self, l: f64) -> f64 {
        let q = self.qf;
        if l > 0.0 {
            l + (q + (1.0 - q) * (-l).exp()).ln()
        } else {
            (1.0 - q + q * l.exp()).ln()
        }
    }

    /// Planning: ln M on the panels' ellipses of semi-minor axis β and semi-major α_w around panels of
    /// half-length w: |Re ℓ| ≤ A = ε₀ + α_w − w there (module doc).
    fn ln_m_f64(&self, kr: f64, beta: f64, w: f64, t_max: f64) -> f64 {
        let alpha_w = (w * w + beta * beta).sqrt();
        let a = self.e0f + alpha_w - w;
        let ln_r = if kr >= 0.0 { kr * self.ln_r_f64(a) } else { kr * (self.ln_r_f64(-a) + (beta / 2.0).cos().ln()) };
        self.ln_front_f64() + (alpha_w - w) / 2.0 + ln_r + t_max * arg_bound_f64(self.qf, beta, a)
    }

    /// Planning: ln of the composite rule's error bound, 8ε₀ M ρ_w^{−n}/(ρ_w − 1) (module doc).
    fn ln_error_f64(&self, kr: f64, beta: f64, panels: usize, n: usize, t_max: f64) -> f64 {
        let span = self.lo_span_f64().1;
        let w = span / (2.0 * panels as f64);
        let rho = (beta + (w * w + beta * beta).sqrt()) / w;
        (4.0 * span).ln() + self.ln_m_f64(kr, beta, w, t_max) - n as f64 * rho.ln() - (rho - 1.0).ln()
    }

    /// The ellipse, the degree and the panels that bring the rule's error below `tol` with the fewest nodes.
    fn plan(&self, kr: f64, t_max: f64, tol: f64) -> Plan {
        // (where no plan meets tol, 4,096 panels of degree 64: the certified error is then larger; the tilted
        // engine, which prices a line by `nodes`, never asks for one)
        let mut best = Plan { panels: 4096, n: DEGREES[DEGREES.len() - 1], beta: PI / 4.0 };
        let mut best_nodes = usize::MAX;
        let ln_tol = tol.ln();
        // β on a linear grid up to 0.95π, and down by halves to 0.95π·2^{−30} (tiny ε₀ and tiny q want small β)
        let betas = (1..=32).map(|j| 0.95 * PI * f64::from(j) / 32.0).chain((1..=30).map(|k| 0.95 * PI * 0.5f64.powi(k)));
        for beta in betas {
            for n in DEGREES {
                let ok = |m: usize| self.ln_error_f64(kr, beta, m, n, t_max) <= ln_tol;
                if !ok(MAX_PANELS) {
                    continue;
                }
                // the error falls as the panels shrink: the fewest that meet tol, by doubling and bisection
                let mut hi = 1;
                while !ok(hi) {
                    hi *= 2;
                }
                let mut lo = hi / 2;
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if ok(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                let nodes = hi.min(MAX_PANELS) * (n + 1);
                if nodes < best_nodes {
                    (best, best_nodes) = (Plan { panels: hi.min(MAX_PANELS), n, beta }, nodes);
                }
            }
        }
        best
    }

    /// The rule's certified error for the plan at the real part `kr` of κ and |t| ≤ t_max (module doc).
    fn error(&self, plan: &Plan, kr: &Float, t_max: f64) -> Float {
        let p = self.prec;
        let (one, half) = (Interval::one(p), self.f(0.5));
        let beta = self.f(plan.beta);
        assert!(*beta.hi() < *Interval::pi(p).lo(), "the ellipse must stay inside |Im l| < pi");
        let (w, factor) = self.panel_half(plan.panels);
        let alpha_w = w.mul(&w).add(&beta.mul(&beta)).sqrt();
        // the real extent of the panels' ellipses, A = ε₀ + α_w − w, upper end
        let a = self.e0.add(&alpha_w).sub(&w);
        let a_hi = Interval::new(a.hi().clone(), a.hi().clone());
        // ρ_w's lower end: its ellipse lies inside the one the bound holds on
        let rho = beta.add(&alpha_w).div(&w);
        let rho = Interval::new(rho.lo().clone(), rho.lo().clone());
        let kri = Interval::from_float(kr, p);
        let ln_r =
            if *kr >= 0 { kri.mul(&self.r(&a_hi).ln()) } else { kri.mul(&self.r(&a_hi.neg()).ln().add(&beta.mul(&half).cos().ln())) };
        let spread = alpha_w.sub(&w).mul(&half);
        let ln_m = self.front().ln().add(&spread).add(&ln_r).add(&self.f(t_max).mul(&arg_bound(&self.q, &beta, &a_hi)));
        let n = Interval::from_i64(plan.n as i64, p);
        let err = factor.mul(&ln_m.sub(&n.mul(&rho.ln())).exp()).div(&rho.sub(&one));
        err.hi().clone()
    }

    /// κ's real part as an exact float and the phase's sign (module doc).
    fn kappa_float(&self, dir: Direction, c: &Float) -> (Float, i64) {
        match dir {
            Direction::Remove => (Float::with_val(self.prec, c + 1u32), 1),
            Direction::Add => (Float::with_val(self.prec, -c), -1),
        }
    }

    /// M(c + ikh), k = 0..=k_max, in direction `dir` (module doc).
    pub(super) fn line(&self, dir: Direction, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let mut sum = self.continuous(dir, c, h, k_max, tol);
        if self.bounded_range {
            return sum;
        }
        let p = self.prec;
        let (kr, sign) = self.kappa_float(dir, c);
        let kri = Interval::from_float(&kr, p);
        let step = Interval::from_float(h, p).mul(&Interval::from_i64(sign, p));
        let half = self.f(0.5);
        // the atoms: ½ at −ε₀, ½e^{−ε₀} at ε₀
        for (mass, l) in [(half.clone(), self.e0.neg()), (half.mul(&self.e0.neg().exp()), self.e0.clone())] {
            let ln_r = self.r(&l).ln();
            add_phases(&mass.mul(&kri.mul(&ln_r).exp()), &ln_r.mul(&step), &mut sum);
        }
        sum
    }

    /// The continuous part ∫_{lo}^{ε₀} F e^{−(ℓ+ε₀)/2} r(ℓ)^κ e^{±ikh ln r(ℓ)} dℓ, k = 0..=k_max, enclosed with the
    /// rule's certified error (module doc).
    pub(super) fn continuous(&self, dir: Direction, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let p = self.prec;
        let (kr, sign) = self.kappa_float(dir, c);
        let t_max = h.to_f64() * k_max as f64;
        let plan = self.plan(kr.to_f64(), t_max, tol);
        let err = self.error(&plan, &kr, t_max);
        let (xs, ws) = clenshaw_curtis(plan.n, p);
        let kri = Interval::from_float(&kr, p);
        let step = Interval::from_float(h, p).mul(&Interval::from_i64(sign, p));
        let (half, front) = (self.f(0.5), self.front());
        let width = self.panel_half(plan.panels).0;
        let lo = self.lo();
        let total = plan.panels * (plan.n + 1);
        // Σ_panels w Σ_j w_j F e^{−(ℓ+ε₀)/2} r(ℓ)^κ at ℓ = c_i + w x_j, c_i = lo + (2i + 1)w
        chunked_sum(total, k_max, p, &err, tol, |node, acc| {
            let (i, j) = (node / (plan.n + 1), node % (plan.n + 1));
            let centre = lo.add(&width.mul(&Interval::from_i64(2 * i as i64 + 1, p)));
            let l = centre.add(&width.mul(&xs[j]));
            let ln_r = self.r(&l).ln();
            let ln_w = kri.mul(&ln_r).sub(&l.add(&self.e0).mul(&half));
            let w = ln_w.exp().mul(&front).mul(&ws[j]).mul(&width);
            acc.add(&w, &ln_r.mul(&step));
        })
    }

    /// The replace pair's M(c + ikh), k = 0..=k_max (`mgf_laplace_sub` module doc, replace-one): with
    /// C = r(−ε₀) and L_max = ln r(ε₀) − ln C, the atoms (q + (1 − q)e^{−ε₀})/2 at L_max and
    /// (q e^{−2ε₀} + (1 − q)e^{−ε₀})/2 at −L_max, and C^{1+s} J(−s) + C^{−s} J(1 + s), J the continuous part.
    pub(super) fn replace_line(&self, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let p = self.prec;
        let (one, half) = (Interval::one(p), self.f(0.5));
        let ln_c = self.r(&self.e0.neg()).ln();
        let l_max = self.r(&self.e0).ln().sub(&ln_c);
        let ci = Interval::from_float(c, p);
        let hi = Interval::from_float(h, p);
        let rest = one.sub(&self.q);
        let e = self.e0.neg().exp();
        // J(1 + s)'s error is amplified by C^{−c} ≥ 1: asked that much finer
        let finer = tol * (c.to_f64() * ln_c.mid().to_f64()).exp().min(1.0);
        let j_add = self.continuous(Direction::Add, c, h, k_max, tol);
        let j_remove = self.continuous(Direction::Remove, c, h, k_max, finer);
        let mut sum: Vec<CInterval> = (0..=k_max)
            .map(|k| {
                let t = hi.mul(&Interval::from_i64(k as i64, p));
                // C^{1+s} = e^{(1+c) ln C + it ln C}, C^{−s} = e^{−c ln C − it ln C}
                let up = CInterval::exp_of(&one.add(&ci).mul(&ln_c), &t.mul(&ln_c));
                let down = CInterval::exp_of(&ci.mul(&ln_c).neg(), &t.mul(&ln_c).neg());
                up.mul(&j_add[k]).add(&down.mul(&j_remove[k]))
            })
            .collect();
        let top = half.mul(&self.q.add(&rest.mul(&e)));
        let bottom = half.mul(&self.q.mul(&e).mul(&e).add(&rest.mul(&e)));
        add_phases(&top.mul(&ci.mul(&l_max).exp()), &l_max.mul(&hi), &mut sum);
        add_phases(&bottom.mul(&ci.mul(&l_max).neg().exp()), &l_max.mul(&hi).neg(), &mut sum);
        sum
    }

    /// Planning (not certified): ln M(λ) for real λ ≥ 0 in double precision (the atoms and Simpson's rule
    /// on the continuous part, summed relative to the largest term).
    pub(super) fn ln_real_f64(&self, dir: Direction, lam: f64) -> f64 {
        let (kr, _) = kappa(dir, lam);
        let e0 = self.e0f;
        let mut terms = if self.bounded_range {
            vec![]
        } else {
            vec![0.5f64.ln() + kr * self.ln_r_f64(-e0), 0.5f64.ln() - e0 + kr * self.ln_r_f64(e0)]
        };
        terms.extend(self.continuous_terms_f64(kr));
        log_sum_exp(&terms)
    }

    /// Planning: the logarithms of Simpson's terms of the continuous part at κ = kr (2,000 intervals).
    pub(super) fn continuous_terms_f64(&self, kr: f64) -> Vec<f64> {
        let e0 = self.e0f;
        let (lo, span) = self.lo_span_f64();
        let m = 2000;
        let width = span / m as f64;
        let ln_front = self.ln_front_f64();
        (0..=m)
            .map(|i| {
                let l = lo + width * i as f64;
                let simpson = if i == 0 || i == m {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                (simpson * width / 3.0).ln() + ln_front - (l + e0) / 2.0 + kr * self.ln_r_f64(l)
            })
            .collect()
    }

    /// Planning: ln M(λ) of the replace pair (`replace_line`'s terms in double precision).
    pub(super) fn ln_replace_f64(&self, lam: f64) -> f64 {
        let (q, e0) = (self.qf, self.e0f);
        let ln_c = self.ln_r_f64(-e0);
        let l_max = self.ln_r_f64(e0) - ln_c;
        let mut terms = vec![
            (0.5 * (q + (1.0 - q) * (-e0).exp())).ln() + lam * l_max,
            (0.5 * (q * (-2.0 * e0).exp() + (1.0 - q) * (-e0).exp())).ln() - lam * l_max,
        ];
        terms.extend(self.continuous_terms_f64(-lam).into_iter().map(|t| t + (1.0 + lam) * ln_c));
        terms.extend(self.continuous_terms_f64(1.0 + lam).into_iter().map(|t| t - lam * ln_c));
        log_sum_exp(&terms)
    }

    /// Planning: the nodes one point of the line costs at reach t_max.
    pub(super) fn nodes(&self, dir: Direction, c: f64, t_max: f64, tol: f64) -> usize {
        let plan = self.plan(kappa(dir, c).0, t_max, tol);
        plan.panels * (plan.n + 1) + 3
    }

    /// Planning: the nodes one point of the replace pair's line costs (two continuous parts).
    pub(super) fn replace_nodes(&self, c: f64, t_max: f64, tol: f64) -> usize {
        self.nodes(Direction::Add, c, t_max, tol) + self.nodes(Direction::Remove, c, t_max, tol)
    }

    /// The replace pair's largest loss L_max = ln r(ε₀) − ln r(−ε₀), in both directions.
    pub(super) fn replace_loss_sup(&self) -> Interval {
        self.r(&self.e0).ln().sub(&self.r(&self.e0.neg()).ln())
    }

    /// The replace pair's uniform components: its two continuous parts are the subsampled law's (`Add` and
    /// `Remove`) times C^{1+c} and C^{−c}, on disjoint stretches of the loss (below and above 0), so the
    /// components of each, scaled down, sum below the whole density.
    pub(super) fn replace_decay_parts(&self, c: &Float) -> Vec<(Float, Float)> {
        let s = LaplaceSub::new(&self.qr, &self.e0r, 64);
        let ci = Interval::from_float(c, 64);
        let ln_c = s.r(&s.e0.neg()).ln();
        let scale = |parts: Vec<(Float, Float)>, by: Interval| -> Vec<(Float, Float)> {
            let by = by.lo().clone();
            parts.into_iter().map(|(m, l)| (Float::with_val_round(64, &m * &by, rug::float::Round::Down).0, l)).collect()
        };
        let mut parts = scale(s.decay_parts(Direction::Add, c), Interval::one(64).add(&ci).mul(&ln_c).exp());
        parts.extend(scale(s.decay_parts(Direction::Remove, c), ci.mul(&ln_c).neg().exp()));
        parts
    }

    /// The largest loss in direction `dir`: ln r(ε₀) (`Remove`), −ln r(−ε₀) (`Add`), enclosed.
    pub(super) fn loss_sup(&self, dir: Direction) -> Interval {
        match dir {
            Direction::Remove => self.r(&self.e0).ln(),
            Direction::Add => self.r(&self.e0.neg()).ln().neg(),
        }
    }

    /// The uniform components of the tilted continuous part (module doc), at 64 bits: (height × length,
    /// length), lower ends.
    pub(super) fn decay_parts(&self, dir: Direction, c: &Float) -> Vec<(Float, Float)> {
        let s = self.at(64);
        let p = 64;
        let kr = match dir {
            Direction::Remove => Interval::from_float(c, p).add(&Interval::one(p)),
            Direction::Add => Interval::from_float(c, p).neg(),
        };
        let width = if s.from_zero { s.e0.mul(&s.f(1.0 / LAYER_PIECES as f64)) } else { s.e0.mul(&s.f(2.0 / LAYER_PIECES as f64)) };
        let lo = s.lo();
        let (half, ln_q) = (s.f(0.5), s.q.ln());
        let ln_front = s.front().ln();
        let pieces: Vec<(Float, Float)> = (0..LAYER_PIECES)
            .map(|j| {
                let a = lo.add(&width.mul(&Interval::from_i64(j as i64, p)));
                let b = lo.add(&width.mul(&Interval::from_i64(j as i64 + 1, p)));
                let (ln_ra, ln_rb) = (s.r(&a).ln(), s.r(&b).ln());
                let ln_r_kr = if *kr.lo() >= 0 { kr.mul(&ln_ra) } else { kr.mul(&ln_rb) };
                let ln_m = ln_front.sub(&b.add(&s.e0).mul(&half)).add(&ln_r_kr).add(&ln_rb).sub(&ln_q).sub(&b);
                let lambda = ln_rb.sub(&ln_ra);
                if *lambda.lo() <= 0 || !ln_m.exp().lo().is_finite() {
                    return (Float::with_val(p, 0), Float::with_val(p, 0));
                }
                (ln_m.exp().lo().clone(), lambda.lo().clone())
            })
            .collect();
        layers(&pieces)
    }
}

#[cfg(test)]
#[path = "mgf_laplace_sub_tests.rs"]
mod tests;
