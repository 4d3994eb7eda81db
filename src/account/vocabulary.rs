//! The accountant's vocabulary: how to compute ([`Method`]), what is asked ([`Options`], the query kinds),
//! and the result of a δ query ([`DeltaResult`]).

use super::Certified;
use crate::err;
use crate::error::Fallible;
use crate::num::Arith;
use rug::Rational;

/// How to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// choose the engine (the default)
    Auto,
    /// exact lattice (by default double-double then MPFR; `Options::arith` forces one arithmetic)
    Lattice,
    /// certified smoothed Fourier inversion
    Smoothed,
    /// certified Fourier inversion of the exact lattice law (cost independent of n)
    LatticeFourier,
    /// certified grid rounding (ε only; needs `Options::grid`)
    Grid,
    /// the exact laws of the coarsest groups, each atom against the exact lattice profile of the rest
    Conditioned,
    /// Bun–Steinke zCDP conversion (the Bureau's), a certified upper bound
    ZcdpBs,
    /// Canonne–Kamath–Steinke zCDP conversion, a certified upper bound
    ZcdpCks,
    /// the paper's Boole-rule Fourier inversion of δ(ε): approximate
    Fourier,
    /// saddle-point Fourier inversion of δ(ε): approximate
    FourierFast,
}

impl Method {
    pub const ALL: [Method; 10] = [
        Method::Auto,
        Method::Lattice,
        Method::Smoothed,
        Method::LatticeFourier,
        Method::Grid,
        Method::ZcdpBs,
        Method::ZcdpCks,
        Method::Fourier,
        Method::FourierFast,
        Method::Conditioned,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Lattice => "lattice",
            Method::Smoothed => "smoothed",
            Method::LatticeFourier => "lattice-fourier",
            Method::Grid => "grid",
            Method::Conditioned => "conditioned",
            Method::ZcdpBs => "zcdp-bs",
            Method::ZcdpCks => "zcdp-cks",
            Method::Fourier => "fourier",
            Method::FourierFast => "fourier-fast",
        }
    }

    pub fn parse(s: &str) -> Fallible<Method> {
        Method::ALL.iter().copied().find(|m| m.as_str() == s.trim()).ok_or_else(|| {
            err!(Input, "unknown method '{}' (one of {})", s.trim(), Method::ALL.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "))
        })
    }

    /// True for the methods whose values are not certified.
    pub fn is_approximate(&self) -> bool {
        matches!(self, Method::Fourier | Method::FourierFast)
    }

    /// A zCDP conversion (a certified bound computed from ρ alone, not the composition's profile).
    pub fn is_conversion(&self) -> bool {
        matches!(self, Method::ZcdpBs | Method::ZcdpCks)
    }
}

/// Default accuracy request: correct significant digits.
pub const DEFAULT_DIGITS: u32 = 20;
/// Largest accuracy request.
pub const MAX_DIGITS: u32 = 1000;
/// Width of the certified smoothed ε bracket certificates ask for where the budgets share no practical
/// lattice.
pub const CERT_WIDTH: f64 = 1e-9;

/// Lattice entries above which calibration and the block-within-geolevel rows use the (faster) smoothed
/// inversion.
pub const FAST_WINDOW: u64 = 100_000;

/// Estimated seconds of a lattice build above which `Auto` prefers a faster certified engine (the default
/// of `Options::time_budget`).
pub const DEFAULT_TIME_BUDGET: f64 = 60.0;
/// Default of `Options::grid_work`: the work budget of the pld grid's refinement, in its work units
/// (each composed law's atoms, or ten per interval product of a direct convolution, and each query's
/// inversion nodes times the atoms they evaluate) summed over its steps: about 10 s of refinement for
/// DP-SGD on a 2-core machine. A count, so the answer is the same on every machine; the time per unit
/// varies with the law (Laplace's inversions cost more per unit than the subsampled Gaussian's).
pub const DEFAULT_GRID_WORK: u64 = 2_000_000_000;
/// Narrowest smoothed bracket `Auto` asks for: 20 digits of the Census ε values (below the f64 tier's
/// 1e-11 floor the smoothed engine switches to its 20-digit tier, src/fourier/smooth/precise.rs).
pub const SMOOTHED_AUTO_WIDTH: f64 = 1e-21;
/// Deepest truncation the accountant will ask of a lattice (bits of mass).
pub const MAX_DEPTH: u32 = 40_000;
/// The f64 engine stores no entry below 1e-140 (F64_FLOOR): it resolves about this many bits of mass.
pub const F64_MAX_DEPTH: u32 = 460;

/// What the accountant is asked for.
#[derive(Clone, Debug)]
pub struct Options {
    pub method: Method,
    /// target correct significant digits of every bracket
    pub digits: u32,
    /// the lattice arithmetic, forced (`None`: the accountant's choice — double-double first, then MPFR
    /// at a precision from `digits`, the f64 lattice when the exact work exceeds the time budget); a
    /// forced arithmetic is never raised and the lattice Fourier inversion is not offered instead
    pub arith: Option<Arith>,
    /// target width of a smoothed ε bracket (default: from `digits`, at least 1e-10)
    pub width: Option<f64>,
    /// grid of `Method::Grid`
    pub grid: Option<Rational>,
    /// estimated seconds above which `Auto` prefers a faster certified engine
    pub time_budget: f64,
    /// lattice size (entries) above which `Auto` tries the smoothed inversion first, falling back to the
    /// lattice if it declines (for many evaluations of large compositions: certificates, calibration)
    pub lattice_max: Option<u64>,
    /// work the pld grid (mechanisms beyond the lattice laws) may spend refining its grid, in work units
    /// summed over its steps ([`DEFAULT_GRID_WORK`]; a count, so the answer never depends on the machine)
    pub grid_work: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: Method::Auto,
            digits: DEFAULT_DIGITS,
            arith: None,
            width: None,
            grid: None,
            time_budget: DEFAULT_TIME_BUDGET,
            lattice_max: None,
            grid_work: DEFAULT_GRID_WORK,
        }
    }
}

/// δ(ε) with, for the lattice engines, its two terms P_Q[L > ε] and e^ε P_P[L > ε], each certified.
#[derive(Clone, Debug)]
pub struct DeltaResult {
    pub delta: Certified,
    pub first: Option<Certified>,
    pub second: Option<Certified>,
}

/// Which query a lattice profile is built for (it sets the truncation depth).
#[derive(Clone, Copy)]
pub(super) enum Query<'a> {
    Epsilon(&'a Rational),
    Delta(&'a Rational),
    Tradeoff(&'a Rational),
}
