//! Moment generating functions of loss laws on a vertical line of the complex plane: M(s) = E_A[e^{sL}]
//! at s = c + it, c ≥ 0 (at c = 0 the characteristic function φ(t) = E_A[e^{itL}]), certified — what the
//! tilted Fourier engine (`account::engines::tilted`) inverts.
//!
//! * **Gaussian** loss law N(η, 2η): ln M(s) = η s(s + 1) in both directions, exactly.
//! * **Laplace** with ε₀ = Δ/b (`noise::laplace`: atoms ½ at ε₀ and ½e^{−ε₀} at −ε₀, the density
//!   ¼e^{−(ε₀ − ℓ)/2} between), the same law in both directions: Mironov's closed form [Mir17, Prop. 6]
//!   continued to complex s, M(s) = [(1 + s) e^{sε₀} + s e^{−(1+s)ε₀}]/(1 + 2s) (an entire function: the
//!   zero of 1 + 2s at s = −½ is removable). On the line s = c + it, |1 + s|/|1 + 2s| decreases in t and
//!   |s|/|1 + 2s| increases to ½, so sup_{t ≥ t*} |M(c + it)| ≤ e^{cε₀}|1 + c + it*|/|1 + 2c + 2it*| +
//!   ½e^{−(1+c)ε₀}: the atoms' ½(e^{cε₀} + e^{−(1+c)ε₀}) as t* → ∞, which n-fold powers bring down.
//! * **Poisson-subsampled Gaussian** (`noise::subsample`, the Gaussian with loss mean η, μ = √(2η), on a
//!   subsample with probability q < 1). With φ the standard normal density and
//!   r(x) = 1 − q + q e^{μx − η} the density ratio of the pair ((1 − q)N(0, 1) + qN(μ, 1), N(0, 1)),
//!
//!     M(s) = F(1 + s) (`Remove`),  M(s) = F(−s) (`Add`),  F(κ) = ∫ φ(x) r(x)^κ dx,
//!
//!   the integral by the trapezoidal rule on ℝ with node spacing ϑ. The integrand is analytic in the
//!   strip |Im x| < π/μ (r vanishes first at Im x = π/μ); on |Im x| ≤ a, with r = 1 − q + w e^{iμy}
//!   (w > 0), |arg r| ≤ μ|y| and r(x) cos(μy/2) ≤ |r(x + iy)| ≤ r(x), |φ(x + iy)| = φ(x) e^{y²/2}, so
//!   ∫ |φ r^κ|(x + iy) dx ≤ e^{a²/2 + |Im κ| μ a} C F̄(Re κ) =: M_a (C = 1 for Re κ ≥ 0, cos(μa/2)^{Re κ}
//!   otherwise; F̄ an upper bound of F on the real axis), and the rule's error is at most
//!   2 M_a/(e^{2πa/ϑ} − 1) [TW14, Thm 5.1]. F̄: F(m) = Σ_j C(m, j)(1 − q)^{m−j} q^j e^{η j(j−1)} for an
//!   integer m (the binomial expansion, E[e^{jμX}] = e^{j²μ²/2}) and F(κ) ≤ F(m)^{κ/m} for 0 ≤ κ ≤ m
//!   (Lyapunov's inequality); F(κ) ≤ 1 on [0, 1] (Jensen, E r = 1); F(κ) ≤ (1 − q)^κ for κ < 0 (r ≥ 1 − q).
//!   The nodes beyond the window are bounded by normal tails: r ≤ 1 for x ≤ 0 and r ≤ e^{μx} for x ≥ 0.
//!   Every node is evaluated in MPFR interval arithmetic; the phases e^{±ikhℓ} by a recurrence restarted
//!   from MPFR's sine and cosine before the rectangles' widths may have grown by `num::cinterval::RESTART_BITS` bits
//!   (a rectangle rotated by θ grows by at most |cos θ| + |sin θ|).
//!
//!   For the truncation of the Fourier sum, a bound of sup_{t ≥ t*} |M(c + it)| that decays with t*: the
//!   tilted measure φ r^{Re κ} dx pushed to the loss has density g = φ r^{Re κ + 1}/(μu), u = q e^{μx − η},
//!   bounded below on each piece of a partition by a constant (each factor at its worse end); stacking
//!   those lower bounds as a layer cake, the measure holds uniform components of heights y_j − y_{j−1} on
//!   intervals of lengths Λ_j inside its level sets {g ≥ y_j}, and
//!   |M(c + it)| ≤ M(c) − Σ_j (y_j − y_{j−1}) Λ_j (1 − |sinc(tΛ_j/2)|) (a sum of uniform laws'
//!   characteristic functions plus the rest's mass; for small t this is t²/24 Σ_j (y_j − y_{j−1}) Λ_j³, the
//!   whole variance's t²/2 for a Gaussian-like density), with sup_{s ≥ s₀} |sinc s| ≤ max(1 − s₀²/6 + s₀⁴/120, 1/π) for
//!   s₀ ≤ π (sinc decreases on [0, π], the alternating Taylor series) and 1/s₀ beyond. Its gain stops at the
//!   mass the pieces miss; the bound taken is the smaller of it and the shifted contour's (`noise::mgf_strip`),
//!   which keeps decaying with t* (a few releases need it). A branch-revealing mixture (truncated Poisson
//!   sampling) takes the smaller of its branches' layer cakes against its own M(c) and t|M_cut| + (1 − t)|M_plain|,
//!   each branch by its whole bound against its own M(c) (`Decay::Mix`).
//! * **Mixture of Gaussians** (`noise::mog`): r(x) = p₀ + Σᵢ pᵢ e^{μᵢx − ηᵢ} (μᵢ = cᵢ/σ, ηᵢ = μᵢ²/2, p₀ > 0),
//!   the same rule and bounds with μ replaced by μ_max = maxᵢ μᵢ: at x + iy every term of r turns by an angle
//!   in [0, μ_max y] (y > 0; likewise below), so for μ_max a < π r lies in a sector of half-angle μ_max|y|/2:
//!   |arg r| ≤ μ_max|y| and |r(x + iy)| ≥ r(x) cos(μ_max y/2); r ≥ p₀, r ≤ 1 for x ≤ 0 and r ≤ e^{μ_max x}
//!   for x ≥ 0. F̄ for κ > 1 by Jensen (t^κ convex, r = E_J[e^{μ_J x − η_J}] over the component J):
//!   F(κ) ≤ p₀ + Σᵢ pᵢ e^{ηᵢκ(κ−1)}. The density of the tilted loss is φ r^{κ+1}/r′ with r′ = Σᵢ μᵢpᵢe^{μᵢx−ηᵢ}
//!   increasing, which the layer cake bounds piece by piece as above. With one component every formula
//!   is the subsampled Gaussian's.
//! * **The Poisson-subsampled Gaussian under replace-one neighbours**: `noise::mgf_replace` (the same rule with
//!   a second, mirrored factor). **The Poisson-subsampled Laplace mechanism**, under either relation:
//!   `noise::mgf_laplace_sub` (two atoms and a Clenshaw–Curtis integral on the Bernstein ellipse). The pieces
//!   these quadratures share are the leaf `noise::mgf_quad`. **The Gaussian on fixed-size batches** (sampling
//!   without replacement, replace neighbours): `noise::mgf_wor` (an atom at 0 and two half-line
//!   Clenshaw–Curtis integrals), and the Laplace mechanism's there (the subsampled Laplace's quadrature on
//!   [0, ε₀]).

