//! The lattice engines' ladder. `lattice_plan::choose` picks the engine `auto` starts from for a query on
//! the lattice laws; what follows it (the narrowings and fallbacks once written out three times, once per
//! query, and glued by hand) is one pure function of that choice and the query's kind, [`ladder`], checked
//! as a table below in milliseconds. Each rung names the engine it runs ([`Run`]), when it runs ([`Cond`]:
//! read from the accountant's cached estimates as the climb reaches the rung, since the inversion's price
//! may walk its nodes) and what its answer does ([`Then`]); when every rung declines, [`Refuse`] says how the
//! refusal is worded. The accountant climbs it (`Accountant::climb`, account/choice.rs).
//!
//! The rules a climb follows: a rung whose conditions do not hold is passed; an error other than a refusal
//! surfaces (except at an [`Then::IfMeets`] rung, which only ever contributes an answer that meets the
//! digits asked); of the answers met, the narrower is kept (an earlier one on a tie); a refusal hands on to
//! the next rung, and the first refusal is the climb's when nothing answers.

use super::lattice::Tiers;
use super::lattice_plan::{AutoEngine, Kind};

/// The engine a rung runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::account) enum Run {
    /// the exact lattice, in these arithmetic tiers
    Lattice(Tiers),
    /// the lattice Fourier inversion
    Fourier,
    /// the conditioned engine, where a split exists (`Accountant::try_conditioned`; no split, or its
    /// refusal, passes the rung silently)
    Conditioned,
    /// the smoothed inversion (ε and δ), at the accountant's width (`None`) or at this one; `input_declines`:
    /// its `Input` refusals (a composition outside its range) are refusals, not errors of the request
    Smoothed { width: Option<f64>, input_declines: bool },
}

/// A condition under which a rung runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::account) enum Cond {
    /// no arithmetic forced and the inversion takes the composition within the time budget
    FourierApplies,
    /// no arithmetic forced, the inversion declined on its price alone, and that price within the refusal
    /// factor of the budget (an inversion escalated to where a cheaper answer falls short)
    FourierDear,
    /// the inversion's weights are wide enough to be priced
    FourierWide,
    /// the inversion is priced dear and the conditioned engine's estimate is lower
    ConditionedCheaper,
    /// the smoothed inversion's range holds the composition
    SmoothRangeOk,
    /// an answer is kept
    Answered,
    /// no answer is kept
    NothingYet,
    /// no smoothed width was asked for
    NoWidth,
    /// the exact lattice fits and is estimated within the refusal factor of the budget
    LatticeNear,
    /// no arithmetic forced, and the f64 lattice fits and is estimated within the budget
    F64Near,
    /// the trade-off's tiers apart: double-double serves, no arithmetic forced, the inversion applies
    Tiered,
    /// not [`Cond::Tiered`]
    NotTiered,
}

/// What a rung's answer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::account) enum Then {
    /// kept if narrower; the climb ends once the kept answer meets the digits asked
    Narrow,
    /// kept if narrower; the climb goes on even where it meets them (the rungs after it may be narrower)
    NarrowOn,
    /// the climb's answer if it meets the digits asked; anything else it gives is dropped
    IfMeets,
    /// the climb's result, whatever it is (an answer, a refusal or an error)
    Final,
}

/// How the refusal is worded when every rung declined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::account) enum Refuse {
    /// the first refusal, as it is
    AsFirst,
    /// δ with the lattice out of reach: the smoothed inversion's refusal, as the accountant's
    SmoothedDelta,
    /// ε with the lattice out of reach: the smoothed inversion's refusal, or the lattice's cost where it fits
    SmoothedEpsilon,
    /// the trade-off function with no practical common lattice
    Tradeoff,
}

/// One rung of the ladder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::account) struct Rung {
    pub run: Run,
    pub when: &'static [Cond],
    pub then: Then,
}

const fn rung(run: Run, when: &'static [Cond], then: Then) -> Rung {
    Rung { run, when, then }
}

const SMOOTHED: Run = Run::Smoothed { width: None, input_declines: false };

