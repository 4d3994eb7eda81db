//! The moment generating function of the Gaussian mechanism's privacy loss on fixed-size batches (sampling
//! without replacement, replace neighbours, `noise::wor`) on vertical lines, certified: what the tilted
//! Fourier engine inverts for `gauss:…,sampling=wor,m=M,pop=P`.
//!
//! In standard units (noise 1, sensitivity μ = √(2η)) the Poisson Remove pair is ((1 − γ)N(0, 1) + γN(μ, 1),
//! N(0, 1)) with density ratio r(x) = 1 − γ + γ e^{μx − η}, which is 1 at x₀ = μ/2. The law of `noise::wor`
//! (2) [DRS22, Thm 9] keeps the Remove law above 0, mirrors its other measure below 0 and puts the rest
//! at 0, so with φ the standard normal density
//!
//!   M(s) = E_{A*}[e^{sL}] = w₀ + J(1 + s) + J(−s),   J(κ) = ∫_{x₀}^∞ φ(x) r(x)^κ dx,
//!   w₀ = 1 − A_R[x > x₀] − B_R[x > x₀] = (1 − γ)(1 − 2Φ̄(μ/2)),
//!
//! the same in both directions (the pair is symmetric).
//! * **The quadrature.** J is taken on [x₀, X] by composite Clenshaw–Curtis (`mgf_quad::clenshaw_curtis`):
//!   P equal panels of half-length w, each of one degree n. r vanishes first on |Im(μx)| = π; on the
//!   Bernstein ellipse of a panel with semi-minor axis b = β/μ (β < π) and semi-major α_w = √(w² + b²) about
//!   its centre m, |φ(x + iy)| ≤ φ(max(0, m − α_w)) e^{b²/2}, r(Re x) cos(β/2) ≤ |r| ≤ r(Re x) and
//!   |arg r| ≤ θ (`mgf_quad::arg_bound`, at Re(μx − η) ≤ μ(m + α_w) − η), so the integrand is at most
//!   M_i = φ(·) e^{b²/2} R^{Re κ} e^{|Im κ|θ} there (R = r(m + α_w) for Re κ ≥ 0, r(m − α_w) cos(β/2)
//!   otherwise). Panel i's error at degree nᵢ is at most 8w M_i ρ_w^{−nᵢ}/(ρ_w − 1), ρ_w = (b + α_w)/w
//!   [Tre13, Thm 8.2].
//! * **The tail.** On x ≥ x₀, 1 ≤ r ≤ e^{μx − η}: for Re κ ≥ 0, φ r^{Re κ} ≤ e^{κ(κ − 1)η} φ(x − κμ), so the
//!   rest beyond X is at most e^{κ(κ−1)η} Φ̄(X − κμ); for Re κ < 0 it is at most Φ̄(X).
//! * **The plan** takes the β, the panels and the degree that need the fewest nodes at the line's largest
//!   |t| (the panel's half-length a multiple of b; each panel the least degree of 2–128 that keeps its
//!   error below an equal share of the aim, so the tails take few nodes).
//! * **The decay in t.** Above 0 the tilted law pushed to the loss u = ln r has density φ r^{κ+1}/(μγe^{μx−η})
//!   with κ = 1 + c, below 0 (u = −ln r) the same with κ = −c; each is bounded below piece by piece on
//!   [x₀, x₀ + 8 + κμ] and stacked as a layer cake (`mgf_quad::layers`). The two parts lie on either side of
//!   0, so their components add. The atom w₀ does not decay: n-fold powers bring it down, as the Laplace
//!   mechanism's atoms.
//!
//! **Laplace.** With ε₀ = Δ/b and the Laplace mechanism's loss ℓ under the measure without the record (atoms
//! ½ at −ε₀ and ½e^{−ε₀} at ε₀, density ¼e^{−(ℓ+ε₀)/2} between, `mgf_laplace_sub`), r(ℓ) = 1 − γ + γe^ℓ is 1 at
//! ℓ = 0, and the same law gives
//!
//!   M(s) = w₀ + ½e^{−ε₀}(r(ε₀)^{1+s} + r(ε₀)^{−s}) + J(1 + s) + J(−s),   J(κ) = ∫_0^{ε₀} ¼e^{−(ℓ+ε₀)/2} r(ℓ)^κ dℓ,
//!   w₀ = 1 − A_R[ℓ > 0] − B_R[ℓ > 0] = (1 − γ)(1 − e^{−ε₀/2})
//!
//! (B[ℓ > 0] = ½e^{−ε₀/2}, A[ℓ > 0] = 1 − ½e^{−ε₀/2}). J is the subsampled Laplace's Clenshaw–Curtis
//! quadrature on [0, ε₀] instead of [−ε₀, ε₀] (its ellipse bounds hold there a fortiori), and the loss is
//! bounded by ln r(ε₀) in both directions.

