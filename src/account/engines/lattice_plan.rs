//! The lattice engines' choice (`Method::Auto` on compositions of discrete Gaussian and discrete Laplace
//! noise) as one pure function, [`choose`], of what the engines offer for a query: the lattice's window
//! and its estimated seconds in each arithmetic, whether it fits in memory, whether the lattice Fourier
//! inversion takes the composition and at what price, whether the smoothed inversion's range holds it
//! ([`LatticeOffers`], cheap estimates the accountant computes, `account/choice.rs`). The accountant runs
//! what it returns and words its refusals; the table test below is the policy, checked in milliseconds.

use super::lattice::REFUSE_FACTOR;
use crate::account::vocabulary::{Query, F64_MAX_DEPTH};
use crate::num::Arith;
use crate::pld::frame::MAX_WINDOW;

/// Estimated seconds of the exact lattice above which `Auto` takes the lattice Fourier inversion.
const FOURIER_FROM_SECS: f64 = 1.0;
/// Compositions of at most this many groups take the inversion once the lattice has more than
/// `FOURIER_FEW_WINDOW` entries or an estimated `FOURIER_FEW_SECS` seconds (measured: 1,000 × N_Z(0, 1e4)
/// 1.5 s on the double-double lattice, 0.2 s by inversion; 10 × N_Z(0, 1e8) 3 s and 300 MB vs 0.2 s).
pub(in crate::account) const FOURIER_FEW_GROUPS: usize = 4;
const FOURIER_FEW_WINDOW: u64 = 100_000;
const FOURIER_FEW_SECS: f64 = 0.1;

/// The engine `auto` runs for a query on the lattice laws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::account) enum AutoEngine {
    Lattice { mpfr: bool },
    Smoothed,
    LatticeFourier,
}

/// Why no lattice engine is chosen (the accountant words it, with the engines' own reasons).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::account) enum Refusal {
    /// discrete Laplace noise beyond the f64 lattice's depth: only the MPFR lattice certifies a digit, and it
    /// would take `secs`, above `limit`
    MpfrTooSlow { depth: u32, secs: f64, limit: f64 },
    /// Gaussian noise only, the lattice out of reach and the smoothed inversion's range exceeded
    GaussOutOfRange,
    /// no practical lattice, and the smoothed inversion's range exceeded
    SmoothOutOfRange,
    /// no practical lattice, and laws the smoothed inversion does not take
    NoLattice,
}

/// The query's kind, as far as the choice depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::account) enum Kind {
    Epsilon,
    Delta,
    Tradeoff,
}

impl Kind {
    pub(in crate::account) fn of(q: Query) -> Kind {
        match q {
            Query::Epsilon(_) => Kind::Epsilon,
            Query::Delta(_) => Kind::Delta,
            Query::Tradeoff(_) => Kind::Tradeoff,
        }
    }
}

/// What the engines offer for one query (module doc). `fourier` (whether the lattice Fourier inversion takes
/// the composition: `Err(())` if it declines, else its priced seconds where its weights are wide) and
/// `smooth_ok` (whether the smoothed inversion's range holds the composition with its discrete Laplace
/// factors) are asked only where the policy needs them: the first may walk the inversion's nodes.
pub(in crate::account) struct LatticeOffers<'a> {
    pub kind: Kind,
    /// `--method lattice` forced
    pub forced_lattice: bool,
    /// the arithmetic forced (`--arith` / `--prec`)
    pub arith: Option<Arith>,
    /// the largest lattice the caller allows (`Options::lattice_max`)
    pub lattice_max: Option<u64>,
    pub time_budget: f64,
    /// only discrete Gaussian noise
    pub gauss_only: bool,
    /// continuous or subsampled laws in the composition (the law engines take those first)
    pub has_law: bool,
    /// at most [`FOURIER_FEW_GROUPS`] groups
    pub few_groups: bool,
    /// the smoothed inversion's range holds the (Gaussian-only) composition
    pub smoothed_gauss_ok: bool,
    /// the depth the query needs exceeds any lattice's (`vocabulary::MAX_DEPTH`)
    pub depth_beyond_max: bool,
    /// the planned depth (bits) and the lattice's window there, and at the f64 lattice's depth
    pub depth: u32,
    pub window: u64,
    pub window_f64: u64,
    /// the exact lattice (MPFR or double-double) fits in memory
    pub exact_fits: bool,
    /// the f64 lattice fits in memory
    pub f64_fits: bool,
    /// estimated seconds of the exact lattice (the cheaper of double-double and MPFR) and of the f64 one
    pub exact_secs: f64,
    pub f64_secs: f64,
    pub fourier: &'a dyn Fn() -> Result<Option<f64>, ()>,
    pub smooth_ok: &'a dyn Fn() -> bool,
}