/// The ladder `auto` climbs for a query of `kind` from the engine `choose` picked (`forced`: `--method
/// lattice` on the trade-off function, which runs the lattice alone; `f64_forced`: `--arith f64`, the
/// lattice a fallback of the smoothed inversion runs then).
pub(in crate::account) fn ladder(first: AutoEngine, kind: Kind, forced: bool, f64_forced: bool) -> (Vec<Rung>, Refuse) {
    use Cond::*;
    use Then::*;
    let rungs = match (first, kind) {
        (AutoEngine::Lattice { .. }, Kind::Tradeoff) if forced => vec![rung(Run::Lattice(Tiers::DdThenMpfr), &[], Narrow)],
        // double-double, then the inversion, then MPFR: where the double-double lattice misses the digits
        // (β far below 1: 3,000 × N_Z(0, 37.7) at α = 1 − 1e-6 has β ≈ 7e-43, 16 digits) the inversion gives
        // 28 in 0.3 s where the MPFR lattice took 5 s (24 s at 10,000 queries)
        (AutoEngine::Lattice { mpfr: true }, Kind::Tradeoff) => vec![
            rung(Run::Lattice(Tiers::DdThenMpfr), &[NotTiered], Narrow),
            rung(Run::Lattice(Tiers::DdOnly), &[Tiered], Narrow),
            rung(Run::Fourier, &[FourierApplies], Narrow),
            rung(Run::Lattice(Tiers::MpfrOnly), &[Tiered], Narrow),
        ],
        // a lattice answer short of the digits (its truncation depth limits it in the far tails: 1,000 ×
        // N_Z(0, 0.01) at δ = 1e-10), or its refusal, against the inversion's
        (AutoEngine::Lattice { mpfr }, _) => {
            vec![rung(Run::Lattice(Tiers::exact(mpfr)), &[], Narrow), rung(Run::Fourier, &[FourierApplies], Narrow)]
        }
        // where the inversion is priced dear, the conditioned engine first if cheaper and it meets the digits;
        // an inversion short of them (its price missed the tails this query needed) against the conditioned
        // engine's and, for ε, the smoothed inversion's answers
        (AutoEngine::LatticeFourier, kind) => {
            let mut r = vec![rung(Run::Conditioned, &[ConditionedCheaper], IfMeets), rung(Run::Fourier, &[], Narrow)];
            if kind != Kind::Delta {
                r.push(rung(Run::Conditioned, &[FourierWide], NarrowOn));
            }
            if kind == Kind::Epsilon {
                r.push(rung(Run::Smoothed { width: None, input_declines: true }, &[FourierWide, SmoothRangeOk], NarrowOn));
            }
            r
        }
        // a few coarse groups and a fine rest on a practical lattice: conditioning on the coarse ones gives
        // the digits the smoothed inversion cannot (conditioned.rs); short of them, it escalates to an
        // inversion priced above the budget (f(10⁻³) of 10 × N_Z(0, 10⁴) + 1,000 × DLap(1): β ≈ 5.2·10⁻¹⁶⁷)
        (AutoEngine::Smoothed, Kind::Tradeoff) => vec![rung(Run::Conditioned, &[], Narrow), rung(Run::Fourier, &[FourierDear], Narrow)],
        (AutoEngine::Smoothed, Kind::Delta) => vec![
            rung(Run::Conditioned, &[], Narrow),
            rung(Run::Fourier, &[Answered, FourierDear], Narrow),
            rung(SMOOTHED, &[NothingYet], Narrow),
        ],
        // the smoothed inversion declines on coarse lattices (few queries, large δ): the lattice is exact there,
        // used where it fits; beyond it, a wider smoothed bracket (its digits stated by its note); last, an
        // f64 lattice short of bits (chosen over it by `choose`), whose partial bracket is better than none
        (AutoEngine::Smoothed, Kind::Epsilon) => {
            let mut r = vec![
                rung(Run::Conditioned, &[], Narrow),
                rung(Run::Fourier, &[Answered, FourierDear], Narrow),
                rung(SMOOTHED, &[NothingYet], Narrow),
                rung(Run::Lattice(Tiers::exact(!f64_forced)), &[NothingYet, LatticeNear], Final),
            ];
            for w in [1e-12, 1e-9, 1e-6, 1e-3] {
                r.push(rung(Run::Smoothed { width: Some(w), input_declines: false }, &[NothingYet, NoWidth], Narrow));
            }
            r.push(rung(Run::Lattice(Tiers::Fixed), &[NothingYet, F64Near], Narrow));
            r
        }
    };
    let refuse = match (first, kind) {
        (AutoEngine::Smoothed, Kind::Epsilon) => Refuse::SmoothedEpsilon,
        (AutoEngine::Smoothed, Kind::Delta) => Refuse::SmoothedDelta,
        (AutoEngine::Smoothed, Kind::Tradeoff) => Refuse::Tradeoff,
        _ => Refuse::AsFirst,
    };
    (rungs, refuse)
}

#[cfg(test)]
mod tests {
    //! The ladders as a table: every engine `choose` may pick, for every query kind (the engines' own
    //! tests check their answers; tests/suite/engine_choice.rs records which engine answers each cell end
    //! to end).
    use super::*;

    /// A ladder in words: "engine [conditions] then", one rung each.
    fn words(first: AutoEngine, kind: Kind, forced: bool) -> (Vec<String>, Refuse) {
        let (rungs, refuse) = ladder(first, kind, forced, false);
        let w = rungs.iter().map(|r| format!("{:?} {:?} {:?}", r.run, r.when, r.then)).collect();
        (w, refuse)
    }

