//! The accountant's tests: engine choice, fallbacks, the honesty gate, default digits.

use super::*;
use crate::model::Neighbors;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// ε(1e-10) and δ(1) of `comp` (default: 10 × N_Z(0, 5)) with errors of the given kinds injected into
/// engines.
fn with_injected(inject: &[(Engine, ErrorKind)], opts: Options) -> (Fallible<Certified>, Fallible<Certified>) {
    with_injected_in(Composition::gaussian(q("5"), 10, 1).unwrap(), inject, opts)
}

fn with_injected_in(comp: Composition, inject: &[(Engine, ErrorKind)], opts: Options) -> (Fallible<Certified>, Fallible<Certified>) {
    let a = Accountant::new(comp, opts).unwrap();
    INJECT.with(|i| *i.borrow_mut() = inject.to_vec());
    let r = (a.epsilon(&q("1e-10")), a.delta(&q("1")).map(|d| d.delta));
    INJECT.with(|i| i.borrow_mut().clear());
    r
}

/// An internal error (or a cancellation) in one engine is reported, not replaced by another engine's
/// answer; only a refusal (`Declined`) is (issue 34). Here `auto` picks the lattice (and rescues a
/// lattice refusal with the lattice Fourier inversion); with a lattice limit of 10 entries it picks the
/// smoothed inversion for ε (and rescues a refusal with the lattice). Without injection all answer.
#[test]
fn an_internal_error_surfaces_instead_of_falling_back() {
    use ErrorKind::{Declined, Internal, Interrupted};
    let smoothed_first = Options { lattice_max: Some(10), ..Options::default() };
    let (e, d) = with_injected(&[], Options::default());
    assert_eq!((e.unwrap().engine(), d.unwrap().engine()), (Engine::LatticeDD, Engine::LatticeDD));
    // three incommensurate variances: the smoothed inversion answers (on one group it declines, the lattice
    // answers instead: below)
    let three = || {
        let g = |s: &str| Group::gaussian(q(s), 100, 1);
        Composition::new(vec![g("5"), g("7.31"), g("11.77")], Neighbors::AddRemove).unwrap()
    };
    assert_eq!(with_injected_in(three(), &[], smoothed_first.clone()).0.unwrap().engine(), Engine::Smoothed);
    // (injected, options) → the error reported, from which engine
    let surfaces = [
        (vec![(Engine::Lattice, Internal)], Options::default(), Internal, "lattice"),
        (vec![(Engine::Lattice, Interrupted)], Options::default(), Interrupted, "lattice"),
        // the lattice declines, and the inversion asked instead has a bug: the bug, not the refusal
        (vec![(Engine::Lattice, Declined), (Engine::LatticeFourier, Internal)], Options::default(), Internal, "lattice-fourier"),
        // both decline: the lattice's refusal, settled (a refusal by range is bad input when final)
        (vec![(Engine::Lattice, Declined), (Engine::LatticeFourier, Declined)], Options::default(), ErrorKind::Input, "lattice"),
    ];
    for (inject, opts, kind, from) in surfaces {
        let (e, d) = with_injected(&inject, opts);
        for r in [e, d] {
            let err = r.expect_err("the injected error was swallowed");
            assert_eq!((err.kind(), err.message()), (kind, format!("injected into {from}").as_str()), "{inject:?}");
        }
    }
    let e = with_injected_in(three(), &[(Engine::Smoothed, Internal)], smoothed_first.clone()).0.unwrap_err();
    assert_eq!((e.kind(), e.to_string().as_str()), (Internal, "internal error, please report it: injected into smoothed"));
    // a refusal is replaced: the lattice's by the inversion's answer, the smoothed inversion's by the lattice's
    let (e, d) = with_injected(&[(Engine::Lattice, Declined)], Options::default());
    assert_eq!((e.unwrap().engine(), d.unwrap().engine()), (Engine::LatticeFourier, Engine::LatticeFourier));
    for inject in [vec![], vec![(Engine::Smoothed, Declined)]] {
        let e = with_injected(&inject, smoothed_first.clone()).0.unwrap();
        assert_eq!(e.engine(), Engine::LatticeDD, "{inject:?}");
        assert!(e.meets(20), "{e}");
    }
}