use super::mgf_laplace_sub::LaplaceSub;
#[cfg(test)]
use super::mgf_quad::ln_gauss_trapezoid_within;
use super::mgf_quad::{chunked_sum, layers, ln_gauss_trapezoid_on, log_sum_exp, trapezoid_grid, trapezoid_window, PhaseAcc, PIECES};
use super::mgf_replace::Replace;
use super::mgf_wor::{WorGauss, WorLaplace};
use crate::noise::direction::Direction;
use crate::num::cinterval::{CInterval, Phases};
use crate::num::special::normal_sf;
use crate::num::Interval;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

/// A loss law whose moment generating function is known on vertical lines.
#[derive(Clone, Debug, PartialEq)]
pub enum Mgf {
    /// L ~ N(η, 2η) in both directions.
    Gaussian { eta: Rational },
    /// the Gaussian with loss mean η on a Poisson subsample with probability q ∈ (0, 1)
    PoissonGaussian { q: Rational, eta: Rational },
    /// the mixture of Gaussians (`noise::mog`) in standard units: components (pᵢ, ηᵢ = μᵢ²/2) with
    /// μᵢ > 0 and p₀ = 1 − Σ pᵢ > 0 at 0
    Mixture { parts: Vec<(Rational, Rational)> },
    /// the Gaussian with loss mean η on a Poisson subsample with probability q ∈ (0, 1), replace-one
    /// neighbours (`noise::mgf_replace`), the same law in both directions
    PoissonReplace { q: Rational, eta: Rational },
    /// the Laplace mechanism with ε₀ = Δ/b > 0, the same law in both directions
    Laplace { eps0: Rational },
    /// the Laplace mechanism with ε₀ = Δ/b on a Poisson subsample with probability q ∈ (0, 1), add/remove
    /// neighbours (`noise::mgf_laplace_sub`)
    PoissonLaplace { q: Rational, eps0: Rational },
    /// the same on a Poisson subsample under replace-one neighbours (dp_accounting's REPLACE pair,
    /// `noise::poisson_replace_laplace`), its own mirror: the same law in both directions
    PoissonReplaceLaplace { q: Rational, eps0: Rational },
    /// the Gaussian with loss mean η on fixed-size batches, a fraction q ∈ (0, 1) of the data drawn without
    /// replacement, replace neighbours (`noise::wor`'s law, `noise::mgf_wor`): the same law in both directions
    WorGaussian { q: Rational, eta: Rational },
    /// the Laplace mechanism with ε₀ = Δ/b on fixed-size batches, a fraction q ∈ (0, 1) (`noise::mgf_wor`)
    WorLaplace { q: Rational, eps0: Rational },
    /// a branch-revealing mixture of two laws (`noise::truncated`: truncated Poisson sampling), the branch
    /// `cut` with probability t ∈ [t_lo, t_hi], `plain` otherwise: the loss law is the mixture of the
    /// branches', so M(s) = t M_cut(s) + (1 − t) M_plain(s) in each direction
    Branches { t_lo: Rational, t_hi: Rational, cut: Box<Mgf>, plain: Box<Mgf> },
    /// the discrete Gaussian N_Z(0, σ²) on an integer query of sensitivity μ (`noise::mgf_dgauss`)
    DiscreteGaussian { sigma2: Rational, mu: u32 },
    /// the dominating pair of ε-bounded-range mechanisms (the exponential mechanism, `noise::bounded_range`;
    /// `noise::mgf_bounded_range`), the same law in both directions
    BoundedRange { eps: Rational },
    /// that dominating pair on a Poisson subsample with probability q ∈ (0, 1), add/remove neighbours
    /// (`noise::mgf_laplace_sub`, the exponential mechanism on a subsample)
    PoissonBoundedRange { q: Rational, eps: Rational },
    /// k-ary randomized response (`noise::mgf_atoms`: three atoms), the same law in both directions
    RandomizedResponse(crate::noise::rr::RandomizedResponse),
}

/// Pieces of the Laplace law's continuous part for its decay (its density is one exponential: a few
/// dozen pieces hold nearly all of it, and the bound is evaluated often while planning).
const LAPLACE_PIECES: usize = 32;

impl Mgf {
    /// True if both directions have the same law.
    pub fn symmetric(&self) -> bool {
        if let Mgf::Branches { cut, plain, .. } = self {
            return cut.symmetric() && plain.symmetric();
        }
        matches!(
            self,
            Mgf::Gaussian { .. }
                | Mgf::PoissonReplace { .. }
                | Mgf::PoissonReplaceLaplace { .. }
                | Mgf::WorGaussian { .. }
                | Mgf::WorLaplace { .. }
                | Mgf::Laplace { .. }
                | Mgf::BoundedRange { .. }
                | Mgf::DiscreteGaussian { .. }
                | Mgf::RandomizedResponse(_)
        )
    }

    /// A Gaussian loss law (whose compositions have closed forms).
    pub fn is_gaussian(&self) -> bool {
        matches!(self, Mgf::Gaussian { .. })
    }

    /// A law on a lattice: its characteristic function is periodic, |M(c + it)| ≤ M(c) is all its decay
    /// (a composition of such laws alone never comes down on a vertical line).
    pub fn is_lattice(&self) -> bool {
        matches!(self, Mgf::DiscreteGaussian { .. } | Mgf::RandomizedResponse(_))
    }

    /// Planning: `ln_real_f64` is a closed form or a direct sum at every λ (the subsampled Gaussian's is a
    /// quadrature on a fixed window, reliable only for moderate λ).
    pub fn exact_real(&self) -> bool {
        !matches!(
            self,
            Mgf::PoissonGaussian { .. }
                | Mgf::PoissonReplace { .. }
                | Mgf::Mixture { .. }
                | Mgf::PoissonLaplace { .. }
                | Mgf::PoissonBoundedRange { .. }
                | Mgf::PoissonReplaceLaplace { .. }
                | Mgf::WorGaussian { .. }
                | Mgf::WorLaplace { .. }
                | Mgf::Branches { .. }
        )
    }

    /// An upper bound of the loss in this direction, enclosed at `prec` (None: unbounded). The subsampled
    /// Gaussian's added record gives L = −ln r ≤ −ln(1 − q), r = 1 − q + q e^{μx − η} > 1 − q.
    pub fn loss_sup(&self, dir: Direction, prec: u32) -> Option<Interval> {
        match (self, dir) {
            (Mgf::Branches { cut, plain, .. }, dir) => Some(cut.loss_sup(dir, prec)?.max(&plain.loss_sup(dir, prec)?)),
            (Mgf::PoissonGaussian { q, .. }, Direction::Add) => Some(Interval::one(prec).sub(&Interval::from_rational(q, prec)).ln().neg()),
            (Mgf::Mixture { .. }, Direction::Add) => Some(Sub::of(self, prec).p0().ln().neg()),
            (Mgf::Laplace { eps0 }, _) => Some(Interval::from_rational(eps0, prec)),
            (Mgf::BoundedRange { eps }, _) => Some(Interval::from_rational(eps, prec)),
            (Mgf::PoissonLaplace { .. } | Mgf::PoissonBoundedRange { .. }, dir) => Some(laplace_sub(self, prec).loss_sup(dir)),
            (Mgf::PoissonReplaceLaplace { q, eps0 }, _) => Some(LaplaceSub::new(q, eps0, prec).replace_loss_sup()),
            (Mgf::WorLaplace { q, eps0 }, _) => Some(WorLaplace::new(q, eps0, prec).loss_sup()),
            (Mgf::RandomizedResponse(rr), _) => Some(rr.top_loss(prec)),
            _ => None,
        }
    }