/// The choice (module doc).
pub(in crate::account) fn choose(o: &LatticeOffers) -> Result<AutoEngine, Refusal> {
    let fourier_ok = || (o.fourier)().is_ok();
    let mpfr = o.arith != Some(Arith::F64);
    if o.forced_lattice {
        return Ok(AutoEngine::Lattice { mpfr });
    }
    // a depth no lattice holds (1,000 × N_Z(0, 0.01) at 1e-10: ε ≈ 5e4 needs ~72,000 bits of mass): the
    // lattice would only fail after its build, the inversion holds any depth
    if o.arith.is_none() && o.depth_beyond_max && fourier_ok() {
        return Ok(AutoEngine::LatticeFourier);
    }
    if o.gauss_only && o.smoothed_gauss_ok && o.kind == Kind::Epsilon && o.lattice_max.is_some_and(|m| o.window > m) {
        return Ok(AutoEngine::Smoothed);
    }
    // a lattice that would not fit in memory is no candidate: such a composition goes where one whose
    // window is too large goes
    if o.window <= MAX_WINDOW && (o.arith.is_some() || o.exact_fits) {
        return within_window(o, mpfr);
    }
    if o.arith.is_none() && fourier_ok() {
        return Ok(AutoEngine::LatticeFourier);
    }
    if o.gauss_only {
        return if o.smoothed_gauss_ok { Ok(AutoEngine::Smoothed) } else { Err(Refusal::GaussOutOfRange) };
    }
    if o.window_f64 <= MAX_WINDOW && o.f64_fits {
        return Ok(AutoEngine::Lattice { mpfr: false });
    }
    // discrete Gaussian and discrete Laplace noise: the smoothed inversion takes DLap factors
    // (docs/smoothed-fourier.md §8) when some Gaussian group gives the decay
    if !o.has_law {
        return if (o.smooth_ok)() { Ok(AutoEngine::Smoothed) } else { Err(Refusal::SmoothOutOfRange) };
    }
    Err(Refusal::NoLattice)
}

/// The choice where the lattice's window is practical: the exact lattice within the budget, the lattice
/// Fourier inversion where it is cheaper, the f64 lattice or the smoothed inversion beyond the budget.
fn within_window(o: &LatticeOffers, mpfr: bool) -> Result<AutoEngine, Refusal> {
    // the lattice Fourier inversion costs about the same at every n (0.05–0.3 s for a few groups, more for
    // many): preferred once the exact lattice would take longer than it
    let few = o.few_groups && (o.window > FOURIER_FEW_WINDOW || o.exact_secs > FOURIER_FEW_SECS);
    if o.arith.is_none() && (o.exact_secs > FOURIER_FROM_SECS || few) {
        // (weights too wide for the flat cost: taken where its priced cost is below the lattice's)
        if let Ok(price) = (o.fourier)() {
            if price.is_none_or(|s| s < o.exact_secs) {
                return Ok(AutoEngine::LatticeFourier);
            }
        }
    }
    if o.arith.is_some() || o.exact_secs <= o.time_budget {
        return Ok(AutoEngine::Lattice { mpfr });
    }
    // the f64 lattice keeps no mass below 2^-F64_MAX_DEPTH: a query needing more bits (100,000 x
    // N_Z(0, 37.7) at 1e-10 needs ~2,500) gets no digit from it, the smoothed inversion (cost independent
    // of n) answers
    let f64_short = o.depth > F64_MAX_DEPTH && o.kind == Kind::Epsilon;
    // with discrete Laplace noise and a depth beyond the f64 lattice's, neither inversion applying (loss
    // steps far apart: 100,000 × N_Z(0, 37.7) + 1,000 × DLap(4) has lattice weights 20 and 377), only the
    // MPFR lattice certifies a digit: run it when its estimate is within the refusal limit, refuse up front
    // otherwise (the f64 lattice ran 4–5 min for no digit, then pointed to the MPFR one)
    if !o.gauss_only && o.depth > F64_MAX_DEPTH {
        let limit = REFUSE_FACTOR * o.time_budget;
        if o.exact_secs > limit {
            return Err(Refusal::MpfrTooSlow { depth: o.depth, secs: o.exact_secs, limit });
        }
        return Ok(AutoEngine::Lattice { mpfr: true });
    }
    if (o.f64_secs <= o.time_budget && !f64_short) || !o.gauss_only || !o.smoothed_gauss_ok {
        return Ok(AutoEngine::Lattice { mpfr: false });
    }
    Ok(AutoEngine::Smoothed)
}

