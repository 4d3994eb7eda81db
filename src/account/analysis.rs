//! What the applications recompute about the engines' own mathematics rather than about a privacy
//! guarantee: the error terms of the paper's Boole-rule Fourier pipeline, its local-CLT residual bound,
//! and the exact law of a sum of discrete Gaussians that the local CLT approximates ([SSW24, App. A.5–D]).
//! `verify` checks the paper's printed values of these, Figure 10 draws the last. None of them is a
//! [`super::Certified`] privacy quantity: the error terms are f64 evaluations of the paper's formulas, the
//! laws certified intervals of probabilities. They are reached here so that no module above `account`
//! calls an engine (`tests/engines_behind_accountant.rs`).

use crate::error::Fallible;
use crate::fallible;
/// The error terms' total as the paper's pipeline prints it (`fourier::boole::error_total`).
pub use crate::fourier::boole::error_total;
use crate::fourier::boole::{error_terms, BooleParams, A7_U as U};
use crate::fourier::{ceil_i64, dhc_table3_groups, first_above, paper_lattice};
use crate::num::Interval;
use crate::pld::lattice::LatticeDist;
use rug::Rational;

/// The paper's bound on sup_y r_{n,σ}(y) (Fact C.1) with its parts Ω₁, Ω₂, Ω₃.
pub use crate::fourier::clt::ResidualBound;

/// The number of groups of the paper's Table 3 (the 2022-08-25 DHC levels, PEPG and TSG merged): 7.
pub fn table3_groups() -> usize {
    dhc_table3_groups(&Rational::from(1)).len()
}

/// The error terms [E⁽⁰⁾, E⁽¹⁾, E⁽²⁾, E⁽³⁾] of the paper's Fourier pipeline for the first term of (A.9)
/// ([SSW24, §A.6, App. D]) on the Table 3 groups at total ρ, threshold t_ε = (n/2)(ε/ρ − 1) > 0: L = 10³,
/// window [t_ε L, 6 t_ε L], N = 10⁷ + 1 Boole points (f64, as the paper evaluates them).
pub fn boole_error_terms(rho: &Rational, t_eps: &Rational) -> Fallible<[f64; 4]> {
    if *t_eps <= 0 {
        return fallible!(Input, "the first term needs eps > rho (t_eps > 0)");
    }
    let bp = BooleParams::default();
    let (lg, thr) = paper_lattice(&dhc_table3_groups(rho), t_eps, bp.l)?;
    let a = first_above(&thr)?;
    let cut = Rational::from(&thr * 6u32);
    let b = ceil_i64(&cut)?;
    Ok(error_terms(&lg, a, b, cut.to_f64(), &bp))
}

/// The error terms of the paper's Fourier integrals for the trade-off function of the 2022-08-25
/// allocation at total ρ ([SSW24, §A.7]): α(ζ) by the window [⌈ζL⌉, ⌈U⌉] and β(ζ) by [−⌈U⌉, ⌈ζL − nL⌉],
/// U = 1.5·10⁵, L = 10³, N = 10⁷ + 1 Boole points, evaluated as [`boole_error_terms`] evaluates §A.6's.
/// `alpha`: the largest terms over every ζ with ⌈ζL⌉ ≥ `edge`; otherwise β's over every ζ with
/// ⌈ζL − nL⌉ ≤ `edge`. Each term grows as the window widens (E⁽²⁾ with its length, E⁽³⁾ with Σ (|m| + |X|)⁶
/// over it; E⁽⁰⁾ and E⁽¹⁾ = ν(Σ > U) do not depend on it), so the largest are those of the widest window.
pub fn tradeoff_boole_error_terms(rho: &Rational, alpha: bool, edge: i64) -> Fallible<[f64; 4]> {
    if edge.abs() > U {
        return fallible!(Input, "the window edge must lie in [-{U}, {U}] (the paper's U = 1.5e5), got {edge}");
    }
    let bp = BooleParams::default();
    let (lg, _) = paper_lattice(&dhc_table3_groups(rho), &Rational::from(1), bp.l)?;
    let (a, b) = if alpha { (edge, U) } else { (-U, edge) };
    Ok(error_terms(&lg, a, b, U as f64, &bp))
}

/// The paper's bound of sup_y r_{n,σ}(y) (Fact C.1 / App. C.1, its Table 2), in MPFR at `prec`.
pub fn clt_residual_bound(n: u32, sigma2: &Rational, prec: u32) -> ResidualBound {
    crate::fourier::clt::residual_sup(n, sigma2, prec)
}

/// The exact law of S_n = X₁ + … + X_n, X_i ~ N_Z(0, σ²) i.i.d., in MPFR at `prec` bits (the window
/// truncated at 2^-(prec + guard bits) of mass, the dropped mass bounded).
pub struct NoiseSum(LatticeDist);

impl NoiseSum {
    /// P[S_n = y], certified.
    pub fn pmf(&self, y: i64) -> Interval {
        self.0.pmf(y)
    }
}

/// [`NoiseSum`] of n discrete Gaussians N_Z(0, σ²).
pub fn noise_sum(sigma2: &Rational, n: u32, prec: u32) -> Fallible<NoiseSum> {
    if *sigma2 <= 0 || n == 0 {
        return fallible!(Input, "the law of a sum of discrete Gaussians needs sigma2 > 0 and n >= 1");
    }
    Ok(NoiseSum(LatticeDist::iid_dgauss_sum(sigma2, n, prec)))
}