    /// M(c + ikh) for k = 0..=k_max in one direction, enclosed. `tol` is the absolute quadrature error
    /// aimed at (planning: the enclosure holds whatever the error is); M(c) ≥ 1 in both directions.
    pub fn line(&self, dir: Direction, c: &Float, h: &Float, k_max: usize, tol: f64, prec: u32) -> Vec<CInterval> {
        match self {
            Mgf::Gaussian { eta } => {
                let e = Interval::from_rational(eta, prec);
                let c = Interval::from_float(c, prec);
                let cc = c.mul(&c).add(&c);
                let two_c1 = c.add(&c).add(&Interval::one(prec));
                (0..=k_max)
                    .map(|k| {
                        let t = Interval::from_float(h, prec).mul(&Interval::from_i64(k as i64, prec));
                        // ln M = η s(s + 1), s = c + it: real part η(c² + c − t²), imaginary η t(2c + 1)
                        CInterval::exp_of(&e.mul(&cc.sub(&t.mul(&t))), &e.mul(&t.mul(&two_c1)))
                    })
                    .collect()
            }
            Mgf::Laplace { eps0 } => laplace_line(eps0, c, h, k_max, prec),
            Mgf::DiscreteGaussian { sigma2, mu } => super::mgf_dgauss::line(sigma2, *mu, c, h, k_max, tol, prec),
            Mgf::BoundedRange { eps } => super::mgf_bounded_range::line(eps, c, h, k_max, prec),
            Mgf::RandomizedResponse(rr) => super::mgf_atoms::line(rr, c, h, k_max, prec),
            Mgf::Branches { t_lo, t_hi, cut, plain } => {
                // each branch within tol: the mixture within t tol + (1 − t) tol
                let (a, b) = (cut.line(dir, c, h, k_max, tol, prec), plain.line(dir, c, h, k_max, tol, prec));
                let t = branch_weight(t_lo, t_hi, prec);
                let rest = Interval::one(prec).sub(&t);
                a.iter().zip(&b).map(|(a, b)| a.scale(&t).add(&b.scale(&rest))).collect()
            }
            // the laws without a closed form or direct sum: [`Mgf::quadrature`] names them and their rules
            _ => self.quadrature(prec).expect("invariant: every other law has a quadrature")(dir, c, h, k_max, tol),
        }
    }

    /// An upper bound of ln M(λ) for real λ ≥ 0.
    pub fn ln_real_upper(&self, dir: Direction, lam: &Float, prec: u32) -> Float {
        match self {
            Mgf::Gaussian { eta } => {
                let l = Interval::from_float(lam, prec);
                Interval::from_rational(eta, prec).mul(&l.mul(&l).add(&l)).hi().clone()
            }
            Mgf::PoissonGaussian { .. }
            | Mgf::PoissonReplace { .. }
            | Mgf::PoissonLaplace { .. }
            | Mgf::PoissonBoundedRange { .. }
            | Mgf::PoissonReplaceLaplace { .. }
            | Mgf::WorGaussian { .. }
            | Mgf::WorLaplace { .. }
            | Mgf::Branches { .. }
            | Mgf::Mixture { .. }
            | Mgf::Laplace { .. }
            | Mgf::BoundedRange { .. }
            | Mgf::DiscreteGaussian { .. }
            | Mgf::RandomizedResponse(_) => {
                let m = self.line(dir, lam, &Float::with_val(prec, 0), 0, 1e-30, prec);
                Interval::new(m[0].re().hi().clone(), m[0].re().hi().clone()).ln().hi().clone()
            }
        }
    }

    /// Planning (not certified): ln M(λ) for real λ ≥ 0 in double precision.
    pub fn ln_real_f64(&self, dir: Direction, lam: f64) -> f64 {
        self.ln_real_f64_on(dir, lam, None)
    }

    /// Planning: what [`Mgf::ln_real_f64`]'s trapezoid sum reads on its fixed grid, for the laws whose
    /// planning is that sum (the subsampled Gaussian, mixtures of Gaussians; None for the others). Computed
    /// once per composition, it leaves each planning evaluation one exponential per point.
    pub fn planning_grid(&self) -> Option<Vec<f64>> {
        match self {
            Mgf::PoissonGaussian { q, eta } => Some(trapezoid_grid(poisson_ln_r(q, eta).0)),
            Mgf::Mixture { parts } => Some(trapezoid_grid(mixture_ln_r(parts).0)),
            _ => None,
        }
    }

    /// [`Mgf::ln_real_f64`], reading the trapezoid's values from `grid` ([`Mgf::planning_grid`] of this law)
    /// where given: the same value, bit for bit.
    pub fn ln_real_f64_on(&self, dir: Direction, lam: f64, grid: Option<&[f64]>) -> f64 {
        match self {
            Mgf::Gaussian { eta } => eta.to_f64() * lam * (lam + 1.0),
            Mgf::PoissonGaussian { q, eta } => {
                let (inner, mu) = poisson_ln_r(q, eta);
                let kr = kappa_re(dir, lam);
                // the log of the integrand at its largest, then a trapezoid sum relative to it
                ln_gauss_trapezoid_on(inner, kr, 14.0 + kr.max(0.0) * mu, grid)
            }
            Mgf::PoissonReplace { q, eta } => replace(q, eta, 64).ln_real_f64(lam),
            Mgf::PoissonLaplace { .. } | Mgf::PoissonBoundedRange { .. } => laplace_sub(self, 64).ln_real_f64(dir, lam),
            Mgf::PoissonReplaceLaplace { q, eps0 } => LaplaceSub::new(q, eps0, 64).ln_replace_f64(lam),
            Mgf::WorGaussian { q, eta } => WorGauss::new(q, eta, 64).ln_real_f64(lam),
            Mgf::WorLaplace { q, eps0 } => WorLaplace::new(q, eps0, 64).ln_real_f64(lam),
            Mgf::Mixture { parts } => {
                let (inner, mu_max) = mixture_ln_r(parts);
                let kr = kappa_re(dir, lam);
                // the same trapezoid sum as the subsampled Gaussian's
                ln_gauss_trapezoid_on(inner, kr, 14.0 + kr.max(0.0) * mu_max, grid)
            }
            Mgf::Laplace { eps0 } => {
                // λε₀ + ln[(1 + λ)/(1 + 2λ) + λ/(1 + 2λ) e^{−(1+2λ)ε₀}], without overflow
                let e = eps0.to_f64();
                let d = 1.0 + 2.0 * lam;
                lam * e + ((1.0 + lam) / d + lam / d * (-d * e).exp()).ln()
            }
            Mgf::DiscreteGaussian { sigma2, mu } => super::mgf_dgauss::ln_real_f64(sigma2, *mu, lam),
            Mgf::BoundedRange { eps } => super::mgf_bounded_range::ln_real_f64(eps, lam),
            Mgf::RandomizedResponse(rr) => super::mgf_atoms::ln_real_f64(rr, lam),
            Mgf::Branches { t_lo, cut, plain, .. } => {
                let (t, a, b) = (t_lo.to_f64(), cut.ln_real_f64(dir, lam), plain.ln_real_f64(dir, lam));
                let top = a.max(b);
                top + (t * (a - top).exp() + (1.0 - t) * (b - top).exp()).ln()
            }
        }
    }