#[cfg(test)]
mod tests {
    //! The policy as a table: each row a situation (the offers that differ from a small, cheap
    //! composition's), the engine chosen or the refusal. No engine runs; the rows name the compositions
    //! that motivated each branch (their end-to-end choice is recorded in tests/data/engine_choice.csv).
    use super::*;

    const TAKES: fn() -> Result<Option<f64>, ()> = || Ok(None);
    const DECLINES: fn() -> Result<Option<f64>, ()> = || Err(());
    const YES: fn() -> bool = || true;
    const NO: fn() -> bool = || false;

    /// 10 × N_Z(0, 4) at δ = 1e-10: a small lattice, milliseconds.
    fn small<'a>() -> LatticeOffers<'a> {
        LatticeOffers {
            kind: Kind::Epsilon,
            forced_lattice: false,
            arith: None,
            lattice_max: None,
            time_budget: 10.0,
            gauss_only: true,
            has_law: false,
            few_groups: true,
            smoothed_gauss_ok: true,
            depth_beyond_max: false,
            depth: 200,
            window: 2_000,
            window_f64: 2_000,
            exact_fits: true,
            f64_fits: true,
            exact_secs: 0.001,
            f64_secs: 0.001,
            fourier: &TAKES,
            smooth_ok: &YES,
        }
    }

    #[test]
    fn the_policy_is_the_table() {
        use AutoEngine::*;
        let priced: &dyn Fn() -> Result<Option<f64>, ()> = &|| Ok(Some(30.0));
        let rows: Vec<Row> = vec![
            ("a small lattice: the exact lattice in MPFR", small(), Ok(Lattice { mpfr: true })),
            ("--arith f64 forced", LatticeOffers { arith: Some(Arith::F64), ..small() }, Ok(Lattice { mpfr: false })),
            (
                "--method lattice forced at any size",
                LatticeOffers { forced_lattice: true, window: u64::MAX, ..small() },
                Ok(Lattice { mpfr: true }),
            ),
            ("a depth no lattice holds: the inversion", LatticeOffers { depth_beyond_max: true, ..small() }, Ok(LatticeFourier)),
            (
                "a lattice limit below the window, epsilon, Gaussian: smoothed",
                LatticeOffers { lattice_max: Some(1_000), ..small() },
                Ok(Smoothed),
            ),
            (
                "the same limit for delta: the lattice",
                LatticeOffers { lattice_max: Some(1_000), kind: Kind::Delta, ..small() },
                Ok(Lattice { mpfr: true }),
            ),
            ("few groups, a window above 1e5: the inversion", LatticeOffers { window: 200_000, ..small() }, Ok(LatticeFourier)),
            (
                "many groups, 2 s of lattice: the inversion",
                LatticeOffers { few_groups: false, exact_secs: 2.0, ..small() },
                Ok(LatticeFourier),
            ),
            (
                "many groups, 0.5 s of lattice: the lattice",
                LatticeOffers { few_groups: false, exact_secs: 0.5, ..small() },
                Ok(Lattice { mpfr: true }),
            ),
            (
                "wide weights priced above the lattice: the lattice",
                LatticeOffers { few_groups: false, exact_secs: 2.0, fourier: priced, ..small() },
                Ok(Lattice { mpfr: true }),
            ),
        ];
        check(&rows);
    }

    type Row<'a> = (&'static str, LatticeOffers<'a>, Result<AutoEngine, Refusal>);

