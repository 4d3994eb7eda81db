//! The paper's Fourier path and the local-CLT path ([SSW24, App. A.4–A.6], C, D).
//!
//! * [`boole`] — the faithful pipeline of §A.6 for P[Σ_i a_i Σ_j X_ij > t_ε]:
//!   Prop. A.12 (replace each level sum by the sampled Gaussian measure ν) → Prop. A.13 (Fourier
//!   inversion on the lattice ℤ/L, window [t_ε L, 6 t_ε L]) → Fact A.14 (integral cut to [0, 1/100]) →
//!   Fact A.15 (Boole's rule, N = 10⁷ + 1), with the error terms E⁽⁰⁾…E⁽³⁾ evaluated numerically.
//! * [`fast`] — our variant: the same inversion integral on a contour shifted to the saddle point
//!   (exponential tilting), with the *exact* θ-function characteristic functions (A.3) of the
//!   discrete Gaussian sums; the integrand is 2π-periodic and entire, so the trapezoidal rule is
//!   exact up to an aliasing term we bound in closed form. A few hundred nodes, f64 or MPFR.
//! * [`clt`] — the local CLT of Theorem A.11: the ϕ-approximation of the pmf of S_n, the residual
//!   r_{n,σ} bounded as in Fact C.1 (Ω₁, Ω₂, Ω₃) and computed directly.
//!
//! * [`smooth`] — the certified smoothed inversion: the hockey stick sandwiched between two Gaussian-
//!   smoothed functions (second-order gap), inverted on a tilted line with one-signed aliasing and
//!   bounded truncation, nodes in ball arithmetic. Rigorous brackets; the engine for budgets with no
//!   practical common lattice (the 2021 redistricting file), checked against the lattice where one exists.
//!
//! `boole`, `fast` and `clt` are *cross-checks* of the lattice accountant (`crate::pld`), which is the
//! reference: f64 (or MPFR where stated) with computed error bounds, not certified intervals. `smooth`
//! returns certified intervals.

pub mod boole;
pub mod clt;
pub mod fast;
pub(crate) mod lattice;
pub mod smooth;
pub(crate) mod theta;

use crate::error::{Error, Fallible};
use crate::model::GaussGroup;
use crate::pld::frame::common_step;
use crate::{err, fallible};
use rug::{Integer, Rational};

/// One group of the lattice statistic V = Σ_i k_i S_i, S_i = X_i1 + … + X_in_i, X_ij ~ N_Z(0, σ_i²).
/// In the paper's notation k_i = a_i·L (§A.6, Prop. A.13 with L = 10³).
#[derive(Clone, Debug, PartialEq)]
pub struct LatticeGroup {
    /// integer weight k_i = a_i L
    pub k: i64,
    /// σ_i² (exact)
    pub sigma2: Rational,
    /// number of i.i.d. queries n_i
    pub n: u32,
}

impl LatticeGroup {
    pub fn sigma2_f64(&self) -> f64 {
        self.sigma2.to_f64()
    }
    /// n_i σ_i², the variance of ν's X̄_i (Prop. A.12)
    pub fn b2(&self) -> f64 {
        self.n as f64 * self.sigma2.to_f64()
    }
}

/// Σ_i k_i² n_i σ_i²: the variance proxy of V (sub-Gaussian, (A.2)).
pub fn var_proxy(groups: &[LatticeGroup]) -> f64 {
    groups.iter().map(|g| (g.k as f64).powi(2) * g.b2()).sum()
}

/// The paper's input (a_i, σ_i², n_i) and t_ε on the lattice ℤ/L: k_i = a_i L must be integers.
/// Returns the groups and the threshold m = t_ε L (exact).
pub fn paper_lattice(groups: &[(Rational, Rational, u32)], t_eps: &Rational, l: u32) -> Fallible<(Vec<LatticeGroup>, Rational)> {
    if groups.is_empty() {
        return fallible!(Input, "empty group list");
    }
    let mut out = Vec::with_capacity(groups.len());
    for (a, s2, n) in groups {
        if *s2 <= 0 || *n == 0 || *a <= 0 {
            return fallible!(Input, "each group needs a_i > 0, σ_i² > 0, n_i ≥ 1");
        }
        let k = a * Rational::from(l);
        if *k.denom() != 1 {
            return fallible!(Input, "a_i·L = {} is not an integer (Prop. A.13 needs a_i L ∈ ℤ)", k);
        }
        let k = k.numer().to_i64().ok_or_else(|| err!(Declined, "a_i·L out of range"))?;
        out.push(LatticeGroup { k, sigma2: s2.clone(), n: *n });
    }
    Ok((out, (t_eps * Rational::from(l))))
}

