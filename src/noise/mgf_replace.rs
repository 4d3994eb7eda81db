//! The moment generating function of the Poisson-subsampled Gaussian's replace-one pair (`noise::poisson_replace`)
//! on vertical lines, certified: what the tilted Fourier engine inverts for DP-SGD under replace neighbours.
//!
//! The pair in standard units is A = q N(−μ, 1) + (1 − q) N(0, 1), B = q N(μ, 1) + (1 − q) N(0, 1) (μ = √(2η)),
//! its own mirror, so one law serves both directions. In the mirrored variable x = −z, with φ the standard
//! normal density, u = q e^{μx − η}, ũ = q e^{−μx − η}, r = 1 − q + u and r̃ = 1 − q + ũ (r̃(x) = r(−x)), A has
//! density φr, B has φr̃ and the loss is ℓ(x) = ln r − ln r̃, increasing. So
//!
//!   M(s) = E_A[e^{sL}] = ∫ φ(x) r(x)^{1+s} r̃(x)^{−s} dx,
//!
//! taken by the trapezoidal rule on ℝ with node spacing ϑ, as the add/remove law's (`mgf.rs`, whose bounds
//! these follow). For s = c + it with c ≥ 0:
//! * **The strip.** r and r̃ vanish first at |Im x| = π/μ; on |Im x| ≤ a < π/μ each lies in a sector of half-angle
//!   μa/2 about its real value, |arg r|, |arg r̃| ≤ μa and r(x)cos(μa/2) ≤ |r(x + iy)| ≤ r(x) (likewise r̃). With
//!   |r^{1+s}| ≤ r^{1+c}e^{|t|μa}, |r̃^{−s}| ≤ (r̃ cos(μa/2))^{−c}e^{|t|μa} and |φ(x + iy)| = φ(x)e^{y²/2},
//!   ∫|f(x + iy)|dx ≤ M_a := e^{a²/2 + 2|t|μa} cos(μa/2)^{−c} F̄(c), and the rule's error is at most
//!   2M_a/(e^{2πa/ϑ} − 1) [TW14, Thm 5.1].
//! * **F̄.** r̃ ≥ 1 − q, so M(c) ≤ (1 − q)^{−c} ∫φ r^{1+c} = (1 − q)^{−c} F(1 + c), F the add/remove law's bound
//!   (the binomial expansion at an integer and Lyapunov's inequality between).
//! * **The nodes beyond the window.** r ≤ 1 for x ≤ 0 and r ≤ e^{μx} for x ≥ 0, and r̃^{−c} ≤ (1 − q)^{−c}: the
//!   integrand is at most (1 − q)^{−c}φ(x) on the left, increasing there, and (1 − q)^{−c}e^{κ²/2}φ(x − κ)
//!   (κ = (1 + c)μ) on the right, decreasing beyond κ; each tail of the node sum is at most the integral of its
//!   bound beyond the window's last node.
//! * **The decay in t.** The tilted measure φ r^{1+c} r̃^{−c} dx pushed to the loss has density
//!   g = φ r^{1+c} r̃^{−c}/ℓ′ with ℓ′ = μu/r + μũ/r̃. On a piece [x₀, x₁]: φ at its smaller end, r^{1+c} and
//!   r̃^{−c} at x₀ (r grows, r̃ falls), μu/r at x₁ and μũ/r̃ at x₀ (the first grows, the second falls) bound g
//!   from below, and the layer cake of `mgf.rs` turns the pieces into uniform components.

use super::mgf_quad::{chunked_sum, layers, ln_gauss_trapezoid, trapezoid_window, PhaseAcc, PIECES};
use crate::num::cinterval::CInterval;
use crate::num::special::normal_sf;
use crate::num::Interval;
use rug::{Float, Rational};

/// The replace pair's quantities at one precision (module doc).
pub(super) struct Replace {
    q: Interval,
    eta: Interval,
    mu: Interval,
    /// 1 − q
    p0: Interval,
    /// ln of an upper bound of F(κ) = ∫φ r^κ for κ ≥ 1, the add/remove law's (`mgf.rs`), for F̄
    single: SingleBound,
    qf: f64,
    muf: f64,
    etaf: f64,
    qr: Rational,
    etar: Rational,
    prec: u32,
}

/// ln of an upper bound of the add/remove law's F(κ) at a real κ ≥ 1, enclosed (given by `mgf.rs`).
pub(super) type SingleBound = Box<dyn Fn(&Float) -> Interval + Send + Sync>;

/// The rule's plan: the strip half-width a, the node spacing ϑ and the window's first node and count.
struct Plan {
    a: f64,
    step: f64,
    x_lo: f64,
    nodes: usize,
}

