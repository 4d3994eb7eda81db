//! The lattice frame of a composition of shifts: the common step of the loss slopes and each group's
//! integer weight, the offset, the window limit, the arithmetic and truncation depth a lattice engine is
//! asked for, and the choice between the residue recursion and binary powering. A leaf of `pld`: every
//! lattice engine (`compose.rs`, `fixed.rs`, `lattice.rs`) and the estimates (`estimate.rs`) read it.

use crate::error::Fallible;
use crate::fallible;
use crate::model::{Group, Noise};
use crate::noise::dgauss::GUARD_BITS;
use crate::num::Arith;
use rug::{Integer, Rational};

/// Largest lattice window (entries) a composition may allocate before it is refused.
pub const MAX_WINDOW: u64 = 40_000_000;

/// Common step h of the loss slopes and the integer weights w_i.
pub fn common_step(slopes: &[Rational]) -> (Rational, Vec<Integer>) {
    let mut g = Integer::from(0);
    let mut l = Integer::from(1);
    for s in slopes {
        g = g.gcd(s.numer());
        l = l.lcm(s.denom());
    }
    let h = Rational::from((g, l));
    let w = slopes
        .iter()
        .map(|s| {
            let q = Rational::from(s / &h);
            assert_eq!(*q.denom(), 1);
            q.numer().clone()
        })
        .collect();
    (h, w)
}

/// What a lattice engine is asked for: the arithmetic (the certified f64 or double-double convolution,
/// or MPFR at a precision) and the truncation depth: the window keeps all but about 2^-depth of the mass
/// of the loss statistic. The depth bounds what can be resolved: a tail probability below 2^-depth, or a
/// second term e^ε·P[…] with e^ε·2^-depth above δ, is only known to be at most the outside mass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatticeOpts {
    pub arith: Arith,
    pub depth: u32,
}

impl LatticeOpts {
    /// The default depth: the working precision + GUARD_BITS (MPFR, double-double), TRUNC_BITS_F64 for the
    /// f64 engine.
    pub fn new(arith: Arith) -> LatticeOpts {
        LatticeOpts { arith, depth: if arith == Arith::F64 { TRUNC_BITS_F64 } else { arith.bits() + GUARD_BITS } }
    }
}

/// Loss slope of one shift in the statistic T of `LatticeDist`: μ/σ² (discrete Gaussian), 2/b (Laplace).
pub(super) fn slope(g: &Group) -> Rational {
    match &g.noise {
        Noise::Gaussian { sigma2 } => Rational::from(g.mu) / sigma2.clone(),
        Noise::Laplace { scale } => Rational::from(2u32) / scale.clone(),
        // not a lattice law: the entry points decline it ([`check_lattice`]); a unit slope keeps the
        // estimates defined
        Noise::Law(_) => Rational::from(1),
    }
}

/// The lattice engines take discrete Gaussian and discrete Laplace noise only.
pub fn check_lattice(shifts: &[Group]) -> Fallible<()> {
    match shifts.iter().find(|g| matches!(g.noise, Noise::Law(_))) {
        Some(g) => {
            fallible!(Declined, "the lattice engines take discrete Gaussian and discrete Laplace noise only, not {}", g.noise.describe())
        }
        None => Ok(()),
    }
}

/// Offset of a group's loss under the alternative: n μ²/(2σ²) (discrete Gaussian), −n μ/b (Laplace).
fn offset(g: &Group) -> Rational {
    match &g.noise {
        Noise::Gaussian { sigma2 } => {
            let mu = Rational::from(g.mu);
            Rational::from(g.count) * Rational::from(&mu * &mu) / (Rational::from(2) * sigma2.clone())
        }
        Noise::Laplace { scale } => -(Rational::from(g.count) * Rational::from(g.mu) / scale.clone()),
        Noise::Law(_) => Rational::from(0),
    }
}

/// The loss lattice of a composition of shifts: the step h, each group's integer weight w_i (slope / h)
/// and the offset c, so that L = hV + c under the alternative with V = Σ w_i T_i (`profile.rs`).
pub fn lattice_frame(shifts: &[Group]) -> (Rational, Vec<Integer>, Rational) {
    let (h, w) = common_step(&shifts.iter().map(slope).collect::<Vec<_>>());
    let c = shifts.iter().fold(Rational::from(0), |a, g| a + offset(g));
    (h, w, c)
}

pub const POWER_FROM: u32 = 24;

/// Binary powering for a group of n queries of N_Z(0, σ²) at truncation depth `depth`: when n exceeds
/// both POWER_FROM and 2K (K the one-query half-window), where its cost ~2nK² falls below the residue
/// recursion's n²K. Below that the recursion is both cheaper and tighter (directed rounding per entry).
pub fn use_power(sigma2: &Rational, n: u32, depth: u32) -> bool {
    n > POWER_FROM && n as usize > 2 * crate::noise::gauss_terms::radius_for_bits(sigma2, depth)
}

/// Residue-construction work (n²K MPFR multiply-adds) above which the fixed-precision engines square
/// instead: their squarings run in blocked f64/double-double kernels, ~100× cheaper per operation than
/// the MPFR residue recursion (1,000 × N_Z(0, 10⁴) at 1e-10: > 60 s in MPFR residues; the cheap cases,
/// every result in results/ among them, keep the residue construction and their bits).
pub const FIXED_RESIDUE_MAX_OPS: f64 = 2e8;

/// The fixed-precision engines' choice: binary powering where [`use_power`] says so, or where the MPFR
/// residue construction would exceed [`FIXED_RESIDUE_MAX_OPS`].
pub fn fixed_use_power(sigma2: &Rational, n: u32, depth: u32) -> bool {
    let k = crate::noise::gauss_terms::radius_for_bits(sigma2, depth) as f64;
    use_power(sigma2, n, depth) || (n > POWER_FROM && (n as f64) * (n as f64) * k > FIXED_RESIDUE_MAX_OPS)
}

/// [`Arith::F64`], the double-precision engine: the same symmetric relative-error convolution as
/// [`SymDist`], in f64 (round to nearest, unit roundoff u = 2^-53, Higham's γ_K bound for sums of K
/// non-negative products), with the window truncated at 2^-TRUNC_BITS_F64 of mass regardless of the
/// arithmetic precision (so that tails of 1e-25 stay resolved). Certified like the MPFR engine, with
/// relative errors of order 1e-12 instead of 2^-prec; ~10× faster. This constant is its precision in bits,
/// which callers that pass a bare precision still use to select it ([`Arith::from_legacy_prec`]).
pub const F64_PREC: u32 = Arith::F64_BITS;
/// Truncation level (bits of mass) of the f64 engine.
pub const TRUNC_BITS_F64: u32 = 160;