/// Bad input is `Input`; a size refusal of the one engine asked for, and a bracket without a digit within
/// the engines' limits, are `Resource`.
#[test]
fn errors_have_the_kind_a_caller_acts_on() {
    let comp = || Composition::gaussian(q("5"), 10, 1).unwrap();
    assert_eq!(Accountant::new(comp(), Options { digits: 0, ..Options::default() }).err().map(|e| e.kind()), Some(ErrorKind::Input));
    let a = Accountant::new(comp(), Options::default()).unwrap();
    for e in [a.epsilon(&q("0")).unwrap_err(), a.delta(&q("-1")).unwrap_err(), a.tradeoff(&q("2")).unwrap_err()] {
        assert_eq!(e.kind(), ErrorKind::Input, "{e}");
    }
    // the lattice alone (--method lattice), far too large: refused up front, a resource limit
    let o = Options { method: Method::Lattice, ..Options::default() };
    let e = Accountant::new(Composition::gaussian(q("1e12"), 1000, 1).unwrap(), o).unwrap().epsilon(&q("1e-10")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resource, "{e}");
    assert!(e.message().contains("(limit "), "{e}");
}

fn acc(groups: Vec<Group>) -> Accountant {
    Accountant::new(Composition::new(groups, Neighbors::AddRemove).unwrap(), Options::default()).unwrap()
}

/// The default request gives ≥ 20 digits on cases that needed a raised --prec before; values from
/// scripts/reference/profile_reference_values.csv (independent: python-flint).
#[test]
fn twenty_digits_by_default() {
    let cases: [(Group, &str, &str, &str); 4] = [
        (Group::gaussian(q("5"), 1600, 1), "eps", "1e-5", "235.39311774503224530392395"),
        (Group::gaussian(q("0.3"), 50, 3), "eps", "1e-30", "1189.9453219502407526495621"),
        (Group::gaussian(q("5"), 10, 1), "eps", "1e-300", "53.199738309746074816892191"),
        (Group::gaussian(q("1000"), 1, 1), "delta", "1.4", "3.4063222140747892451465856e-431"),
    ];
    for (g, kind, arg, want) in cases {
        let a = acc(vec![g]);
        let c = if kind == "eps" { a.epsilon(&q(arg)).unwrap() } else { a.delta(&q(arg)).unwrap().delta };
        let w = Float::with_val(200, Float::parse(want).unwrap());
        let slack = Float::with_val(200, &w * 1e-25f64).abs();
        assert!(Float::with_val(200, c.lo() - &slack) <= w && w <= Float::with_val(200, c.hi() + &slack), "{kind}({arg}): {c} vs {want}");
        assert!(c.meets(20), "{kind}({arg}): only {} digits ({c})", c.digits());
        assert!(c.note().is_none());
    }
}

/// Depths just past the double-double floor (a-priori depth 489 and 475 bits > F64_MAX_DEPTH): the
/// default serves them in double-double with ≥ 20 digits (10,000 queries: 0.3 s instead of MPFR's 60 s);
/// values from scripts/reference/profile_reference_values.csv case 8 (independent: python-flint).
#[test]
fn double_double_just_past_its_floor() {
    for (n, s2, want) in
        [(280, "1", "245.650410894504735528336831201290034319080067"), (10_000, "37.7", "235.386634642608022466150397929623613944808092")]
    {
        let c = acc(vec![Group::gaussian(q(s2), n, 1)]).epsilon(&q("1e-10")).unwrap();
        let w = Float::with_val(200, Float::parse(want).unwrap());
        assert!(*c.lo() <= w && w <= *c.hi(), "{n} x N_Z(0, {s2}): {c} vs {want}");
        assert!(c.meets(20), "{n}: only {} digits ({c})", c.digits());
        assert_eq!(c.engine(), Engine::LatticeDD, "{n}");
    }
}