use super::mgf_laplace_sub::LaplaceSub;
use super::mgf_quad::{add_phases, arg_bound, arg_bound_f64, chunked_sum, clenshaw_curtis, layers, log_sum_exp, PIECES};
use crate::noise::direction::Direction;
use crate::num::cinterval::CInterval;
use crate::num::special::normal_sf;
use crate::num::Interval;
use rug::{Float, Rational};
use std::f64::consts::PI;

/// The degrees a panel may take (each one's weights cost n²/2 operations, once per line): where the
/// integrand is small (the tails) a panel takes a low one.
const DEGREES: [usize; 7] = [2, 4, 8, 16, 32, 64, 128];
/// Most panels of a plan (beyond, the rule is taken at its own, certified, larger error).
const MAX_PANELS: usize = 1 << 16;
/// Panel half-lengths tried, as multiples of the ellipse's semi-minor axis b.
const RATIOS: [f64; 7] = [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// The fixed-size-batch Gaussian's quantities at one precision (module doc).
pub(super) struct WorGauss {
    q: Interval,
    eta: Interval,
    mu: Interval,
    qf: f64,
    etaf: f64,
    muf: f64,
    qr: Rational,
    etar: Rational,
    prec: u32,
}

/// The quadrature's plan: panels of half-length `w` from x₀, panel i of degree `degrees[i]`, ellipses of
/// semi-minor axis β/μ.
struct Plan {
    w: f64,
    degrees: Vec<usize>,
    beta: f64,
}

impl Plan {
    fn nodes(&self) -> usize {
        self.degrees.iter().map(|n| n + 1).sum()
    }
}

impl WorGauss {
    pub(super) fn new(q: &Rational, eta: &Rational, prec: u32) -> WorGauss {
        let e = Interval::from_rational(eta, prec);
        WorGauss {
            q: Interval::from_rational(q, prec),
            mu: e.add(&e).sqrt(),
            eta: e,
            qf: q.to_f64(),
            etaf: eta.to_f64(),
            muf: (2.0 * eta.to_f64()).sqrt(),
            qr: q.clone(),
            etar: eta.clone(),
            prec,
        }
    }

    fn f(&self, x: f64) -> Interval {
        Interval::from_float(&Float::with_val(self.prec, x), self.prec)
    }

    /// x₀ = μ/2, where r = 1.
    fn x0(&self) -> Interval {
        self.mu.div(&Interval::from_i64(2, self.prec))
    }

    /// ln r(x), r = 1 − γ + γ e^{μx − η}, enclosed.
    fn ln_r(&self, x: &Interval) -> Interval {
        Interval::one(self.prec).sub(&self.q).add(&self.q.mul(&self.mu.mul(x).sub(&self.eta).exp())).ln()
    }

    /// ln r(x) in f64, stable where the exponential overflows.
    fn ln_r_f64(&self, x: f64) -> f64 {
        let (q, z) = (self.qf, self.muf * x - self.etaf);
        if z > 0.0 {
            z + (q + (1.0 - q) * (-z).exp()).ln()
        } else {
            (1.0 - q + q * z.exp()).ln()
        }
    }

    /// The atom at 0, w₀ = (1 − γ)(1 − 2Φ̄(μ/2)) (module doc).
    fn atom(&self) -> Interval {
        let one = Interval::one(self.prec);
        let sf = normal_sf(&self.x0());
        one.sub(&self.q).mul(&one.sub(&sf.add(&sf)))
    }

    /// Planning: the upper end X of the window, where the tail is below tol/4 (module doc).
    fn reach(&self, kr: f64, tol: f64) -> f64 {
        let x0 = self.muf / 2.0;
        let need = (4.0 / tol).ln().max(1.0);
        let (shift, extra) = if kr >= 0.0 { (kr * self.muf, kr * (kr - 1.0) * self.etaf) } else { (0.0, 0.0) };
        (shift + (2.0 * (need + extra.max(0.0))).sqrt() + 1.0).max(x0 + 1.0)
    }

    /// Planning: ln M_i of every panel (module doc) for the exponent's real part kr and |t| ≤ t_max.
    fn ln_panel_bounds_f64(&self, kr: f64, beta: f64, panels: usize, w: f64, t_max: f64) -> Vec<f64> {
        let b = beta / self.muf;
        let alpha = (w * w + b * b).sqrt();
        let x0 = self.muf / 2.0;
        (0..panels)
            .map(|i| {
                let m = x0 + (2 * i + 1) as f64 * w;
                let d = (m - alpha).max(0.0);
                let ln_phi = b * b / 2.0 - d * d / 2.0 - 0.5 * (2.0 * PI).ln();
                let ln_r =
                    if kr >= 0.0 { kr * self.ln_r_f64(m + alpha) } else { kr * (self.ln_r_f64(m - alpha) + (beta / 2.0).cos().ln()) };
                ln_phi + ln_r + t_max * arg_bound_f64(self.qf, beta, self.muf * (m + alpha) - self.etaf)
            })
            .collect()
    }

    /// The ellipse and the panels that bring the rule's error below `tol` with the fewest nodes, each panel at
    /// the least degree that keeps its error below an equal share of `tol`.
    fn plan(&self, kr: f64, t_max: f64, tol: f64) -> Plan {
        let length = self.reach(kr, tol) - self.muf / 2.0;
        let mut best = Plan { w: length / 2048.0, degrees: vec![DEGREES[DEGREES.len() - 1]; 1024], beta: PI / 4.0 };
        let mut best_nodes = usize::MAX;
        let betas = (1..=16).map(|j| 0.95 * PI * f64::from(j) / 16.0).chain((1..=20).map(|k| 0.95 * PI / 16.0 * 0.5f64.powi(k)));
        for beta in betas {
            let b = beta / self.muf;
            for ratio in RATIOS {
                let panels = (length / (2.0 * b * ratio)).ceil().max(1.0);
                if panels > MAX_PANELS as f64 || panels as usize * (DEGREES[0] + 1) >= best_nodes {
                    continue;
                }
                let panels = panels as usize;
                let w = length / (2.0 * panels as f64);
                let rho = (b + (w * w + b * b).sqrt()) / w;
                let ln_share = (tol / 2.0 / panels as f64).ln() - (8.0 * w).ln() + (rho - 1.0).ln();
                let degrees: Option<Vec<usize>> = self
                    .ln_panel_bounds_f64(kr, beta, panels, w, t_max)
                    .iter()
                    .map(|ln_m| DEGREES.iter().copied().find(|&n| ln_m - n as f64 * rho.ln() <= ln_share))
                    .collect();
                if let Some(degrees) = degrees {
                    let plan = Plan { w, degrees, beta };
                    if plan.nodes() < best_nodes {
                        best_nodes = plan.nodes();
                        best = plan;
                    }
                }
            }
        }
        best
    }

    /// The rule's certified error for the plan at the real part `kr` of κ and |t| ≤ t_max, the tail beyond
    /// the last panel included (module doc).
    fn error(&self, plan: &Plan, kr: &Float, t_max: f64) -> Float {
        let p = self.prec;
        let (one, half) = (Interval::one(p), self.f(0.5));
        let beta = self.f(plan.beta);
        assert!(*beta.hi() < *Interval::pi(p).lo(), "the ellipse must stay inside |Im(mu x)| < pi");
        let b = beta.div(&self.mu);
        let w = self.f(plan.w);
        let alpha = w.mul(&w).add(&b.mul(&b)).sqrt();
        let rho = b.add(&alpha).div(&w);
        let rho = Interval::new(rho.lo().clone(), rho.lo().clone());
        let kri = Interval::from_float(kr, p);
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&half);
        let ln_cos = beta.mul(&half).cos().ln();
        let zero = Interval::zero(p);
        let factor = |n: usize| self.f(8.0).mul(&w).mul(&rho.ln().mul(&Interval::from_i64(n as i64, p)).neg().exp()).div(&rho.sub(&one));
        let t = self.f(t_max);
        let mut total = Interval::zero(p);
        for (i, &n) in plan.degrees.iter().enumerate() {
            let m = self.x0().add(&w.mul(&Interval::from_i64(2 * i as i64 + 1, p)));
            let (lo, hi) = (m.sub(&alpha), m.add(&alpha));
            let (lo, hi) = (Interval::new(lo.lo().clone(), lo.lo().clone()), Interval::new(hi.hi().clone(), hi.hi().clone()));
            let d = if *lo.lo() > 0 { lo.clone() } else { zero.clone() };
            let ln_phi = b.mul(&b).sub(&d.mul(&d)).mul(&half).sub(&ln_norm);
            let ln_r = if *kr >= 0 { kri.mul(&self.ln_r(&hi)) } else { kri.mul(&self.ln_r(&lo).add(&ln_cos)) };
            let a_hi = self.mu.mul(&hi).sub(&self.eta);
            let a_hi = Interval::new(a_hi.hi().clone(), a_hi.hi().clone());
            let ln_m = ln_phi.add(&ln_r).add(&t.mul(&arg_bound(&self.q, &beta, &a_hi)));
            total = total.add(&ln_m.exp().mul(&factor(n)));
        }
        let x_hi = self.x0().add(&w.mul(&Interval::from_i64(2 * plan.degrees.len() as i64, p)));
        let tail = if *kr >= 0 {
            let shift = kri.mul(&self.mu);
            kri.mul(&kri.sub(&one)).mul(&self.eta).exp().mul(&normal_sf(&x_hi.sub(&shift)))
        } else {
            normal_sf(&x_hi)
        };
        total.add(&tail).hi().clone()
    }

    /// J(κ) at κ = kr ± ikh, k = 0..=k_max (`sign` the phase's), enclosed with the rule's error (module doc).
    fn half_line(&self, kr: &Float, sign: i64, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let p = self.prec;
        let t_max = h.to_f64() * k_max as f64;
        let plan = self.plan(kr.to_f64(), t_max, tol);
        let err = self.error(&plan, kr, t_max);
        // the rules of the degrees used, and each panel's first node
        let mut rules: Vec<(usize, Vec<Interval>, Vec<Interval>)> = Vec::new();
        for &n in &plan.degrees {
            if !rules.iter().any(|r| r.0 == n) {
                let (xs, ws) = clenshaw_curtis(n, p);
                rules.push((n, xs, ws));
            }
        }
        let starts: Vec<usize> = plan.degrees.iter().scan(0, |at, n| Some(std::mem::replace(at, *at + n + 1))).collect();
        let kri = Interval::from_float(kr, p);
        let step = Interval::from_float(h, p).mul(&Interval::from_i64(sign, p));
        let half = self.f(0.5);
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&half);
        let w = self.f(plan.w);
        let x0 = self.x0();
        chunked_sum(plan.nodes(), k_max, p, &err, tol, |node, acc| {
            let i = starts.partition_point(|&s| s <= node) - 1;
            let j = node - starts[i];
            let (_, xs, ws) = rules.iter().find(|r| r.0 == plan.degrees[i]).expect("invariant: a rule per degree used");
            let x = x0.add(&w.mul(&Interval::from_i64(2 * i as i64 + 1, p))).add(&w.mul(&xs[j]));
            let ln_r = self.ln_r(&x);
            let ln_v = kri.mul(&ln_r).sub(&x.mul(&x).mul(&half)).sub(&ln_norm);
            acc.add(&ln_v.exp().mul(&ws[j]).mul(&w), &ln_r.mul(&step));
        })
    }

    /// M(c + ikh), k = 0..=k_max: w₀ + J(1 + s) + J(−s) (module doc).
    pub(super) fn line(&self, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let p = self.prec;
        let up = self.half_line(&Float::with_val(p, c + 1u32), 1, h, k_max, tol / 2.0);
        let down = self.half_line(&Float::with_val(p, -c), -1, h, k_max, tol / 2.0);
        let atom = CInterval::real(self.atom());
        up.iter().zip(&down).map(|(u, d)| u.add(d).add(&atom)).collect()
    }

    /// Planning (not certified): ln M(λ) for real λ ≥ 0 in double precision (the atom and a trapezoid sum of
    /// each half, summed relative to the largest term).
    pub(super) fn ln_real_f64(&self, lam: f64) -> f64 {
        let x0 = self.muf / 2.0;
        let mut terms = vec![((1.0 - self.qf) * (1.0 - 2.0 * crate::num::special::normal_sf_f64(x0))).ln()];
        for kr in [1.0 + lam, -lam] {
            let x_hi = self.reach(kr, 1e-30);
            let step = 0.01;
            let count = ((x_hi - x0) / step).ceil() as usize;
            terms.extend((0..=count).map(|i| {
                let x = x0 + i as f64 * step;
                let end = if i == 0 || i == count { 0.5f64.ln() } else { 0.0 };
                end + step.ln() + kr * self.ln_r_f64(x) - x * x / 2.0 - 0.5 * (2.0 * PI).ln()
            }));
        }
        log_sum_exp(&terms)
    }

    /// Planning: the nodes one point of the line costs at reach t_max.
    pub(super) fn nodes(&self, c: f64, t_max: f64, tol: f64) -> usize {
        self.plan(1.0 + c, t_max, tol / 2.0).nodes() + self.plan(-c, t_max, tol / 2.0).nodes() + 1
    }

    /// The uniform components of the tilted law's two continuous parts (module doc), at 64 bits: (height ×
    /// length, length), lower ends.
    pub(super) fn decay_parts(&self, c: &Float) -> Vec<(Float, Float)> {
        let s = WorGauss::new(&self.qr, &self.etar, 64);
        let c = c.to_f64();
        let mut parts = s.half_layers(1.0 + c);
        parts.extend(s.half_layers(-c));
        parts
    }

    /// One half's layer cake: on each piece [a, b] of [x₀, x₀ + 8 + κμ], the density φ r^{κ+1}/(μγe^{μx−η}) of
    /// the loss ±ln r is at least φ(b) r^{κ+1} (at a if κ + 1 ≥ 0, else at b) / (μγe^{μb − η}).
    fn half_layers(&self, kr: f64) -> Vec<(Float, Float)> {
        let p = 64;
        // (a hair above x₀'s f64 value, which may round below μ/2: every piece lies inside (x₀, ∞))
        let x0 = self.muf / 2.0 * (1.0 + 1e-12) + 1e-300;
        let width = (8.0 + kr.max(0.0) * self.muf) / PIECES as f64;
        let at = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
        let kr1 = at(kr + 1.0);
        let half = at(0.5);
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&half);
        let ln_mu_q = self.mu.ln().add(&self.q.ln());
        let pieces: Vec<(Float, Float)> = (0..PIECES)
            .map(|j| {
                let (a, b) = (at(x0 + width * j as f64), at(x0 + width * (j + 1) as f64));
                let (ln_ra, ln_rb) = (self.ln_r(&a), self.ln_r(&b));
                let ln_r = if kr + 1.0 >= 0.0 { &ln_ra } else { &ln_rb };
                let ln_slope = ln_mu_q.add(&self.mu.mul(&b)).sub(&self.eta);
                let ln_m = kr1.mul(ln_r).sub(&b.mul(&b).mul(&half)).sub(&ln_norm).sub(&ln_slope);
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

/// The Laplace mechanism's law on fixed-size batches (module doc, **Laplace**): the subsampled Laplace's
/// quantities with the continuous part on [0, ε₀] (`LaplaceSub::positive_half`).
pub(super) struct WorLaplace(LaplaceSub);

impl WorLaplace {
    pub(super) fn new(q: &Rational, eps0: &Rational, prec: u32) -> WorLaplace {
        WorLaplace(LaplaceSub::positive_half(q, eps0, prec))
    }

    /// w₀ = (1 − γ)(1 − e^{−ε₀/2}) and the atom ½e^{−ε₀} at ε₀, enclosed.
    fn atoms(&self) -> (Interval, Interval) {
        let (q, e0) = self.0.q_e0();
        let p = q.prec();
        let one = Interval::one(p);
        let half = one.div(&Interval::from_i64(2, p));
        (one.sub(q).mul(&one.sub(&e0.mul(&half).neg().exp())), half.mul(&e0.neg().exp()))
    }

    /// The largest loss, ln r(ε₀), in both directions.
    pub(super) fn loss_sup(&self) -> Interval {
        self.0.r(self.0.q_e0().1).ln()
    }

    /// M(c + ikh), k = 0..=k_max: w₀ + ½e^{−ε₀}(r(ε₀)^{1+s} + r(ε₀)^{−s}) + J(1 + s) + J(−s) (module doc).
    pub(super) fn line(&self, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let s = &self.0;
        let p = c.prec();
        let up = s.continuous(Direction::Remove, c, h, k_max, tol / 2.0);
        let down = s.continuous(Direction::Add, c, h, k_max, tol / 2.0);
        let (w0, top) = self.atoms();
        let w0 = CInterval::real(w0);
        let mut sum: Vec<CInterval> = up.iter().zip(&down).map(|(u, d)| u.add(d).add(&w0)).collect();
        let ln_r = self.loss_sup();
        let ci = Interval::from_float(c, p);
        let hi = Interval::from_float(h, p);
        add_phases(&top.mul(&Interval::one(p).add(&ci).mul(&ln_r).exp()), &ln_r.mul(&hi), &mut sum);
        add_phases(&top.mul(&ci.mul(&ln_r).neg().exp()), &ln_r.mul(&hi).neg(), &mut sum);
        sum
    }

    /// Planning (not certified): ln M(λ) for real λ ≥ 0 in double precision.
    pub(super) fn ln_real_f64(&self, lam: f64) -> f64 {
        let (q, e0) = self.0.q_e0_f64();
        let ln_r = self.0.ln_r_f64(e0);
        let mut terms =
            vec![((1.0 - q) * -(-e0 / 2.0).exp_m1()).ln(), 0.5f64.ln() - e0 + (1.0 + lam) * ln_r, 0.5f64.ln() - e0 - lam * ln_r];
        terms.extend(self.0.continuous_terms_f64(1.0 + lam));
        terms.extend(self.0.continuous_terms_f64(-lam));
        log_sum_exp(&terms)
    }

    /// Planning: the nodes one point of the line costs at reach t_max (two continuous parts).
    pub(super) fn nodes(&self, c: f64, t_max: f64, tol: f64) -> usize {
        self.0.nodes(Direction::Remove, c, t_max, tol / 2.0) + self.0.nodes(Direction::Add, c, t_max, tol / 2.0)
    }

    /// The two continuous parts' uniform components (they lie on either side of 0).
    pub(super) fn decay_parts(&self, c: &Float) -> Vec<(Float, Float)> {
        let mut parts = self.0.decay_parts(Direction::Remove, c);
        parts.extend(self.0.decay_parts(Direction::Add, c));
        parts
    }
}

#[cfg(test)]
#[path = "mgf_wor_tests.rs"]
mod tests;