    /// Planning: the quadrature nodes one point of the line costs at reach t_max (0 for a closed form).
    pub fn nodes(&self, dir: Direction, c: f64, t_max: f64, tol: f64) -> usize {
        match self {
            Mgf::Gaussian { .. } => 0,
            // (one closed form per point: the line's length is the work)
            Mgf::Laplace { .. } | Mgf::BoundedRange { .. } | Mgf::RandomizedResponse(_) => 1,
            Mgf::DiscreteGaussian { sigma2, mu } => super::mgf_dgauss::terms(sigma2, *mu, c, t_max, tol),
            Mgf::PoissonGaussian { .. } | Mgf::Mixture { .. } => Sub::of(self, 64).plan(kappa_re(dir, c), t_max, tol).nodes,
            Mgf::PoissonReplace { q, eta } => replace(q, eta, 64).nodes(c, t_max, tol),
            Mgf::PoissonLaplace { .. } | Mgf::PoissonBoundedRange { .. } => laplace_sub(self, 64).nodes(dir, c, t_max, tol),
            Mgf::PoissonReplaceLaplace { q, eps0 } => LaplaceSub::new(q, eps0, 64).replace_nodes(c, t_max, tol),
            Mgf::WorGaussian { q, eta } => WorGauss::new(q, eta, 64).nodes(c, t_max, tol),
            Mgf::WorLaplace { q, eps0 } => WorLaplace::new(q, eps0, 64).nodes(c, t_max, tol),
            Mgf::Branches { cut, plain, .. } => cut.nodes(dir, c, t_max, tol) + plain.nodes(dir, c, t_max, tol),
        }
    }

    /// Planning: whether the line sums its quadrature's nodes by phase recurrences (`mgf_quad::chunked_sum`,
    /// in fixed point where its bound holds the tolerance) rather than by closed forms or direct sums.
    pub fn phase_sums(&self) -> bool {
        match self {
            Mgf::Branches { cut, plain, .. } => cut.phase_sums() && plain.phase_sums(),
            _ => self.quadrature(64).is_some(),
        }
    }

    /// The certified quadrature that evaluates this law's line in [`Mgf::line`] (its phase sums through
    /// `mgf_quad::chunked_sum`), as a function of (direction, c, h, k_max, tol); None for the laws with a
    /// closed form or a direct sum, and for [`Mgf::Branches`] (a mixture of two laws' lines).
    fn quadrature(&self, prec: u32) -> Option<QuadratureLine> {
        Some(match self {
            Mgf::PoissonGaussian { .. } | Mgf::Mixture { .. } => {
                let s = Sub::of(self, prec);
                Box::new(move |dir, c, h, k, tol| s.line(dir, c, h, k, tol))
            }
            Mgf::PoissonReplace { q, eta } => {
                let r = replace(q, eta, prec);
                Box::new(move |_, c, h, k, tol| r.line(c, h, k, tol))
            }
            Mgf::PoissonLaplace { .. } | Mgf::PoissonBoundedRange { .. } => {
                let l = laplace_sub(self, prec);
                Box::new(move |dir, c, h, k, tol| l.line(dir, c, h, k, tol))
            }
            Mgf::PoissonReplaceLaplace { q, eps0 } => {
                let l = LaplaceSub::new(q, eps0, prec);
                Box::new(move |_, c, h, k, tol| l.replace_line(c, h, k, tol))
            }
            Mgf::WorGaussian { q, eta } => {
                let w = WorGauss::new(q, eta, prec);
                Box::new(move |_, c, h, k, tol| w.line(c, h, k, tol))
            }
            Mgf::WorLaplace { q, eps0 } => {
                let w = WorLaplace::new(q, eps0, prec);
                Box::new(move |_, c, h, k, tol| w.line(c, h, k, tol))
            }
            Mgf::Gaussian { .. }
            | Mgf::Laplace { .. }
            | Mgf::BoundedRange { .. }
            | Mgf::RandomizedResponse(_)
            | Mgf::DiscreteGaussian { .. }
            | Mgf::Branches { .. } => return None,
        })
    }

    /// The decay of |M(c + it)| for t ≥ t*: [`Decay::ln_upper`] (`m_c_hi` an upper bound of M(c)).
    pub fn decay(&self, dir: Direction, c: &Float, m_c_hi: &Float, prec: u32) -> Decay {
        match self {
            Mgf::Gaussian { eta } => Decay::Gaussian { eta: eta.clone(), c: c.clone() },
            Mgf::PoissonGaussian { .. } | Mgf::Mixture { .. } => Sub::of(self, prec).decay(dir, c, m_c_hi),
            Mgf::PoissonLaplace { .. } | Mgf::PoissonBoundedRange { .. } => Decay::Components {
                m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0,
                parts: laplace_sub(self, prec).decay_parts(dir, c),
            },
            Mgf::PoissonReplaceLaplace { q, eps0 } => Decay::Components {
                m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0,
                parts: LaplaceSub::new(q, eps0, prec).replace_decay_parts(c),
            },
            Mgf::WorGaussian { q, eta } => Decay::Components {
                m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0,
                parts: WorGauss::new(q, eta, prec).decay_parts(c),
            },
            Mgf::WorLaplace { q, eps0 } => Decay::Components {
                m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0,
                parts: WorLaplace::new(q, eps0, prec).decay_parts(c),
            },
            Mgf::Branches { t_lo, t_hi, cut, plain } => {
                // each branch's whole bound (shifted contours included) against its own M(c)
                let own = |m: &Mgf| {
                    let m_c = m.line(dir, c, &Float::with_val(prec, 0), 0, 1e-12, prec)[0].re().hi().clone();
                    m.decay(dir, c, &m_c, prec)
                };
                let (d_cut, d_plain) = (own(cut), own(plain));
                // the mixture's tilted measure is (1 − t)ν_plain + t ν_cut: each branch's uniform components,
                // scaled by the lower end of its weight, lie inside it, a layer cake against the mixture's M(c)
                let t = branch_weight(t_lo, t_hi, 64);
                let scaled = |d: &Decay, w: &Float| -> Vec<(Float, Float)> {
                    d.cake().iter().map(|(m, l)| (Float::with_val_round(64, m * w, Round::Down).0, l.clone())).collect()
                };
                let mut all = scaled(&d_cut, t.lo());
                all.extend(scaled(&d_plain, Interval::one(64).sub(&t).lo()));
                let cake = Decay::Components { m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0, parts: all };
                let (cut, plain) = (Box::new(d_cut), Box::new(d_plain));
                Decay::Min(vec![cake, Decay::Mix { t_lo: t.lo().clone(), t_hi: t.hi().clone(), cut, plain }])
            }
            Mgf::PoissonReplace { q, eta } => {
                let cake = Decay::Components {
                    m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0,
                    parts: replace(q, eta, prec).decay_parts(c),
                };
                let (qi, ei) = (Interval::from_rational(q, 64), Interval::from_rational(eta, 64));
                Decay::with_strips(cake, super::mgf_strip::replace_strips(&qi, &ei, (2.0 * eta.to_f64()).sqrt(), c.to_f64()))
            }
            // a lattice law's characteristic function is periodic: |M(c + it)| ≤ M(c), no more
            Mgf::DiscreteGaussian { .. } | Mgf::RandomizedResponse(_) => {
                Decay::Components { m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0, parts: vec![] }
            }
            Mgf::BoundedRange { eps } => Decay::BoundedRange { eps: eps.clone(), c: c.clone() },
            Mgf::Laplace { eps0 } => Decay::Min(vec![
                Decay::Laplace { eps0: eps0.clone(), c: c.clone() },
                Decay::Components { m_c_hi: Float::with_val_round(64, m_c_hi, Round::Up).0, parts: laplace_layers(eps0, c) },
            ]),
        }
    }
}