/// The honesty rule: every Ok bracket either meets the digits asked or its note states the digits it
/// certified; a bracket without one digit is an error (100,000 × N_Z(0, 37.7) at δ = 1e-10 gave
/// [308.1, 1653.9] with a note claiming ~12 digits).
#[test]
fn no_bracket_claims_digits_it_lacks() {
    let comp = || Composition::gaussian(q("5"), 10, 1).unwrap();
    let cases = [
        Options { arith: Some(Arith::F64), method: Method::Lattice, ..Options::default() },
        Options { method: Method::Grid, grid: Some(q("1/1000")), ..Options::default() },
        Options { method: Method::Smoothed, width: Some(1e-3), ..Options::default() },
        Options { digits: 30, ..Options::default() },
        Options::default(),
    ];
    for o in cases {
        let a = Accountant::new(comp(), o.clone()).unwrap();
        let c = a.epsilon(&q("1e-10")).unwrap();
        let d = c.digits();
        assert!(d >= 1, "{o:?}: {c}");
        if !c.meets(o.digits) {
            let n = c.note().unwrap_or_else(|| panic!("{o:?}: {c} short of {} digits without a note", o.digits));
            assert!(n.contains(&format!(": {d} digit")), "{o:?}: {n}");
        }
    }
    // the f64 lattice (2^-460 floor) has no digit of it: its enclosure with 0 digits and a note saying
    // so and what to try (one rule for every query, #57)
    let o = Options { arith: Some(Arith::F64), method: Method::Lattice, ..Options::default() };
    let c = Accountant::new(Composition::gaussian(q("37.7"), 100_000, 1).unwrap(), o).unwrap().epsilon(&q("1e-10")).unwrap();
    let n = c.note().unwrap_or_default();
    assert!(c.digits() == 0 && n.starts_with("0 digits certified") && n.contains("try"), "{c}: {n}");
    // the default picks the lattice Fourier inversion there: 20 digits, inside the smoothed inversion's
    // 10-digit bracket (an independent engine)
    let c = acc(vec![Group::gaussian(q("37.7"), 100_000, 1)]).epsilon(&q("1e-10")).unwrap();
    assert_eq!(c.engine(), Engine::LatticeFourier);
    assert!(c.meets(20) && c.note().is_none(), "{c}");
    let o = Options { method: Method::Smoothed, width: Some(1e-6), ..Options::default() };
    let s = Accountant::new(Composition::gaussian(q("37.7"), 100_000, 1).unwrap(), o).unwrap().epsilon(&q("1e-10")).unwrap();
    assert!(s.digits() >= 8 && s.lo() <= c.lo() && c.hi() <= s.hi(), "smoothed {s} vs lattice-fourier {c}");
}

#[test]
fn zero_epsilon_for_negligible_noise_and_bounds_for_conversions() {
    let a = acc(vec![Group::gaussian(q("1e30"), 1, 1)]);
    let e = a.epsilon(&q("1e-10")).unwrap();
    assert_eq!(e.engine(), Engine::Closed);
    assert!(*e.hi() == 0);
    let o = Options { method: Method::ZcdpCks, ..Options::default() };
    let a = Accountant::new(Composition::gaussian(q("5e9"), 1, 1).unwrap(), o).unwrap();
    assert!(*a.epsilon(&q("1e-5")).unwrap().lo() >= 0);
}

#[test]
fn approximate_methods_refuse_when_their_bound_swallows_the_value() {
    let o = Options { method: Method::Fourier, ..Options::default() };
    let a = Accountant::new(Composition::gaussian(q("37.7"), 17, 1).unwrap(), o).unwrap();
    let r = a.delta_estimate(&q("2"), &|_, _| {});
    assert!(r.is_err(), "{r:?}");
}

/// A group in the fixed engines' residue regime (24 < n ≤ 2K and n²K ≤ 2e8: 300 × N_Z(0, 300) and
/// 300 × N_Z(0, 1000)) is built in MPFR, ~100× dearer per operation than the blocked kernels; `auto`
/// priced it at the kernels' rate and ran the double-double lattice for up to 3 s (500 × N_Z(0, 1000))
/// where the lattice Fourier inversion takes 0.1 s. It now takes the inversion, and the two engines'
/// 20-digit brackets overlap (the lattice's by `--arith dd`).
#[test]
fn residue_built_groups_are_priced_at_the_mpfr_rate() {
    for s2 in ["300", "1000"] {
        let comp = Composition::gaussian(q(s2), 300, 1).unwrap();
        let a = Accountant::new(comp.clone(), Options::default()).unwrap();
        assert!(matches!(a.auto_engine(Query::Epsilon(&q("1e-10"))), Ok(AutoEngine::LatticeFourier)), "σ² {s2}");
        let e = a.epsilon(&q("1e-10")).unwrap();
        assert_eq!(e.engine(), Engine::LatticeFourier, "σ² {s2}");
        let dd = Accountant::new(comp, Options { arith: Some(crate::num::Arith::DoubleDouble), ..Options::default() }).unwrap();
        let l = dd.epsilon(&q("1e-10")).unwrap();
        assert_eq!(l.engine(), Engine::LatticeDD, "σ² {s2}");
        assert!(e.digits() >= 20 && l.digits() >= 20, "σ² {s2}: {e:?} {l:?}");
        assert!(e.lo() <= l.hi() && l.lo() <= e.hi(), "σ² {s2}: {e:?} vs {l:?}");
    }
}

