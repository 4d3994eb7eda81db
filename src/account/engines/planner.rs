//! The law engines' planner: the whole policy as one pure function from the engines' offers to a ladder
//! ([`plan`]), and the one loop that climbs it ([`run`]); the module doc of `account::engines` says how.

use super::{Job, LawEngine, Offer, CHEAP_SECONDS};
use crate::account::Certified;
use crate::error::{Error, ErrorKind, Fallible};

/// One rung of the ladder: the engine's index in the list, whether its answer stands short of the digits, and
/// the digits it expects where fewer than asked (`Offer::Takes`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::account) struct Rung {
    pub engine: usize,
    pub stands: bool,
    pub expects: Option<u32>,
    pub seconds: Option<f64>,
}

/// The planner: the ladder from the engines' offers (in the list's order, the exact answers estimated cheap
/// moved before the first rung whose answer may not stand), and the reasons of those that
/// declined ("name: why"). With `forced` (an engine's name), the ladder is that engine alone, if it takes
/// the job.
pub(in crate::account) fn plan(names: &[&str], offers: &[Offer], forced: Option<&str>) -> (Vec<Rung>, Vec<String>) {
    let mut ladder = Vec::new();
    let mut reasons = Vec::new();
    for (i, (name, offer)) in names.iter().zip(offers).enumerate() {
        if forced.is_some_and(|f| f != *name) {
            continue;
        }
        match offer {
            Offer::Declined(why) => reasons.push(format!("{name}: {why}")),
            Offer::Takes { stands, expects, seconds } => {
                let rung = Rung { engine: i, stands: *stands, expects: *expects, seconds: *seconds };
                // (an answer that stands goes before the first rung whose answer may not stand and whose
                // cost is estimated dearer, or is unknown where the standing one's is cheap: a general engine
                // may spend far longer finding the query beyond its reach)
                let at = match seconds {
                    Some(s) if *stands => ladder
                        .iter()
                        .position(|r: &Rung| !r.stands && r.seconds.map_or(*s <= CHEAP_SECONDS, |t| t > *s))
                        .unwrap_or(ladder.len()),
                    _ => ladder.len(),
                };
                ladder.insert(at, rung);
            }
        }
    }
    (ladder, reasons)
}

/// The loop that climbs the planner's ladder (module doc); the refusal, where no rung answers, names every
/// engine's reason.
pub(in crate::account) fn run(engines: &[Box<dyn LawEngine>], job: &Job, forced: Option<&str>) -> Fallible<Certified> {
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    // The first engine in the list that takes the job, where its answer stands, is the ladder's first rung
    // whatever the later offers (a cheap rung moves only before rungs that may not stand), and its answer
    // ends the climb: it runs before the later engines make their offers (a closed form then costs no
    // planning of the inversion's lines). Where it finds the job beyond its reach, the rest of the ladder runs.
    let wanted = |name: &str| forced.is_none_or(|f| f == name);
    let mut offers: Vec<Offer> = Vec::with_capacity(engines.len());
    let mut tried: Option<(usize, String)> = None;
    for (i, engine) in engines.iter().enumerate() {
        let offer = if wanted(names[i]) { engine.offer(job) } else { Offer::Declined(String::new()) };
        let (taken, stands) = match &offer {
            Offer::Declined(_) => (false, false),
            Offer::Takes { stands, .. } => (true, *stands),
        };
        offers.push(offer);
        if stands {
            match engine.answer(job) {
                Ok(Some(c)) => return Ok(c),
                Ok(None) => tried = Some((i, format!("{}: beyond its reach", names[i]))),
                Err(e) if e.is_declined() => tried = Some((i, format!("{}: {}", names[i], e.message()))),
                Err(e) => return Err(e),
            }
        }
        if taken {
            break;
        }
    }
    let rest = engines[offers.len()..].iter().zip(&names[offers.len()..]);
    offers.extend(rest.map(|(e, n)| if wanted(n) { e.offer(job) } else { Offer::Declined(String::new()) }));
    let (mut ladder, mut reasons) = plan(&names, &offers, forced);
    if let Some((i, why)) = tried {
        ladder.retain(|r| r.engine != i);
        reasons.push(why);
    }
    if std::env::var_os("TIGHTDP_TRACE").is_some() {
        let rungs: Vec<String> =
            ladder.iter().map(|r| format!("{} ({:?} s{})", names[r.engine], r.seconds, if r.stands { ", stands" } else { "" })).collect();
        eprintln!("[plan] {}", rungs.join(" -> "));
        for why in reasons.iter().filter(|w| !w.is_empty()) {
            eprintln!("[plan] {why}");
        }
    }
    let mut best: Option<Certified> = None;
    for rung in ladder {
        let engine = &engines[rung.engine];
        // (an earlier short answer with at least the digits this engine expects: it would not be narrower)
        if let (Some(b), Some(e)) = (&best, rung.expects) {
            if b.digits() >= e {
                reasons.push(format!("{}: not run, {} digits already certified, it expects at most {e}", engine.name(), b.digits()));
                continue;
            }
        }
        let answer = match engine.answer(job) {
            Ok(Some(c)) => c,
            Ok(None) => {
                reasons.push(format!("{}: beyond its reach", engine.name()));
                continue;
            }
            Err(e) if e.is_declined() => {
                reasons.push(format!("{}: {}", engine.name(), e.message()));
                continue;
            }
            Err(e) => return Err(e),
        };
        let done = rung.stands || answer.meets(job.digits);
        best = Some(match best {
            Some(b) if !answer.meets(job.digits) && b.log10_rel_width() < answer.log10_rel_width() => b,
            _ => answer,
        });
        if done {
            break;
        }
    }
    best.ok_or_else(|| Error::new(ErrorKind::Declined, format!("no engine answers: {}", reasons.join("; "))))
}