/// The uniform components of the Laplace law's tilted continuous part e^{cℓ} ¼e^{−(ε₀ − ℓ)/2} on
/// (−ε₀, ε₀) (module doc of [`Decay`]'s components): on each of [`LAPLACE_PIECES`] equal pieces the density is at
/// least its value at the left end (it increases: c + ½ > 0).
fn laplace_layers(eps0: &Rational, c: &Float) -> Vec<(Float, Float)> {
    let p = 64;
    let e = Interval::from_rational(eps0, p);
    let width = e.add(&e).div(&Interval::from_i64(LAPLACE_PIECES as i64, p));
    let rate = Interval::from_float(c, p).add(&Interval::from_float(&Float::with_val(p, 0.5), p));
    let quarter = Interval::from_float(&Float::with_val(p, 0.25), p);
    let pieces: Vec<(Float, Float)> = (0..LAPLACE_PIECES)
        .map(|j| {
            let left = e.neg().add(&width.mul(&Interval::from_i64(j as i64, p)));
            let m = quarter.mul(&e.neg().div(&Interval::from_i64(2, p)).add(&rate.mul(&left)).exp());
            (m.lo().clone(), width.lo().clone())
        })
        .collect();
    layers(&pieces)
}

/// The Laplace law's M(c + ikh), k ≤ k_max, enclosed: M(s) = [(1 + s) e^{sε₀} + s e^{−(1+s)ε₀}]/(1 + 2s)
/// [Mir17, Prop. 6] (module doc), where e^{sε₀} = e^{cε₀} z_k and e^{−(1+s)ε₀} = e^{−(1+c)ε₀} z̄_k with the
/// phases z_k = e^{ikhε₀} (`num::cinterval::Phases`: one complex product per point, not two exponentials),
/// in parallel chunks of [`LINE_CHUNK`] points, each from MPFR's sine and cosine at its start (the same line
/// on any number of threads).
fn laplace_line(eps0: &Rational, c: &Float, h: &Float, k_max: usize, prec: u32) -> Vec<CInterval> {
    let e = Interval::from_rational(eps0, prec);
    let one = Interval::one(prec);
    let c = Interval::from_float(c, prec);
    let h = Interval::from_float(h, prec);
    let (up, down) = (c.mul(&e).exp(), one.add(&c).mul(&e).neg().exp());
    let theta = h.mul(&e);
    let (c1, c2) = (one.add(&c), one.add(&c.add(&c)));
    let chunk = |k0: usize| -> Vec<CInterval> {
        let mut z = Phases::from_k(&one, &theta, k0 as i64);
        (k0..=k_max.min(k0 + LINE_CHUNK - 1))
            .map(|k| {
                if k > k0 {
                    z.advance();
                }
                let t = h.mul(&Interval::from_i64(k as i64, prec));
                let (zr, zi) = (z.current().re(), z.current().im());
                let s = CInterval::new(c.clone(), t.clone());
                let s1 = CInterval::new(c1.clone(), t.clone());
                let den = CInterval::new(c2.clone(), t.add(&t));
                let up = CInterval::new(zr.mul(&up), zi.mul(&up));
                let down = CInterval::new(zr.mul(&down), zi.neg().mul(&down));
                s1.mul(&up).add(&s.mul(&down)).mul(&den.inv().expect("invariant: Re(1 + 2s) = 1 + 2c >= 1"))
            })
            .collect()
    };
    (0..=k_max).step_by(LINE_CHUNK).collect::<Vec<_>>().into_par_iter().flat_map_iter(chunk).collect()
}

/// Points of a closed-form line per parallel chunk ([`laplace_line`]).
const LINE_CHUNK: usize = 1024;

/// The cut branch's probability t ∈ [t_lo, t_hi] of [`Mgf::Branches`], enclosed.
fn branch_weight(t_lo: &Rational, t_hi: &Rational, prec: u32) -> Interval {
    Interval::new(Interval::from_rational(t_lo, prec).lo().clone(), Interval::from_rational(t_hi, prec).hi().clone())
}

/// The quadrature's quantities of the subsampled Laplace mechanism or the subsampled bounded-range pair
/// (`mgf_laplace_sub.rs`) at `prec` bits.
fn laplace_sub(m: &Mgf, prec: u32) -> LaplaceSub {
    match m {
        Mgf::PoissonLaplace { q, eps0 } => LaplaceSub::new(q, eps0, prec),
        Mgf::PoissonBoundedRange { q, eps } => LaplaceSub::bounded_range(q, eps, prec),
        _ => unreachable!("LaplaceSub holds the subsampled Laplace mechanism and bounded-range pair only"),
    }
}

/// A quadrature law's line M(c + ikh), k = 0..=k_max, within tol, as a function of (direction, c, h, k_max,
/// tol) ([`Mgf::quadrature`]).
type QuadratureLine = Box<dyn Fn(Direction, &Float, &Float, usize, f64) -> Vec<CInterval> + Send + Sync>;

/// The replace pair of the subsampled Gaussian (`mgf_replace.rs`), with the add/remove law's bound of F.
fn replace(q: &Rational, eta: &Rational, prec: u32) -> Replace {
    let single = Sub::new(&[(q.clone(), eta.clone())], prec);
    Replace::new(q, eta, prec, Box::new(move |k: &Float| single.ln_f_bar(k)))
}

/// The real part of the exponent κ of r at s = λ: 1 + λ (`Remove`), −λ (`Add`).
pub(super) fn kappa_re(dir: Direction, lam: f64) -> f64 {
    match dir {
        Direction::Remove => 1.0 + lam,
        Direction::Add => -lam,
    }
}