/// The rows of a reference file `sigma2,n,x,value` (header skipped): the accountant of n × N_Z(0, σ²)
/// (sensitivity 1, default options), the query's argument x, the reference value, and the line itself.
fn gaussian_reference_rows(refs: &str) -> Vec<(Accountant, &str, &str, &str)> {
    refs.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let comp = Composition::gaussian(q(f[0]), f[1].parse().unwrap(), 1).unwrap();
            (Accountant::new(comp, Options::default()).unwrap(), f[2], f[3], line)
        })
        .collect()
}

/// The bracket holds the reference value, to its 30 digits (a relative slack of 1e-28).
fn assert_holds_reference(c: &Certified, want: &str, line: &str) {
    let want = rug::Float::with_val(128, rug::Float::parse(want).unwrap());
    let slack = rug::Float::with_val(128, &want * 1e-28);
    assert!(*c.lo() <= rug::Float::with_val(128, &want + &slack) && *c.hi() >= rug::Float::with_val(128, &want - &slack), "{line}: {c:?}");
}

/// δ(ε) far below f64's range: the depth plan took the zCDP bound on δ through f64, clamped at 1e-300, and
/// planned ~1,000 bits where 10 × N_Z(0, 1e5) at ε = 1 (δ ≈ 2.2e-2178) needs ~7,300; `auto` then ran the
/// MPFR lattice for 1.6 s, got no digit, and fell back to the inversion. The plan now reads the bound's
/// MPFR exponent and `auto` takes the inversion first. References: scripts/reference/deep_delta.txt
/// (mpmath sums by Poisson summation of the θ-function, 30 digits).
#[test]
fn deep_deltas_are_planned_from_the_bound_exponent() {
    let rows = gaussian_reference_rows(include_str!("../../scripts/reference/deep_delta.txt"));
    for (a, x, want, line) in &rows {
        let eps = q(x);
        assert!(matches!(a.auto_engine(Query::Delta(&eps)), Ok(AutoEngine::LatticeFourier)), "{line}");
        let d = a.delta(&eps).unwrap().delta;
        assert_eq!(d.engine(), Engine::LatticeFourier, "{line}");
        assert!(d.digits() >= 20, "{line}: {d:?}");
        assert_holds_reference(&d, want, line);
    }
    assert_eq!(rows.len(), 4);
}

/// f(α) far below 1: the trade-off line was computed as 1 − δ(t) − e^t α, whose absolute error 2^-p left no
/// digit of 10,000 × N_Z(0, 37.7) at α = 1e-3 (f ≈ 4.6e-40) in double-double, and `auto` went on to the
/// MPFR lattice (55 s); 30,000 queries gave [0, 1.9e-37]. The line is now also P[V ≤ k] − e^t (α − B_k)
/// (no cancellation), and the depth plan reads f's magnitude from the Gaussian trade-off. At α = 1 − 1e-6
/// (β ≈ 7e-43 at 3,000 queries) the double-double lattice gives 16 digits and `auto` went on to the MPFR
/// lattice (5 s; 24 s at 10,000 queries); it now tries the lattice Fourier inversion first (0.5 s, 28
/// digits). At α = ½ the knot lies at the centre of V, where each of the inversion's probes is dearest: the
/// search now gallops from the inversion's f64 guess (100,000 × N_Z(0, 1): 6.2 s → 0.5 s). References:
/// scripts/reference/tradeoff_tiny.txt (mpmath Neyman–Pearson sums, 30 digits).
#[test]
fn tiny_tradeoff_values_keep_their_digits() {
    let rows = gaussian_reference_rows(include_str!("../../scripts/reference/tradeoff_tiny.txt"));
    for (a, alpha, want, line) in &rows {
        let c = a.tradeoff(&q(alpha)).unwrap();
        assert!(c.digits() >= 20, "{line}: {c:?}");
        if *alpha == "0.999999" || *alpha == "0.5" {
            assert_eq!(c.engine(), Engine::LatticeFourier, "{line}");
        }
        assert_holds_reference(&c, want, line);
    }
    assert_eq!(rows.len(), 7);
}

/// The rung of a dear inversion (`lattice_ladder::Cond::FourierDear`) climbed from a short answer in hand.
fn escalate(a: &Accountant, q: Query, short: Fallible<Certified>) -> Certified {
    use super::engines::lattice_ladder::{Cond, Refuse, Run, Rung, Then};
    let rung = Rung { run: Run::Fourier, when: &[Cond::FourierDear], then: Then::Narrow };
    let seed = DeltaResult { delta: short.unwrap(), first: None, second: None };
    a.climb(q, &[rung], Refuse::AsFirst, Some(seed)).unwrap().delta
}