/// ln(1 − q + q e^z) in f64, stable where e^z overflows.
fn ln_r_f64(q: f64, z: f64) -> f64 {
    if z > 0.0 {
        z + (q + (1.0 - q) * (-z).exp()).ln()
    } else {
        (1.0 - q + q * z.exp()).ln()
    }
}

impl Replace {
    pub(super) fn new(q: &Rational, eta: &Rational, prec: u32, single: SingleBound) -> Replace {
        let (qi, ei) = (Interval::from_rational(q, prec), Interval::from_rational(eta, prec));
        let mu = ei.add(&ei).sqrt();
        let p0 = Interval::one(prec).sub(&qi);
        let (qf, etaf) = (q.to_f64(), eta.to_f64());
        Replace { q: qi, eta: ei, mu, p0, single, qf, muf: (2.0 * etaf).sqrt(), etaf, qr: q.clone(), etar: eta.clone(), prec }
    }

    /// ln r and ln r̃ at x, and (μu/r, μũ/r̃), enclosed.
    fn at(&self, x: &Interval) -> (Interval, Interval, Interval, Interval) {
        let u = self.q.mul(&self.mu.mul(x).sub(&self.eta).exp());
        let v = self.q.mul(&self.mu.mul(x).neg().sub(&self.eta).exp());
        let (r, rt) = (self.p0.add(&u), self.p0.add(&v));
        let (du, dv) = (self.mu.mul(&u).div(&r), self.mu.mul(&v).div(&rt));
        (r.ln(), rt.ln(), du, dv)
    }

    /// ln of an upper bound of M(c) on the real axis: (1 − q)^{−c} F(1 + c) (module doc).
    fn ln_f_bar(&self, c: &Float) -> Interval {
        let p = self.prec;
        let k = Float::with_val(p, c + 1u32);
        (self.single)(&k).sub(&Interval::from_float(c, p).mul(&self.p0.ln()))
    }

    /// The strip, spacing and window for the tilt c and |t| ≤ t_max, aiming at an absolute error `tol`.
    fn plan(&self, c: f64, t_max: f64, tol: f64) -> Plan {
        let mu = self.muf;
        let ln_f = self.ln_f_bar(&Float::with_val(self.prec, c)).hi().to_f64();
        let need = (4.0 / tol).ln() + ln_f.max(0.0);
        let (mut best_a, mut best_step) = (0.0, 0.0);
        for j in 1..=64 {
            let a = 0.95 * std::f64::consts::PI / mu * f64::from(j) / 64.0;
            let ln_cos = -c * (mu * a / 2.0).cos().ln();
            let step = 2.0 * std::f64::consts::PI * a / (need + a * a / 2.0 + 2.0 * t_max * mu * a + ln_cos + 1.0);
            if step > best_step {
                (best_a, best_step) = (a, step);
            }
        }
        // a dyadic spacing (the nodes are exact), at least 2^-20 (a finer plan is taken at its certified error)
        let step = ((best_step * 1048576.0).floor() / 1048576.0).max(1.0 / 1048576.0);
        let (x_lo, nodes) = trapezoid_window(step, tol, -c * (1.0 - self.qf).ln(), (1.0 + c) * mu);
        Plan { a: best_a, step, x_lo, nodes }
    }

    /// The rule's certified error for the plan: the strip bound and the two tails of the node sum.
    fn error(&self, plan: &Plan, c: &Float, t_max: f64) -> Float {
        let p = self.prec;
        let f = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
        let (one, half, pi) = (Interval::one(p), f(0.5), Interval::pi(p));
        let a = f(plan.a);
        assert!(*self.mu.mul(&a).hi() < *pi.lo(), "the strip must stay inside |Im x| < pi/mu");
        let ci = Interval::from_float(c, p);
        // ln M_a = a²/2 + 2 t_max μ a − c ln cos(μa/2) + ln F̄(c)
        let ln_ma = a
            .mul(&a)
            .mul(&half)
            .add(&f(2.0 * t_max).mul(&self.mu).mul(&a))
            .sub(&ci.mul(&self.mu.mul(&a).mul(&half).cos().ln()))
            .add(&self.ln_f_bar(c));
        let strip = f(2.0).mul(&ln_ma.exp()).div(&pi.add(&pi).mul(&a).div(&f(plan.step)).exp().sub(&one));
        let tail_c = ci.mul(&self.p0.ln()).neg().exp();
        let x_lo = f(plan.x_lo);
        let x_hi = f(plan.x_lo + plan.step * (plan.nodes - 1) as f64);
        let shift = one.add(&ci).mul(&self.mu);
        assert!(*x_lo.hi() <= 0 && *x_hi.lo() >= *shift.hi(), "the window must hold 0 and the tilted peak");
        let left = normal_sf(&x_lo.neg()).mul(&tail_c);
        let right = tail_c.mul(&shift.mul(&shift).mul(&half).exp()).mul(&normal_sf(&x_hi.sub(&shift)));
        strip.add(&left).add(&right).hi().clone()
    }