/// The composition of `GaussGroup`s as the lattice statistic of eq. (A.9), generalised: the loss is
/// L = h·V ∓ ρ with V = Σ_i w_i S_i, w_i = μ_i/(σ_i² h) coprime integers (the lattice accountant's
/// `common_step`), ρ = Σ n_i μ_i²/(2σ_i²). The two thresholds of (A.9) on this lattice are
/// m∓ = (ε ∓ ρ)/h, i.e. t_ε L = (n/2)(ε/ρ ∓ 1)·L in the paper's DHC notation (a_i L = w_i, L = 10³).
pub struct MechLattice {
    pub groups: Vec<LatticeGroup>,
    pub h: Rational,
    pub rho: Rational,
}

impl MechLattice {
    pub fn new(mechs: &[GaussGroup]) -> Fallible<MechLattice> {
        if mechs.is_empty() {
            return fallible!(Input, "empty mechanism list");
        }
        for g in mechs {
            if g.sigma2 <= 0 || g.count == 0 || g.mu == 0 {
                return fallible!(Input, "each mechanism needs σ² > 0, n ≥ 1, μ ≥ 1");
            }
        }
        let slopes: Vec<Rational> = mechs.iter().map(|g| Rational::from(g.mu) / g.sigma2.clone()).collect();
        let (h, w) = common_step(&slopes);
        let rho = crate::model::gauss_rho(mechs);
        let groups = mechs
            .iter()
            .zip(&w)
            .map(|(g, wi)| {
                // V = Σ_i w_i S_i with w_i = μ_i/(σ_i² h): the sensitivity enters through the slope (pld::profile).
                // Slopes far apart (σ² = 1e-12 beside 1e12) give weights beyond i64: no lattice to sum on.
                let k = wi.to_i64().ok_or_else(|| {
                    err!(
                        Resource,
                        "the loss slopes share no practical lattice: a lattice weight of {} digits (the Fourier paths sum on a common lattice)",
                        wi.to_string().len()
                    )
                })?;
                Ok(LatticeGroup { k, sigma2: g.sigma2.clone(), n: g.count })
            })
            .collect::<Fallible<_>>()?;
        Ok(MechLattice { groups, h, rho })
    }

    /// The two thresholds m∓ = (ε ∓ ρ)/h of (A.9): first term P[V > m₋], second P[V > m₊].
    pub fn thresholds(&self, eps: &Rational) -> (Rational, Rational) {
        let lo = Rational::from(eps - &self.rho) / &self.h;
        let hi = Rational::from(eps + &self.rho) / &self.h;
        (lo, hi)
    }
}

/// Smallest integer strictly above x (the first lattice point of {V > x}).
pub fn first_above(x: &Rational) -> Fallible<i64> {
    let f = Integer::from(x.floor_ref());
    f.to_i64().and_then(|v| v.checked_add(1)).ok_or_else(out_of_range)
}

/// ⌈x⌉ as i64.
pub fn ceil_i64(x: &Rational) -> Fallible<i64> {
    Integer::from(x.ceil_ref()).to_i64().ok_or_else(out_of_range)
}

fn out_of_range() -> Error {
    err!(
        Declined,
        "the Fourier lattice threshold (epsilon ± rho)/h is beyond the 64-bit index range (sigma2 too large for \
         the Fourier methods); use --method auto"
    )
}

/// Parse the paper's DHC groups (Table 3; PEPG + TSG merged as n = 20 at 13.1 %) with σ_i² = 10/(2 a_i ρ).
pub fn dhc_table3_groups(rho: &Rational) -> Vec<(Rational, Rational, u32)> {
    let shares = [("0.02", 10), ("0.274", 10), ("0.085", 10), ("0.131", 20), ("0.238", 10), ("0.118", 10), ("0.003", 10)];
    shares
        .iter()
        .map(|(a, n)| {
            let a = crate::num::parse_rational(a).expect("invariant: a decimal constant");
            let s2 = Rational::from(10) / (Rational::from(2) * a.clone() * rho.clone());
            (a, s2, *n as u32)
        })
        .collect()
}

/// The same groups as `GaussGroup`s (for the lattice accountant).
pub fn dhc_table3_mechs(rho: &Rational) -> Vec<GaussGroup> {
    dhc_table3_groups(rho).into_iter().map(|(_, s2, n)| GaussGroup { sigma2: s2, count: n, mu: 1 }).collect()
}