#[cfg(test)]
mod tests {
    //! The planner's choice as a table, in milliseconds: offers only, no engine runs. Each row is the
    //! ladder the module doc's rules give for a composition (the engines' own tests check their answers;
    //! `tests/suite/engine_choice.rs` records which engine answers each cell end to end).
    use super::super::{law_engines, Job, Offer};
    use super::plan;
    use crate::account::vocabulary::Query;
    use crate::account::Trust;
    use crate::model::spec::parse_mech;
    use crate::model::{Composition, Neighbors};
    use crate::num::parse_rational;

    /// The ladder's engine names and the decliners' reasons for the laws of `specs` and a query `q`.
    fn ladder(specs: &[&str], q: Query, forced: Option<&str>) -> (Vec<&'static str>, Vec<String>) {
        // (randomized response is accounted under replace neighbours only)
        let nb = if specs.iter().any(|s| s.starts_with("rr:")) { Neighbors::Replace } else { Neighbors::AddRemove };
        ladder_under(specs, q, forced, nb)
    }

    fn ladder_under(specs: &[&str], q: Query, forced: Option<&str>, nb: Neighbors) -> (Vec<&'static str>, Vec<String>) {
        let comp = Composition::new(specs.iter().map(|s| parse_mech(s).unwrap()).collect(), nb).unwrap();
        let laws = comp.law_shifts().unwrap();
        let job = Job { laws: &laws, q, digits: 20, trust: Trust::Exact, prec: 128, grid_work: 1, grid: None };
        let engines = law_engines();
        let names: Vec<&'static str> = engines.iter().map(|e| e.name()).collect();
        let offers: Vec<Offer> = engines.iter().map(|e| e.offer(&job)).collect();
        let (rungs, reasons) = plan(&names, &offers, forced);
        (rungs.iter().map(|r| names[r.engine]).collect(), reasons)
    }