/// An upper bound of ln sup_{t ≥ t*} |M(c + it)| as a function of t*.
pub enum Decay {
    /// |M(c + it)| = e^{η(c² + c − t²)}
    Gaussian { eta: Rational, c: Float },
    /// M(c) and the uniform components (m_j Λ_j, Λ_j), lower ends (module doc)
    Components { m_c_hi: Float, parts: Vec<(Float, Float)> },
    /// e^{cε₀}|1 + c + it*|/|1 + 2c + 2it*| + ½e^{−(1+c)ε₀} (module doc)
    Laplace { eps0: Rational, c: Float },
    /// e^{ε/2} cosh((c + ½)ε)/((e^ε − 1)|c + ½ + it*|) (`noise::mgf_bounded_range`)
    BoundedRange { eps: Rational, c: Float },
    /// the shifted contour's bound (`noise::mgf_strip`)
    Strip(super::mgf_strip::Strip),
    /// a branch-revealing mixture's (`Mgf::Branches`): |M| ≤ t|M_cut| + (1 − t)|M_plain|, each branch by its
    /// own bound, at the worse end of t ∈ [t_lo, t_hi] (the bound is linear in t)
    Mix { t_lo: Float, t_hi: Float, cut: Box<Decay>, plain: Box<Decay> },
    /// the smallest of several bounds
    Min(Vec<Decay>),
}

impl Decay {
    /// The smallest of a layer cake and the shifted contours' bounds (the cake first: truncated Poisson
    /// sampling's branches read it there).
    fn with_strips(cake: Decay, strips: Vec<super::mgf_strip::Strip>) -> Decay {
        Decay::Min(std::iter::once(cake).chain(strips.into_iter().map(Decay::Strip)).collect())
    }