    #[test]
    fn every_first_engine_and_query_has_its_ladder() {
        use AutoEngine::*;
        use Kind::*;
        let lat = |t: &str| format!("Lattice({t})");
        let rows: Vec<(AutoEngine, Kind, bool, Vec<String>, Refuse)> = vec![
            (
                Lattice { mpfr: true },
                Epsilon,
                false,
                vec![format!("{} [] Narrow", lat("DdThenMpfr")), "Fourier [FourierApplies] Narrow".into()],
                Refuse::AsFirst,
            ),
            (
                Lattice { mpfr: false },
                Delta,
                false,
                vec![format!("{} [] Narrow", lat("Fixed")), "Fourier [FourierApplies] Narrow".into()],
                Refuse::AsFirst,
            ),
            (
                Lattice { mpfr: true },
                Tradeoff,
                false,
                vec![
                    format!("{} [NotTiered] Narrow", lat("DdThenMpfr")),
                    format!("{} [Tiered] Narrow", lat("DdOnly")),
                    "Fourier [FourierApplies] Narrow".into(),
                    format!("{} [Tiered] Narrow", lat("MpfrOnly")),
                ],
                Refuse::AsFirst,
            ),
            (
                Lattice { mpfr: false },
                Tradeoff,
                false,
                vec![format!("{} [] Narrow", lat("Fixed")), "Fourier [FourierApplies] Narrow".into()],
                Refuse::AsFirst,
            ),
            (Lattice { mpfr: false }, Tradeoff, true, vec![format!("{} [] Narrow", lat("DdThenMpfr"))], Refuse::AsFirst),
            (
                LatticeFourier,
                Epsilon,
                false,
                vec![
                    "Conditioned [ConditionedCheaper] IfMeets".into(),
                    "Fourier [] Narrow".into(),
                    "Conditioned [FourierWide] NarrowOn".into(),
                    "Smoothed { width: None, input_declines: true } [FourierWide, SmoothRangeOk] NarrowOn".into(),
                ],
                Refuse::AsFirst,
            ),
            (
                LatticeFourier,
                Delta,
                false,
                vec!["Conditioned [ConditionedCheaper] IfMeets".into(), "Fourier [] Narrow".into()],
                Refuse::AsFirst,
            ),
            (
                LatticeFourier,
                Tradeoff,
                false,
                vec![
                    "Conditioned [ConditionedCheaper] IfMeets".into(),
                    "Fourier [] Narrow".into(),
                    "Conditioned [FourierWide] NarrowOn".into(),
                ],
                Refuse::AsFirst,
            ),
            (
                Smoothed,
                Delta,
                false,
                vec![
                    "Conditioned [] Narrow".into(),
                    "Fourier [Answered, FourierDear] Narrow".into(),
                    "Smoothed { width: None, input_declines: false } [NothingYet] Narrow".into(),
                ],
                Refuse::SmoothedDelta,
            ),
            (Smoothed, Tradeoff, false, vec!["Conditioned [] Narrow".into(), "Fourier [FourierDear] Narrow".into()], Refuse::Tradeoff),
        ];
        for (first, kind, forced, want, refuse) in rows {
            assert_eq!(words(first, kind, forced), (want, refuse), "{first:?} {kind:?} forced {forced}");
        }
    }

    /// ε where `choose` picked the smoothed inversion: conditioning (escalated to a dear inversion), then the
    /// smoothed inversion, the exact lattice where near, wider smoothed brackets, the f64 lattice.
    #[test]
    fn the_smoothed_epsilon_ladder_falls_back_in_order() {
        let (w, refuse) = words(AutoEngine::Smoothed, Kind::Epsilon, false);
        let widths = ["1e-12", "1e-9", "1e-6", "0.001"]
            .map(|w| format!("Smoothed {{ width: Some({w}), input_declines: false }} [NothingYet, NoWidth] Narrow"));
        let mut want: Vec<String> = vec![
            "Conditioned [] Narrow".into(),
            "Fourier [Answered, FourierDear] Narrow".into(),
            "Smoothed { width: None, input_declines: false } [NothingYet] Narrow".into(),
            "Lattice(DdThenMpfr) [NothingYet, LatticeNear] Final".into(),
        ];
        want.extend(widths);
        want.push("Lattice(Fixed) [NothingYet, F64Near] Narrow".into());
        assert_eq!((w, refuse), (want, Refuse::SmoothedEpsilon));
        // with --arith f64, the lattice the smoothed inversion falls back to is the f64 one
        let (rungs, _) = ladder(AutoEngine::Smoothed, Kind::Epsilon, false, true);
        assert_eq!(rungs[3].run, Run::Lattice(Tiers::Fixed));
    }
}