    /// M(c + ikh), k = 0..=k_max (module doc).
    pub(super) fn line(&self, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        assert!(*c >= 0, "the tilt must be at least 0");
        let t_max = h.to_f64() * k_max as f64;
        let plan = self.plan(c.to_f64(), t_max, tol);
        let err = self.error(&plan, c, t_max);
        // ln √(2π), once per line (it was a logarithm per node)
        let p = self.prec;
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&Interval::from_float(&Float::with_val(p, 0.5), p));
        chunked_sum(plan.nodes, k_max, self.prec, &err, tol, |n, acc| self.add_node(&plan, n, c, h, &ln_norm, acc))
    }

    /// Node n's terms ϑ φ(x) r^{1+c} r̃^{−c} e^{ikhℓ(x)} added to acc[k].
    fn add_node(&self, plan: &Plan, n: usize, c: &Float, h: &Float, ln_norm: &Interval, acc: &mut PhaseAcc) {
        let p = self.prec;
        let x = Interval::from_float(&(Float::with_val(p, plan.x_lo) + Float::with_val(p, plan.step) * n as u32), p);
        let (ln_r, ln_rt, _, _) = self.at(&x);
        let half = Interval::from_float(&Float::with_val(p, 0.5), p);
        let ci = Interval::from_float(c, p);
        let ln_w = Interval::one(p).add(&ci).mul(&ln_r).sub(&ci.mul(&ln_rt)).sub(&x.mul(&x).mul(&half)).sub(ln_norm);
        let w = ln_w.exp().mul(&Interval::from_float(&Float::with_val(p, plan.step), p));
        let theta = ln_r.sub(&ln_rt).mul(&Interval::from_float(h, p));
        acc.add(&w, &theta);
    }

    /// Planning (not certified): ln M(λ) in double precision.
    pub(super) fn ln_real_f64(&self, lam: f64) -> f64 {
        let (q, mu, eta) = (self.qf, self.muf, self.etaf);
        let g = |x: f64| (1.0 + lam) * ln_r_f64(q, mu * x - eta) - lam * ln_r_f64(q, -mu * x - eta);
        ln_gauss_trapezoid(g, 14.0 + (1.0 + lam) * mu)
    }

    /// Planning: the quadrature nodes one point of the line costs at reach t_max.
    pub(super) fn nodes(&self, c: f64, t_max: f64, tol: f64) -> usize {
        self.plan(c, t_max, tol).nodes
    }

    /// The uniform components of the tilted law of the loss (module doc), at 64 bits: (height × length,
    /// length), lower ends.
    pub(super) fn decay_parts(&self, c: &Float) -> Vec<(Float, Float)> {
        let p = 64;
        let s = Replace::new(&self.qr, &self.etar, p, Box::new(|_: &Float| unreachable!("the decay needs no F̄")));
        let cf = c.to_f64();
        let (x0, x1) = (-6.0, 6.0 + (1.0 + cf) * self.muf);
        let width = (x1 - x0) / PIECES as f64;
        let xi = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
        let ci = Interval::from_float(c, p);
        let c1 = Interval::one(p).add(&ci);
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&xi(0.5));
        let pieces: Vec<(Float, Float)> = (0..PIECES)
            .map(|j| {
                let (a, b) = (xi(x0 + width * j as f64), xi(x0 + width * (j + 1) as f64));
                let (ln_r0, ln_rt0, _, dv0) = s.at(&a);
                let (ln_r1, ln_rt1, du1, _) = s.at(&b);
                let slope = du1.add(&dv0);
                // φ at its smaller end
                let ln_phi = a.mul(&a).max(&b.mul(&b)).mul(&xi(-0.5));
                let lambda = ln_r1.sub(&ln_rt1).sub(&ln_r0.sub(&ln_rt0));
                if !slope.is_positive() || *lambda.lo() <= 0 {
                    // (the terms under- or overflow at a tiny noise multiplier: the piece bounds nothing)
                    return (Float::with_val(p, 0), Float::with_val(p, 0));
                }
                let ln_m = ln_phi.add(&c1.mul(&ln_r0)).sub(&ci.mul(&ln_rt0)).sub(&slope.ln()).sub(&ln_norm);
                let m = ln_m.exp();
                if !m.lo().is_finite() {
                    return (Float::with_val(p, 0), Float::with_val(p, 0));
                }
                (m.lo().clone(), lambda.lo().clone())
            })
            .collect();
        layers(&pieces)
    }
}

#[cfg(test)]
#[path = "mgf_replace_tests.rs"]
mod tests;