/// The small twin of the heavy `a_dear_inversion_is_escalated_to_when_conditioning_falls_short`
/// (tests/suite/mixed_far_steps_cli.rs, ~35 s): on 1,000 × N_Z(0, 37.7) + 10 × DLap(4) (lattice weights
/// 20 and 377, the inversion priced by its walk) with the time budget set below the inversion's price, an
/// answer short of the digits asked escalates to the inversion when its price is within the refusal
/// factor of the budget (the narrower bracket, ≥ 20 digits, inside the short one), and is passed on
/// unchanged when it is not.
#[test]
fn a_short_answer_escalates_to_a_dear_inversion() {
    let comp = || Composition::new(vec![Group::gaussian(q("37.7"), 1000, 1), Group::laplace(q("4"), 10, 1)], Neighbors::AddRemove).unwrap();
    let price = Accountant::new(comp(), Options::default()).unwrap().fourier_priced().expect("wide weights are priced");
    let alpha = q("1/1000");
    let short = || {
        let iv = Interval::new(Float::with_val(64, 0), Float::with_val(64, 1));
        Certified::new(iv, Engine::Conditioned, Trust::Exact, "a short answer".into())
    };
    // the budget below the price (the inversion declined), the price within the refusal factor: escalated
    let dear = Accountant::new(comp(), Options { time_budget: price / 2.0, ..Options::default() }).unwrap();
    assert!(dear.fourier_check().is_err());
    let c = escalate(&dear, Query::Tradeoff(&alpha), short());
    assert_eq!(c.engine(), Engine::LatticeFourier, "{c}");
    assert!(c.meets(20) && *c.lo() >= 0 && *c.hi() <= 1, "{c}");
    // the price beyond the refusal factor: the short answer as it was
    let beyond =
        Accountant::new(comp(), Options { time_budget: price / (2.0 * engines::lattice::REFUSE_FACTOR), ..Options::default() }).unwrap();
    let c = escalate(&beyond, Query::Tradeoff(&alpha), short());
    assert_eq!(c.engine(), Engine::Conditioned, "{c}");
}

/// 10^12 exponential mechanisms (ε₀ = 1/10, add/remove): no law engine answers (the tilted line's reach; the
/// pld grid's budget, here a small one), and the Rényi bound on dp_accounting's orders (ε ≤ 1.37·10^9) misses
/// the optimal order 1 + 10^-4: the accountant answers with the certified zCDP bound of ρ = n ε₀²/8 instead,
/// CKS's conversion [CKS20, Prop 12] at its best α, 1250239916.0440898212736142518821 by mpmath's evaluation
/// of the formula at α = 1.0000959701182637879 (it grows by 1.3e-11 at α ± 10^-12). Once this took an hour
/// and a half on the pld grid.
#[test]
fn huge_bounded_range_compositions_fall_back_to_their_certified_bounds() {
    let group = crate::model::spec::parse_mech("expmech:epsilon=0.1,n=1000000000000").unwrap();
    let comp = Composition::new(vec![group], Neighbors::AddRemove).unwrap();
    let a = Accountant::new(comp, Options { grid_work: 50_000_000, ..Options::default() }).unwrap();
    let c = a.epsilon(&q("1e-5")).unwrap();
    assert_eq!((c.engine(), c.trust()), (Engine::ZcdpCks, Trust::Bound), "{c:?}");
    assert!(crate::account::engines::holds(&c.interval(), "1250239916.0440898212736142518821"), "{c:?}");
}

/// `--points N` lists at most N knots, evenly spread, the first and the last among them (it listed N + 1:
/// every ⌈n/N⌉-th and the last); N at or above the count, or 0, lists all.
#[test]
fn knots_are_thinned_to_at_most_the_points_asked() {
    assert_eq!(thinned(101, 4), vec![0, 33, 66, 100]);
    assert_eq!(thinned(5, 4), vec![0, 1, 2, 4]);
    assert_eq!(thinned(3, 1), vec![0]);
    assert_eq!(thinned(3, 3), vec![0, 1, 2]);
    assert_eq!(thinned(3, 0), vec![0, 1, 2]);
    let a = Accountant::new(Composition::gaussian(q("4"), 3, 1).unwrap(), Options::default()).unwrap();
    let all = a.knots(0).unwrap();
    let four = a.knots(4).unwrap();
    assert_eq!(four.len(), 4);
    assert_eq!((four[0].k, four[3].k), (all[0].k, all[all.len() - 1].k));
}