    /// The layer cake's uniform components: its own, or those of the layer cake among the smallest-of bounds
    /// (none for the other bounds).
    pub fn cake(&self) -> &[(Float, Float)] {
        match self {
            Decay::Components { parts, .. } => parts,
            Decay::Min(bounds) => bounds.iter().map(Decay::cake).find(|p| !p.is_empty()).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The bound at t* ≥ 0 (rounded up); +∞ when the components do not bring it below M(c).
    pub fn ln_upper(&self, t_star: f64) -> Float {
        let p = 64;
        let t = Interval::from_float(&Float::with_val(p, t_star), p);
        match self {
            Decay::Gaussian { eta, c } => {
                let c = Interval::from_float(c, p);
                Interval::from_rational(eta, p).mul(&c.mul(&c).add(&c).sub(&t.mul(&t))).hi().clone()
            }
            Decay::Components { m_c_hi, parts } => {
                let mut gain = Interval::zero(p);
                let half = Interval::from_float(&Float::with_val(p, 0.5), p);
                for (m_lambda, lambda) in parts {
                    let s0 = t.mul(&Interval::from_float(lambda, p)).mul(&half);
                    let b = sinc_sup(s0.lo());
                    gain = gain.add(&Interval::from_float(m_lambda, p).mul(&Interval::one(p).sub(&b)));
                }
                let rest = Interval::from_float(m_c_hi, p).sub(&gain);
                if *rest.hi() <= 0 {
                    // the components can not exceed the whole mass: a rounding artefact at most
                    return Float::with_val(p, f64::NEG_INFINITY);
                }
                Interval::new(rest.hi().clone(), rest.hi().clone()).ln().hi().clone()
            }
            Decay::Laplace { eps0, c } => {
                let (e, c, one) = (Interval::from_rational(eps0, p), Interval::from_float(c, p), Interval::one(p));
                let c1 = one.add(&c);
                let c2 = c1.add(&c);
                let t2 = t.mul(&t);
                let ratio = c1.mul(&c1).add(&t2).div(&c2.mul(&c2).add(&t2.mul(&Interval::from_i64(4, p)))).sqrt();
                let half = one.div(&Interval::from_i64(2, p));
                let bound = c.mul(&e).exp().mul(&ratio).add(&half.mul(&c1.mul(&e).neg().exp()));
                bound.ln().hi().clone()
            }
            Decay::BoundedRange { eps, c } => super::mgf_bounded_range::ln_decay(eps, c, t_star),
            Decay::Strip(s) => s.ln_upper(t_star),
            Decay::Mix { t_lo, t_hi, cut, plain } => mix_ln_upper(t_lo, t_hi, &cut.ln_upper(t_star), &plain.ln_upper(t_star)),
            Decay::Min(bounds) => {
                bounds.iter().map(|b| b.ln_upper(t_star)).fold(Float::with_val(p, f64::INFINITY), |a, b| if b < a { b } else { a })
            }
        }
    }
}

/// ln max_{t ∈ {t_lo, t_hi}} (t e^a + (1 − t) e^b), rounded up: [`Decay::Mix`]'s bound from its branches' `a`
/// and `b` (+∞ where either is).
fn mix_ln_upper(t_lo: &Float, t_hi: &Float, a: &Float, b: &Float) -> Float {
    let p = 64;
    let inf = Float::with_val(p, f64::INFINITY);
    if a.is_nan() || b.is_nan() || a.is_infinite() && *a > 0 || b.is_infinite() && *b > 0 {
        return inf;
    }
    let up = |x: &Float| if x.is_infinite() { Interval::zero(p) } else { Interval::from_float(x, p).exp() };
    let (ea, eb) = (up(a), up(b));
    let one = Interval::one(p);
    let sum = |t: &Float| {
        let t = Interval::from_float(t, p);
        t.mul(&ea).add(&one.sub(&t).mul(&eb)).hi().clone()
    };
    let (x, y) = (sum(t_lo), sum(t_hi));
    let top = if x > y { x } else { y };
    if top <= 0 {
        return Float::with_val(p, f64::NEG_INFINITY);
    }
    Interval::new(top.clone(), top).ln().hi().clone()
}

/// Planning: x ↦ ln r(μx − η) of the subsampled Gaussian in f64 (stable where e^{μx − η} overflows), and μ.
fn poisson_ln_r(q: &Rational, eta: &Rational) -> (impl Fn(f64) -> f64, f64) {
    let (q, eta) = (q.to_f64(), eta.to_f64());
    let mu = (2.0 * eta).sqrt();
    let ln_r = move |z: f64| if z > 0.0 { z + (q + (1.0 - q) * (-z).exp()).ln() } else { (1.0 - q + q * z.exp()).ln() };
    (move |x: f64| ln_r(mu * x - eta), mu)
}

/// Planning: x ↦ ln r(x) of a mixture of Gaussians in f64, a log-sum-exp, and μ_max.
fn mixture_ln_r(parts: &[(Rational, Rational)]) -> (impl Fn(f64) -> f64, f64) {
    let comps: Vec<(f64, f64, f64)> = parts.iter().map(|(p, e)| (p.to_f64().ln(), (2.0 * e.to_f64()).sqrt(), e.to_f64())).collect();
    let ln_p0 = (1.0 - parts.iter().map(|(p, _)| p.to_f64()).sum::<f64>()).ln();
    let mu_max = comps.iter().map(|c| c.1).fold(0.0, f64::max);
    let ln_r = move |x: f64| {
        let ts: Vec<f64> = std::iter::once(ln_p0).chain(comps.iter().map(|(lp, mu, e)| lp + mu * x - e)).collect();
        log_sum_exp(&ts)
    };
    (ln_r, mu_max)
}

/// An enclosure whose upper end bounds sup_{s ≥ s₀} |sin s / s| (module doc), for s₀ ≥ 0.
fn sinc_sup(s0: &Float) -> Interval {
    let p = 64;
    let s = Interval::from_float(&Float::with_val(p, s0.max_ref(&Float::with_val(p, 0))), p);
    let pi = Interval::pi(p);
    if *s.lo() > *pi.hi() {
        return Interval::one(p).div(&s);
    }
    let s2 = s.mul(&s);
    let poly = Interval::one(p).sub(&s2.div(&Interval::from_i64(6, p))).add(&s2.mul(&s2).div(&Interval::from_i64(120, p)));
    let inv_pi = Interval::one(p).div(&pi);
    let hi = if poly.hi() > inv_pi.hi() { poly.hi().clone() } else { inv_pi.hi().clone() };
    Interval::new(hi.clone(), hi)
}

/// The Poisson-subsampled Gaussian's quantities at one precision, and the mixture of Gaussians' (module doc
/// and [`Mgf::Mixture`]): components (pᵢ, ηᵢ, μᵢ), the rest p₀ at 0. With one component every quantity is
/// computed exactly as the subsampled Gaussian's own formulas.
#[derive(Clone)]
struct Sub {
    q: Vec<Interval>,
    eta: Vec<Interval>,
    mu: Vec<Interval>,
    /// Σ pᵢ = 1 − p₀
    q_sum: Interval,
    /// the largest μᵢ: the strip |Im x| < π/μ_max holds no zero of r (every term's argument lies in
    /// [0, μ_max y] for y = Im x > 0, so r lies in a sector narrower than π)
    mu_max: Interval,
    qf: f64,
    muf: f64,
    prec: u32,
}

/// The trapezoidal rule's plan: the strip half-width a, the node spacing ϑ and the window [x_lo, x_hi].
struct Plan {
    a: f64,
    step: f64,
    x_lo: f64,
    nodes: usize,
}

impl Sub {
    /// The components (pᵢ, ηᵢ) of a subsampled Gaussian or a mixture at `prec` bits.
    fn of(m: &Mgf, prec: u32) -> Sub {
        match m {
            Mgf::PoissonGaussian { q, eta } => Sub::new(&[(q.clone(), eta.clone())], prec),
            Mgf::Mixture { parts } => Sub::new(parts, prec),
            _ => unreachable!("Sub holds the subsampled Gaussian and the mixture only"),
        }
    }

    fn new(parts: &[(Rational, Rational)], prec: u32) -> Sub {
        let q: Vec<Interval> = parts.iter().map(|(q, _)| Interval::from_rational(q, prec)).collect();
        let eta: Vec<Interval> = parts.iter().map(|(_, e)| Interval::from_rational(e, prec)).collect();
        let mu: Vec<Interval> = eta.iter().map(|e| e.add(e).sqrt()).collect();
        let q_sum = q[1..].iter().fold(q[0].clone(), |a, b| a.add(b));
        let mu_max = mu[1..].iter().fold(mu[0].clone(), |a, b| a.max(b));
        let qf = parts.iter().map(|(q, _)| q.to_f64()).sum();
        let muf = parts.iter().map(|(_, e)| (2.0 * e.to_f64()).sqrt()).fold(0.0, f64::max);
        Sub { q, eta, mu, q_sum, mu_max, qf, muf, prec }
    }

    /// p₀ = 1 − Σ pᵢ, enclosed.
    fn p0(&self) -> Interval {
        Interval::one(self.prec).sub(&self.q_sum)
    }

    /// u_i = pᵢ e^{μᵢx − ηᵢ} at x, Σ uᵢ and Σ μᵢuᵢ (= r′(x)).
    fn terms(&self, x: &Interval) -> (Interval, Interval) {
        let u: Vec<Interval> = (0..self.q.len()).map(|i| self.q[i].mul(&self.mu[i].mul(x).sub(&self.eta[i]).exp())).collect();
        let sum = u[1..].iter().fold(u[0].clone(), |a, b| a.add(b));
        let slopes: Vec<Interval> = u.iter().zip(&self.mu).map(|(u, m)| m.mul(u)).collect();
        let slope = slopes[1..].iter().fold(slopes[0].clone(), |a, b| a.add(b));
        (sum, slope)
    }

    /// ln of an upper bound of F(κ) on the real axis (module doc), f64 planning or certified (hi end).
    fn ln_f_bar(&self, kr: &Float) -> Interval {
        let p = self.prec;
        let one = Interval::one(p);
        if *kr < 0 {
            return Interval::from_float(kr, p).mul(&self.p0().ln());
        }
        if *kr <= 1 {
            return Interval::zero(p);
        }
        if self.q.len() > 1 {
            // r(x) = E_J[e^{μ_J x − η_J}] over the component J (μ₀ = η₀ = 0 with p₀), and t^κ is convex for
            // κ ≥ 1 (Jensen): F(κ) ≤ Σ_j p_j E[e^{κ(μ_j X − η_j)}] = p₀ + Σ_j p_j e^{η_j κ(κ − 1)}
            let k = Interval::from_float(kr, p);
            let kk = k.mul(&k.sub(&one));
            let sum = self.q.iter().zip(&self.eta).fold(self.p0(), |s, (q, e)| s.add(&q.mul(&e.mul(&kk).exp())));
            return sum.ln();
        }
        let (q, eta) = (&self.q[0], &self.eta[0]);
        let m = kr.to_f64().ceil() as u32;
        let mut sum = Interval::zero(p);
        let mut binom = Rational::from(1);
        for j in 0..=m {
            if j > 0 {
                binom = binom * Rational::from(m - j + 1) / Rational::from(j);
            }
            let term = Interval::from_rational(&binom, p)
                .mul(&one.sub(q).powu(m - j))
                .mul(&q.powu(j))
                .mul(&eta.mul(&Interval::from_i64(i64::from(j) * (i64::from(j) - 1), p)).exp());
            sum = sum.add(&term);
        }
        sum.ln().mul(&Interval::from_float(kr, p)).div(&Interval::from_i64(i64::from(m), p))
    }

    /// The strip, spacing and window for exponent κ with real part `kr` and |Im κ| ≤ t_max, aiming at an
    /// absolute error `tol`.
    fn plan(&self, kr: f64, t_max: f64, tol: f64) -> Plan {
        let (mu, q) = (self.muf, self.qf);
        let ln_f = self.ln_f_bar(&Float::with_val(self.prec, kr)).hi().to_f64();
        let need = (4.0 / tol).ln() + ln_f.max(0.0);
        let (mut best_a, mut best_step) = (0.0, 0.0);
        for j in 1..=64 {
            let a = 0.95 * std::f64::consts::PI / mu * f64::from(j) / 64.0;
            let ln_c = if kr < 0.0 { kr * (mu * a / 2.0).cos().ln() } else { 0.0 };
            let step = 2.0 * std::f64::consts::PI * a / (need + a * a / 2.0 + t_max * mu * a + ln_c + 1.0);
            if step > best_step {
                (best_a, best_step) = (a, step);
            }
        }
        // a dyadic spacing: the nodes x_lo + nϑ are exact
        // (at least 2^-20: a plan beyond that is taken at its own, certified, larger error)
        let step = ((best_step * 1048576.0).floor() / 1048576.0).max(1.0 / 1048576.0);
        let ln_c = if kr < 0.0 { -kr * (1.0 - q).ln() } else { 0.0 };
        let (x_lo, nodes) = trapezoid_window(step, tol, ln_c, kr.max(0.0) * mu);
        Plan { a: best_a, step, x_lo, nodes }
    }

    /// The rule's certified error for the plan: the strip bound plus the two tails of the node sum.
    fn error(&self, plan: &Plan, kr: &Float, t_max: f64) -> Float {
        let p = self.prec;
        let f = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
        let one = Interval::one(p);
        let a = f(plan.a);
        let pi = Interval::pi(p);
        assert!(*self.mu_max.mul(&a).hi() < *pi.lo(), "the strip must stay inside |Im x| < pi/mu");
        let kri = Interval::from_float(kr, p);
        let half = f(0.5);
        // ln M_a = a²/2 + t_max μ a + ln C + ln F̄
        let mut ln_ma = a.mul(&a).mul(&half).add(&f(t_max).mul(&self.mu_max).mul(&a)).add(&self.ln_f_bar(kr));
        let ln_tail_c = if *kr < 0 { kri.mul(&self.p0().ln()) } else { Interval::zero(p) };
        if *kr < 0 {
            ln_ma = ln_ma.add(&kri.mul(&self.mu_max.mul(&a).mul(&half).cos().ln()));
        }
        let ratio = pi.add(&pi).mul(&a).div(&f(plan.step)).exp();
        let strip = f(2.0).mul(&ln_ma.exp()).div(&ratio.sub(&one));
        let x_lo = f(plan.x_lo);
        let x_hi = f(plan.x_lo + plan.step * (plan.nodes - 1) as f64);
        let left = normal_sf(&x_lo.neg()).mul(&ln_tail_c.exp());
        let right = if *kr >= 0 {
            let shift = kri.mul(&self.mu_max);
            assert!(*x_hi.lo() >= *shift.hi(), "the window must reach past the tilted peak");
            shift.mul(&shift).mul(&half).exp().mul(&normal_sf(&x_hi.sub(&shift)))
        } else {
            ln_tail_c.exp().mul(&normal_sf(&x_hi))
        };
        strip.add(&left).add(&right).hi().clone()
    }

    /// M(c + ikh), k = 0..=k_max, in direction `dir` (module doc).
    fn line(&self, dir: Direction, c: &Float, h: &Float, k_max: usize, tol: f64) -> Vec<CInterval> {
        let p = self.prec;
        let (kr, sign) = match dir {
            Direction::Remove => (Float::with_val(p, c + 1u32), 1),
            Direction::Add => (Float::with_val(p, -c), -1),
        };
        let t_max = h.to_f64() * k_max as f64;
        let plan = self.plan(kr.to_f64(), t_max, tol);
        let err = self.error(&plan, &kr, t_max);
        // ln √(2π), once per line (it was a logarithm per node)
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&Interval::from_float(&Float::with_val(p, 0.5), p));
        chunked_sum(plan.nodes, k_max, p, &err, tol, |n, acc| self.add_node(&plan, n, &kr, sign, h, &ln_norm, acc))
    }

    /// Node n's terms ϑ φ(x) r(x)^{κr} e^{±ikhℓ(x)} added to acc[k].
    /// (`ln_norm` = ln √(2π), enclosed.)
    #[allow(clippy::too_many_arguments)]
    fn add_node(&self, plan: &Plan, n: usize, kr: &Float, sign: i32, h: &Float, ln_norm: &Interval, acc: &mut PhaseAcc) {
        let p = self.prec;
        let x = Interval::from_float(&(Float::with_val(p, plan.x_lo) + Float::with_val(p, plan.step) * n as u32), p);
        let (u, _) = self.terms(&x);
        let l = self.p0().add(&u).ln();
        let half = Interval::from_float(&Float::with_val(p, 0.5), p);
        let ln_w = Interval::from_float(kr, p).mul(&l).sub(&x.mul(&x).mul(&half)).sub(ln_norm);
        let w = ln_w.exp().mul(&Interval::from_float(&Float::with_val(p, plan.step), p));
        let theta = l.mul(&Interval::from_float(h, p)).mul(&Interval::from_i64(i64::from(sign), p));
        acc.add(&w, &theta);
    }

    /// The uniform components of the tilted law of the loss (module doc), at 64 bits.
    fn decay(&self, dir: Direction, c: &Float, m_c_hi: &Float) -> Decay {
        let p = 64;
        let s = Sub { prec: p, ..self.clone() };
        let kr = match dir {
            Direction::Remove => c.to_f64() + 1.0,
            Direction::Add => -c.to_f64(),
        };
        let (x0, x1) = (-6.0, 6.0 + kr.max(0.0) * self.muf);
        let width = (x1 - x0) / PIECES as f64;
        // (ln r′ with r′ = Σ μᵢuᵢ, ln r, ln φ) at x; None where r′ or r is not certainly positive (the terms
        // underflow the exponent range at a tiny noise multiplier): the pieces there bound nothing (m = 0)
        let ln_pos = |v: Interval| if v.is_positive() { Some(v.ln()) } else { None };
        let at = |x: f64| {
            let xi = Interval::from_float(&Float::with_val(p, x), p);
            let (u, slope) = s.terms(&xi);
            let r = s.p0().add(&u);
            let ln_phi = xi.mul(&xi).mul(&Interval::from_float(&Float::with_val(p, -0.5), p));
            (ln_pos(slope), ln_pos(r), ln_phi)
        };
        let kr1 = Interval::from_float(&Float::with_val(p, kr + 1.0), p);
        let ln_norm = Interval::pi(p).add(&Interval::pi(p)).ln().mul(&Interval::from_float(&Float::with_val(p, 0.5), p));
        // each piece's lower bound m_i of the density and the length Λ_i of its image (lower ends)
        let mut pieces: Vec<(Float, Float)> = Vec::with_capacity(PIECES);
        let mut prev = at(x0);
        for j in 1..=PIECES {
            let next = at(x0 + width * j as f64);
            // φ at its smaller end, r^{κr+1} at its smaller end, 1/r′ at the right end (r′ = Σ μᵢuᵢ grows)
            let ln_phi = if prev.2.lo() < next.2.lo() { prev.2.clone() } else { next.2.clone() };
            let zero = Float::with_val(p, 0);
            let piece = match (&prev.1, &next.1, &next.0) {
                (Some(r0), Some(r1), Some(ln_slope)) => {
                    let ln_r = if kr + 1.0 >= 0.0 { r0 } else { r1 };
                    let ln_m = ln_phi.add(&kr1.mul(ln_r)).sub(ln_slope).sub(&ln_norm);
                    let lambda = r1.sub(r0);
                    (*lambda.lo() > 0).then(|| (ln_m.exp().lo().clone(), lambda.lo().clone()))
                }
                _ => None,
            };
            pieces.push(piece.unwrap_or_else(|| (zero.clone(), zero)));
            prev = next;
        }
        let cake = Decay::Components { m_c_hi: Float::with_val_round(p, m_c_hi, Round::Up).0, parts: layers(&pieces) };
        Decay::with_strips(cake, super::mgf_strip::strips(&self.q, &self.eta, &self.mu, &self.p0(), self.muf, kr))
    }
}

#[cfg(test)]
#[path = "mgf_tests.rs"]
mod tests;