    #[test]
    fn each_composition_gets_the_ladder_of_the_rules() {
        let d = parse_rational("1e-5").unwrap();
        let e = parse_rational("1").unwrap();
        let a = parse_rational("1/10").unwrap();
        let grid = "pld-grid";
        let rows: &[(&[&str], Query, &[&str])] = &[
            // every law a Gaussian: the closed forms (the grid stays as the rung behind, never reached)
            (&["gauss:sigma2=16,n=4"], Query::Epsilon(&d), &["gaussian-closed", grid]),
            (&["gauss:sigma2=8", "gauss:sigma2=16,n=2"], Query::Tradeoff(&a), &["gaussian-closed", grid]),
            // one release: its distribution functions, then the inversion (short answers of which go on)
            (&["gauss:sigma=1,q=0.01"], Query::Delta(&e), &["single-release", "tilted-fourier", grid]),
            (&["laplace:scale=1,q=1/4"], Query::Epsilon(&d), &["single-release", "tilted-fourier", grid]),
            (&["laplace:scale=2"], Query::Delta(&e), &["single-release", "laplace-sum", "tilted-fourier", grid]),
            // the subsampled Laplace: the inversion, the grid behind it
            (&["laplace:scale=1,q=0.01,n=1000"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            // DP-SGD: the inversion, the grid behind it
            (&["gauss:sigma=1,q=0.01,n=100"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            (&["gauss:sigma=1.1,q=256/60000,n=14070"], Query::Tradeoff(&a), &["tilted-fourier", grid]),
            // Laplace with one ε₀: the exact sum first where its estimated work is below the inversion's (or cheap,
            // `CHEAP_SECONDS`, where the inversion's is not estimated), else the inversion, then the exact sum up
            // to its 1,000 releases
            (&["laplace:scale=1,n=30"], Query::Epsilon(&d), &["laplace-sum", "tilted-fourier", grid]),
            (&["laplace:scale=2,n=100"], Query::Delta(&e), &["laplace-sum", "tilted-fourier", grid]),
            (&["laplace:scale=10,n=1000"], Query::Delta(&e), &["tilted-fourier", "laplace-sum", grid]),
            (&["laplace:scale=10,n=1000"], Query::Epsilon(&d), &["tilted-fourier", "laplace-sum", grid]),
            (&["laplace:scale=1,n=300"], Query::Epsilon(&d), &["tilted-fourier", "laplace-sum", grid]),
            (&["laplace:scale=10,n=1001"], Query::Delta(&e), &["tilted-fourier", grid]),
            (&["laplace:scale=1,n=10", "laplace:scale=2,n=10"], Query::Epsilon(&d), &["laplace-sum", "tilted-fourier", grid]),
            (
                &["laplace:scale=1,n=2", "laplace:scale=3,n=3", "laplace:scale=7,n=1"],
                Query::Delta(&e),
                &["laplace-sum", "tilted-fourier", grid],
            ),
            (&["laplace:scale=2,n=300", "laplace:scale=3,n=100"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            // f(α): the inversion's estimate beside the exact sum's (40 + 40 mixed releases are beyond the
            // inversion's work cap at 20 digits, so its estimate is that of its shorter answers; 1,000 releases
            // of one ε₀ are the exact sum's slowest f(α))
            (&["laplace:scale=1,n=40", "laplace:scale=3,n=40"], Query::Tradeoff(&a), &["laplace-sum", "tilted-fourier", grid]),
            (&["laplace:scale=1,n=1000"], Query::Tradeoff(&a), &["tilted-fourier", "laplace-sum", grid]),
            (&["laplace:scale=1,n=10"], Query::Tradeoff(&a), &["laplace-sum", "tilted-fourier", grid]),
            // the exponential mechanism's bounded-range pair: the exact sum first up to 50 releases (the
            // inversion's line is long there) unless the inversion's estimate is lower (from about 30 releases,
            // where both take milliseconds), then the inversion first (the accountant also bounds it through Renyi divergences and
            // keeps the smaller: `account::laws`)
            (&["expmech:epsilon=1/2,n=50"], Query::Epsilon(&d), &["tilted-fourier", "laplace-sum", grid]),
            (&["expmech:epsilon=1/2,n=5"], Query::Epsilon(&d), &["laplace-sum", "tilted-fourier", grid]),
            (&["expmech:epsilon=1/2,n=51"], Query::Epsilon(&d), &["tilted-fourier", "laplace-sum", grid]),
            (&["expmech:epsilon=1/2,n=10", "expmech:epsilon=1/2,n=20"], Query::Delta(&e), &["tilted-fourier", "laplace-sum", grid]),
            (&["expmech:epsilon=1/2,n=4", "expmech:epsilon=1/2,n=6"], Query::Delta(&e), &["laplace-sum", "tilted-fourier", grid]),
            (&["expmech:epsilon=1/2,n=10", "expmech:epsilon=1/4,n=10"], Query::Delta(&e), &["tilted-fourier", grid]),
            (&["expmech:epsilon=1/2,n=10", "laplace:scale=1,n=10"], Query::Delta(&e), &["tilted-fourier", grid]),
            // the exponential mechanism on a subsample: its pair's quadrature on the inversion, the grid behind it
            (&["expmech:epsilon=1,q=1/10,n=100"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            (&["expmech:epsilon=1,q=1/10,n=100"], Query::Tradeoff(&a), &["tilted-fourier", grid]),
            // finitely many atoms on one lattice: exact
            (&["rr:epsilon=1,n=50"], Query::Epsilon(&d), &["atoms", grid]),
            (&["dp:epsilon=1,delta=1e-6,n=10"], Query::Delta(&e), &["atoms", grid]),
            // on no common lattice (a stated pair on a subsample): the multinomial sums, up to their cap
            (&["dp:epsilon=1,q=1/10,n=100"], Query::Epsilon(&d), &["atoms", grid]),
            (&["dp:epsilon=1,q=1/10,n=10", "dp:epsilon=2,delta=1e-6,q=1/20,n=5"], Query::Tradeoff(&a), &["atoms", grid]),
            (&["dp:epsilon=1,delta=1e-9,q=1/10,n=1100"], Query::Epsilon(&d), &[grid]),
            // Laplace releases beside finitely many atoms on one rational lattice: the Laplace sum conditioned on
            // the atoms, before the inversion (the atoms' characteristic function does not decay: 100 + 100
            // releases took 83 s there, 1.7 s here); the atoms off a rational lattice, or a Gaussian beside them:
            // the inversion
            (&["laplace:scale=1,n=10", "dp:epsilon=1/2,n=5"], Query::Epsilon(&d), &["laplace-atoms", "tilted-fourier", grid]),
            (&["rr:epsilon=1,n=100", "laplace:scale=1,n=100"], Query::Tradeoff(&a), &["laplace-atoms", "tilted-fourier", grid]),
            (&["expmech:epsilon=1/2,n=10", "dp:epsilon=1,delta=1e-6,n=3"], Query::Delta(&e), &["laplace-atoms", "tilted-fourier", grid]),
            (&["rr:keep=3/4,n=10", "laplace:scale=1,n=10"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            (&["gauss:sigma=2,n=10", "laplace:scale=1,n=10", "dp:epsilon=1,n=2"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            // lattice and continuous laws mixed
            (&["dgauss:sigma2=4,n=10", "gauss:sigma=2,n=10"], Query::Epsilon(&d), &["tilted-fourier", grid]),
            (&["gauss:sigma=1,q=0.01,n=100", "laplace:scale=1,n=3"], Query::Delta(&e), &["tilted-fourier", grid]),
        ];
        for (specs, q, want) in rows {
            let (got, reasons) = ladder(specs, *q, None);
            assert_eq!(&got, want, "{specs:?}: declined {reasons:?}");
            // every engine not on the ladder said why
            assert_eq!(got.len() + reasons.len(), super::super::law_engines().len(), "{specs:?}: {reasons:?}");
        }
    }

    /// DP-SGD under replace neighbours (the Poisson replace pair, `noise::mgf_replace`) and the subsampled
    /// Laplace's replace pair (`noise::mgf_laplace_sub`), the Gaussian on fixed-size batches (`noise::mgf_wor`):
    /// the inversion, the grid behind it.
    #[test]
    fn replace_neighbours_take_the_inversion_where_the_pair_has_a_moment_generating_function() {
        let d = parse_rational("1e-5").unwrap();
        let (got, reasons) = ladder_under(&["gauss:sigma=1.1,q=256/60000,n=14070"], Query::Epsilon(&d), None, Neighbors::Replace);
        assert_eq!(got, ["tilted-fourier", "pld-grid"], "{reasons:?}");
        let (got, _) = ladder_under(&["laplace:scale=1,q=1/4,n=10"], Query::Epsilon(&d), None, Neighbors::Replace);
        assert_eq!(got, ["tilted-fourier", "pld-grid"]);
        // fixed-size batches (`noise::mgf_wor`), the Gaussian and the Laplace mechanism; a discrete Gaussian on
        // them has no moment generating function here
        for spec in ["gauss:sigma=1.1,mu=2,sampling=wor,m=256,pop=60000,n=2340", "laplace:scale=1,sampling=wor,m=256,pop=60000,n=2340"] {
            let (got, _) = ladder_under(&[spec], Query::Epsilon(&d), None, Neighbors::Replace);
            assert_eq!(got, ["tilted-fourier", "pld-grid"], "{spec}");
        }
        let (got, _) =
            ladder_under(&["dgauss:sigma2=4,mu=2,sampling=wor,m=256,pop=60000,n=2340"], Query::Epsilon(&d), None, Neighbors::Replace);
        assert!(!got.contains(&"tilted-fourier"), "{got:?}");
    }

    #[test]
    fn a_forced_method_is_a_ladder_of_one_rung_and_refusals_say_why() {
        let d = parse_rational("1e-5").unwrap();
        let (got, _) = ladder(&["gauss:sigma=1,q=0.01,n=100"], Query::Epsilon(&d), Some("pld-grid"));
        assert_eq!(got, ["pld-grid"]);
        // forced onto an engine that declines: no rung, and its reason
        let (got, reasons) = ladder(&["gauss:sigma=1,q=0.01,n=100"], Query::Epsilon(&d), Some("laplace-sum"));
        assert!(got.is_empty());
        assert_eq!(reasons, ["laplace-sum: not a Laplace mechanism"]);
        let (_, reasons) = ladder(&["laplace:scale=10,n=1001"], Query::Epsilon(&d), None);
        assert!(reasons.contains(&"laplace-sum: more than 1000 releases".to_string()), "{reasons:?}");
        assert!(reasons.contains(&"atoms: a law's losses are not finitely many atoms".to_string()), "{reasons:?}");
    }

    /// A stand-in engine: its offer, and the bracket [1, 1 + 10^-digits] (None: beyond its reach).
    struct Fake {
        name: &'static str,
        offer: Offer,
        digits: Option<i32>,
    }

    impl super::super::LawEngine for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn offer(&self, _job: &Job) -> Offer {
            self.offer.clone()
        }
        fn answer(&self, _job: &Job) -> crate::error::Fallible<Option<crate::account::Certified>> {
            let Some(d) = self.digits else { return Ok(None) };
            let lo = rug::Float::with_val(128, 1);
            let hi = rug::Float::with_val(128, 1.0 + 10f64.powi(-d));
            let iv = crate::num::Interval::new(lo, hi);
            crate::account::Certified::new(iv, crate::account::Engine::Closed, Trust::Exact, self.name.into()).map(Some)
        }
    }

    fn fake(name: &'static str, offer: Offer, digits: Option<i32>) -> Box<dyn super::super::LawEngine> {
        Box::new(Fake { name, offer, digits })
    }

    /// The loop: a short answer is kept and a later rung that expects no more digits is not run; one that may
    /// do better runs and the narrower stands; an exact answer estimated cheap is tried first; an engine beyond
    /// its reach hands on; nothing answers: the refusal names every engine's reason.
    #[test]
    fn the_loop_keeps_short_answers_and_skips_rungs_that_cannot_beat_them() {
        let laws =
            Composition::new(vec![parse_mech("gauss:sigma=1,q=0.01,n=30").unwrap()], Neighbors::AddRemove).unwrap().law_shifts().unwrap();
        let d = parse_rational("1e-5").unwrap();
        let job = Job { laws: &laws, q: Query::Epsilon(&d), digits: 20, trust: Trust::Exact, prec: 128, grid_work: 1, grid: None };
        let short = Offer::Takes { stands: false, expects: None, seconds: None };
        let grid = Offer::Takes { stands: true, expects: Some(4), seconds: None };
        // 11 digits from the first: the second (expects 4) is not asked (had it run, its 15 digits would win)
        let es = vec![fake("first", short.clone(), Some(11)), fake("grid", grid.clone(), Some(15))];
        let c = super::run(&es, &job, None).unwrap();
        assert_eq!(c.detail(), "first");
        // 3 digits from the first: the second runs, the narrower (the second's, 5 digits) is kept
        let es = vec![fake("first", short.clone(), Some(3)), fake("grid", grid.clone(), Some(5))];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "grid");
        // ... and the first's where the second's is wider
        let es = vec![fake("first", short.clone(), Some(3)), fake("grid", grid.clone(), Some(2))];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "first");
        // beyond its reach: the next answers; nothing answers: the reasons
        let es = vec![fake("first", short.clone(), None), fake("grid", grid.clone(), Some(2))];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "grid");
        // an exact answer estimated cheap goes before the first engine whose answer may not stand, in the list's
        // order; not before one whose answer stands
        let cheap = Offer::Takes { stands: true, expects: None, seconds: Some(0.2) };
        let exact = Offer::Takes { stands: true, expects: None, seconds: None };
        let names = ["exact", "first", "grid", "cheap", "cheaper"];
        let (rungs, _) = super::plan(&names, &[exact.clone(), short.clone(), grid.clone(), cheap.clone(), cheap.clone()], None);
        assert_eq!(rungs.iter().map(|r| names[r.engine]).collect::<Vec<_>>(), ["exact", "cheap", "cheaper", "first", "grid"]);
        // ... not before a general engine estimated no dearer, nor where it is not cheap
        let quick = Offer::Takes { stands: false, expects: None, seconds: Some(0.05) };
        let names_ = ["exact", "first", "cheap", "cheaper", "grid"];
        let (rungs, _) = super::plan(&names_, &[exact.clone(), quick, cheap.clone(), cheap.clone(), grid.clone()], None);
        assert_eq!(rungs.iter().map(|r| names_[r.engine]).collect::<Vec<_>>(), ["exact", "first", "cheap", "cheaper", "grid"]);
        let dear = Offer::Takes { stands: true, expects: None, seconds: Some(2.0) };
        let (rungs, _) = super::plan(&names, &[exact, short.clone(), grid.clone(), dear, cheap.clone()], None);
        assert_eq!(rungs.iter().map(|r| names[r.engine]).collect::<Vec<_>>(), ["exact", "cheaper", "first", "grid", "cheap"]);
        let es = vec![fake("first", short.clone(), Some(20)), fake("cheap", cheap, Some(20))];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "cheap");
        let es = vec![fake("first", short, None), fake("other", Offer::Declined("not its law".into()), Some(20))];
        let e = super::run(&es, &job, None).unwrap_err();
        assert!(e.is_declined() && e.message().contains("other: not its law") && e.message().contains("first: beyond its reach"), "{e:?}");
    }

    /// An engine that counts the offers asked of it.
    struct Counted(std::sync::atomic::AtomicUsize);

    impl super::super::LawEngine for Counted {
        fn name(&self) -> &'static str {
            "later"
        }
        fn offer(&self, _job: &Job) -> Offer {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Offer::Takes { stands: false, expects: None, seconds: Some(0.01) }
        }
        fn answer(&self, _job: &Job) -> crate::error::Fallible<Option<crate::account::Certified>> {
            fake("later", Offer::Declined(String::new()), Some(20)).answer(_job)
        }
    }

    /// The first engine that takes the job with an answer that stands answers before the later engines are
    /// asked for their offers (it is the ladder's first rung whatever they offer), even short of the digits;
    /// where it finds the job beyond its reach, the later ones are asked, and it is not run twice.
    #[test]
    fn a_first_answer_that_stands_is_given_before_the_later_offers() {
        let laws = Composition::new(vec![parse_mech("laplace:scale=1").unwrap()], Neighbors::AddRemove).unwrap().law_shifts().unwrap();
        let d = parse_rational("1e-5").unwrap();
        let job = Job { laws: &laws, q: Query::Epsilon(&d), digits: 20, trust: Trust::Exact, prec: 128, grid_work: 1, grid: None };
        let exact = Offer::Takes { stands: true, expects: None, seconds: None };
        let count = std::sync::Arc::new(Counted(std::sync::atomic::AtomicUsize::new(0)));
        // it answers (3 digits of 20, and it stands): the later engine is never asked
        let es: Vec<Box<dyn super::super::LawEngine>> = vec![
            fake("declines", Offer::Declined("no".into()), None),
            fake("exact", exact.clone(), Some(3)),
            Box::new(CountedRef(count.clone())),
        ];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "exact");
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 0);
        // beyond its reach: the later engine is asked and answers; the refusal had it named the first
        let es: Vec<Box<dyn super::super::LawEngine>> = vec![fake("exact", exact.clone(), None), Box::new(CountedRef(count.clone()))];
        assert_eq!(super::run(&es, &job, None).unwrap().detail(), "later");
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        let es = vec![fake("exact", exact, None), fake("other", Offer::Declined("not its law".into()), Some(20))];
        let e = super::run(&es, &job, None).unwrap_err();
        assert!(e.message().contains("exact: beyond its reach") && e.message().contains("other: not its law"), "{e:?}");
    }

    /// [`Counted`] shared with the test.
    struct CountedRef(std::sync::Arc<Counted>);

    impl super::super::LawEngine for CountedRef {
        fn name(&self) -> &'static str {
            self.0.name()
        }
        fn offer(&self, job: &Job) -> Offer {
            self.0.offer(job)
        }
        fn answer(&self, job: &Job) -> crate::error::Fallible<Option<crate::account::Certified>> {
            self.0.answer(job)
        }
    }
}