    fn check(rows: &[Row]) {
        for (what, offers, want) in rows {
            assert_eq!(&choose(offers), want, "{what}");
        }
    }

    /// The table's second half: where the inversion declines or the lattice is out of reach, the fallbacks
    /// and the refusals.
    #[test]
    fn the_fallbacks_and_refusals_are_the_table() {
        use AutoEngine::*;
        let rows: Vec<Row> = vec![
            (
                "the inversion declines, the exact lattice beyond the budget, f64 within it",
                LatticeOffers { exact_secs: 20.0, f64_secs: 1.0, fourier: &DECLINES, ..small() },
                Ok(Lattice { mpfr: false }),
            ),
            (
                "the same, epsilon needing more bits than f64 holds: smoothed",
                LatticeOffers { exact_secs: 20.0, f64_secs: 1.0, depth: F64_MAX_DEPTH + 1, fourier: &DECLINES, ..small() },
                Ok(Smoothed),
            ),
            (
                "discrete Laplace beyond f64's depth, MPFR within 4x the budget: MPFR",
                LatticeOffers { gauss_only: false, exact_secs: 30.0, depth: F64_MAX_DEPTH + 1, fourier: &DECLINES, ..small() },
                Ok(Lattice { mpfr: true }),
            ),
            (
                "the same, MPFR above 4x the budget: refused",
                LatticeOffers { gauss_only: false, exact_secs: 50.0, depth: F64_MAX_DEPTH + 1, fourier: &DECLINES, ..small() },
                Err(Refusal::MpfrTooSlow { depth: F64_MAX_DEPTH + 1, secs: 50.0, limit: 40.0 }),
            ),
            ("a window beyond every lattice: the inversion", LatticeOffers { window: MAX_WINDOW + 1, ..small() }, Ok(LatticeFourier)),
            (
                "a lattice that does not fit in memory: as a window too large",
                LatticeOffers { exact_fits: false, fourier: &DECLINES, ..small() },
                Ok(Smoothed),
            ),
            (
                "no lattice, no inversion, Gaussian out of the smoothed range: refused",
                LatticeOffers { window: MAX_WINDOW + 1, fourier: &DECLINES, smoothed_gauss_ok: false, ..small() },
                Err(Refusal::GaussOutOfRange),
            ),
            (
                "no exact lattice, discrete Laplace, the f64 lattice fits: f64",
                LatticeOffers { window: MAX_WINDOW + 1, gauss_only: false, fourier: &DECLINES, ..small() },
                Ok(Lattice { mpfr: false }),
            ),
            (
                "no lattice at all, discrete Laplace in the smoothed range: smoothed",
                LatticeOffers { window: MAX_WINDOW + 1, window_f64: MAX_WINDOW + 1, gauss_only: false, fourier: &DECLINES, ..small() },
                Ok(Smoothed),
            ),
            (
                "the same out of the smoothed range: refused",
                LatticeOffers {
                    window: MAX_WINDOW + 1,
                    window_f64: MAX_WINDOW + 1,
                    gauss_only: false,
                    fourier: &DECLINES,
                    smooth_ok: &NO,
                    ..small()
                },
                Err(Refusal::SmoothOutOfRange),
            ),
            (
                "the same with continuous laws beside: refused",
                LatticeOffers {
                    window: MAX_WINDOW + 1,
                    window_f64: MAX_WINDOW + 1,
                    gauss_only: false,
                    has_law: true,
                    fourier: &DECLINES,
                    ..small()
                },
                Err(Refusal::NoLattice),
            ),
        ];
        check(&rows);
    }

    /// The inversion's price is asked only where the policy needs it (it may walk the inversion's nodes): not
    /// for a small lattice of many groups, nor where the lattice is forced.
    #[test]
    fn the_inversion_is_priced_only_where_it_matters() {
        let asked = std::cell::Cell::new(0);
        let counting = || {
            asked.set(asked.get() + 1);
            Ok(None)
        };
        assert_eq!(choose(&LatticeOffers { few_groups: false, fourier: &counting, ..small() }), Ok(AutoEngine::Lattice { mpfr: true }));
        assert_eq!(choose(&LatticeOffers { forced_lattice: true, fourier: &counting, ..small() }), Ok(AutoEngine::Lattice { mpfr: true }));
        assert_eq!(asked.get(), 0);
    }
}
