//! The lattice driver: exact lattice profiles in f64, double-double or MPFR, and the digits loop that
//! escalates from double-double to MPFR, raising precision and depth until the bracket meets the target.

use crate::account::vocabulary::{DeltaResult, Query, F64_MAX_DEPTH, MAX_DEPTH};
use crate::account::{injected, Accountant, Certified, Engine, Trust};
use crate::err;
use crate::error::{ErrorKind, Fallible};
use crate::num::Arith;
use crate::num::Interval;
use crate::pld::estimate::estimated_window_shifts;
use crate::pld::profile::PrivacyProfile;
use crate::pld::{
    compose::lattice_profile,
    frame::{LatticeOpts, MAX_WINDOW},
};
use rug::Rational;
use std::sync::{Arc, Mutex};

/// Multiple of the time budget beyond which a lattice build is refused up front, with its estimate.
pub(in crate::account) const REFUSE_FACTOR: f64 = 4.0;
/// Bits of a-priori depth beyond F64_MAX_DEPTH for which the double-double engine is still tried first.
const DD_DEPTH_SLACK: u32 = 64;

/// Which lattice engines a query runs through, in order: the one its options name (f64, or the `--arith`
/// given), or double-double then MPFR, or only one of those two (the trade-off under `auto` puts the lattice
/// Fourier inversion between them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::account) enum Tiers {
    Fixed,
    DdThenMpfr,
    DdOnly,
    MpfrOnly,
}

impl Tiers {
    /// The tiers of an exact lattice (`mpfr`: double-double then MPFR) or of the one its options name.
    pub(in crate::account) fn exact(mpfr: bool) -> Tiers {
        if mpfr {
            Tiers::DdThenMpfr
        } else {
            Tiers::Fixed
        }
    }
}

/// The query's value on a profile of the lattice law (the exact lattice's or the inversion's).
pub(in crate::account) fn query_on(p: &PrivacyProfile, q: Query) -> Fallible<Interval> {
    match q {
        Query::Epsilon(d) => p.epsilon(d),
        Query::Delta(e) => Ok(p.delta(e).delta),
        Query::Tradeoff(a) => p.tradeoff(a),
    }
}

/// The exact lattice's state, one per accountant: the profiles it built, by their options (a few; a profile
/// at least as precise and as deep serves a query).
#[derive(Default)]
pub(in crate::account) struct LatticeState {
    profiles: Mutex<Vec<(LatticeOpts, Arc<PrivacyProfile>)>>,
}

impl Accountant {
    pub(in crate::account) fn profile(&self, o: &LatticeOpts) -> Fallible<Arc<PrivacyProfile>> {
        {
            let cache = self.lattice.profiles.lock().map_err(|_| err!(Internal, "profile cache poisoned"))?;
            // a cached profile at least as precise and as deep serves (the f64 and MPFR engines are distinct)
            let serves = |k: &LatticeOpts| tier(k.arith) == tier(o.arith) && k.arith.bits() >= o.arith.bits() && k.depth >= o.depth;
            if let Some((_, p)) = cache.iter().find(|(k, _)| serves(k)) {
                return Ok(p.clone());
            }
        }
        let window = estimated_window_shifts(&self.shifts, o.depth);
        if window > MAX_WINDOW {
            return Err(err!(
                Declined,
                "the lattice at truncation depth {} would need {} entries (limit {MAX_WINDOW})",
                o.depth,
                crate::pld::estimate::describe_entries(window)
            )
            .over_limits());
        }
        let bytes = crate::pld::estimate::estimated_bytes(window, o.arith, self.comp.has_laplace());
        if bytes > crate::pld::estimate::MAX_LATTICE_BYTES {
            return Err(err!(
                Declined,
                "the {} lattice at truncation depth {} would need about {:.1} GB ({} entries; limit {:.0} GB)",
                match self.engine_of(o) {
                    Engine::LatticeF64 => "f64",
                    Engine::LatticeDD => "double-double",
                    _ => "MPFR",
                },
                o.depth,
                bytes / 1e9,
                crate::pld::estimate::describe_entries(window),
                crate::pld::estimate::MAX_LATTICE_BYTES / 1e9
            )
            .over_limits());
        }
        let secs = self.estimated_seconds(o);
        let what = match self.engine_of(o) {
            Engine::LatticeF64 => "f64 lattice",
            Engine::LatticeDD => "double-double lattice",
            _ => "MPFR lattice",
        };
        let _progress = crate::num::progress::begin(what, secs);
        let prof = Arc::new(lattice_profile(&self.shifts, o)?);
        let mut cache = self.lattice.profiles.lock().map_err(|_| err!(Internal, "profile cache poisoned"))?;
        cache.push((*o, prof.clone()));
        if cache.len() > 4 {
            cache.remove(0);
        }
        Ok(prof)
    }

    pub(in crate::account) fn detail(&self, o: &LatticeOpts) -> String {
        match self.engine_of(o) {
            Engine::LatticeF64 => format!("f64 convolution with rigorous error bound, truncation depth {} bits", o.depth),
            Engine::LatticeDD => format!("double-double convolution with rigorous error bound, truncation depth {} bits", o.depth),
            _ => format!("MPFR {} bits, truncation depth {} bits", o.arith.bits(), o.depth),
        }
    }

    pub(in crate::account) fn engine_of(&self, o: &LatticeOpts) -> Engine {
        match o.arith {
            Arith::F64 => Engine::LatticeF64,
            // the double-double engine convolves the discrete Gaussian part; Laplace-only runs in MPFR
            Arith::DoubleDouble if self.has_gauss() => Engine::LatticeDD,
            _ => Engine::Lattice,
        }
    }

    fn has_gauss(&self) -> bool {
        self.comp.groups().iter().any(|g| matches!(g.noise, crate::model::Noise::Gaussian { .. }))
    }

    /// The double-double tier tried before MPFR when no precision is forced (a discrete Gaussian part
    /// present, the depth within the double exponent range): its options for a query, when it may serve. Its entries stop at
    /// `pld::fixed::FLOOR` (about 2^-465, the dropped mass joining the certified outside mass), so a depth
    /// asked beyond F64_MAX_DEPTH is served at F64_MAX_DEPTH: the a-priori depth carries 24 bits of margin
    /// and ε_BS ≥ ε, so up to DD_DEPTH_SLACK bits over it the bracket usually still meets the digits (the
    /// loop falls back to MPFR when not). 10,000 × N_Z(0, 37.7) at δ = 1e-10 asks 475 bits: double-double
    /// gives 23 digits in 0.3 s, MPFR at 123 bits 29 digits in 60 s, the brackets nested.
    pub(in crate::account) fn dd_opts(&self, q: Query) -> Option<LatticeOpts> {
        let depth = self.depth_for(q);
        (self.opts.arith.is_none() && self.has_gauss() && depth <= F64_MAX_DEPTH + DD_DEPTH_SLACK)
            .then_some(LatticeOpts { arith: Arith::DoubleDouble, depth: depth.min(F64_MAX_DEPTH) })
    }

    /// The digits loop: evaluate, and while the bracket misses the target raise precision and depth by
    /// the shortfall (MPFR), within the window and time limits; return the best bracket, with a note when
    /// it is wider than asked.
    fn lattice_loop<T>(
        &self,
        q: Query,
        tiers: Tiers,
        eval: &dyn Fn(&PrivacyProfile) -> Fallible<T>,
        bracket: &dyn Fn(&T) -> Interval,
    ) -> Fallible<(T, LatticeOpts, Option<String>)> {
        // double-double first when it can serve: ≥ 20 digits at a few times the f64 cost; MPFR only when
        // its bracket misses the target
        let mut dd_best = None;
        let need = self.depth_for(q);
        let mpfr = tiers != Tiers::Fixed;
        if matches!(tiers, Tiers::DdThenMpfr | Tiers::DdOnly) {
            if let Some(d) = self.dd_opts(q) {
                match self.lattice_loop_from(d, need, eval, bracket) {
                    Ok((v, o, None)) => return Ok((v, o, None)),
                    Ok(best) if tiers == Tiers::DdOnly => return Ok(best),
                    Ok(best) => dd_best = Some(best),
                    // a refusal of the double-double tier leaves MPFR to try; anything else surfaces
                    Err(e) if !e.is_declined() || tiers == Tiers::DdOnly => return Err(e),
                    Err(_) => {}
                }
            } else if tiers == Tiers::DdOnly {
                return Err(err!(Declined, "the double-double lattice does not serve this query"));
            }
        }
        let first = self.initial_opts(q, mpfr);
        let secs = self.estimated_seconds(&first);
        if dd_best.is_none() && secs > REFUSE_FACTOR * self.opts.time_budget {
            // refused before any work: 1,000,000 × N_Z(0, 5) on the MPFR lattice ran without end
            return Err(err!(
                Declined,
                "the {} lattice would take about {secs:.0} s here (limit {:.0} s); --method auto picks a faster \
                 certified engine where one applies, --method zcdp-cks gives a certified upper bound",
                if first.arith == Arith::F64 { "f64" } else { "MPFR" },
                REFUSE_FACTOR * self.opts.time_budget
            )
            .over_limits());
        }
        let mp = self.lattice_loop_from(first, need, eval, bracket);
        match (mp, dd_best) {
            (Ok(m), Some(d)) if m.2.is_some() => {
                let wm = Certified::new(bracket(&m.0), Engine::Lattice, Trust::Exact, String::new())?.log10_rel_width();
                let wd = Certified::new(bracket(&d.0), Engine::Lattice, Trust::Exact, String::new())?.log10_rel_width();
                Ok(if wd < wm { d } else { m })
            }
            (Err(e), _) if !e.is_declined() => Err(e),
            (Err(_), Some(d)) => Ok(d),
            (m, _) => m,
        }
    }

    fn lattice_loop_from<T>(
        &self,
        first: LatticeOpts,
        need: u32,
        eval: &dyn Fn(&PrivacyProfile) -> Fallible<T>,
        bracket: &dyn Fn(&T) -> Interval,
    ) -> Fallible<(T, LatticeOpts, Option<String>)> {
        let mut o = first;
        let fixed_prec = self.opts.arith.is_some() || o.arith.is_fixed();
        let target = self.opts.digits;
        // the narrowest bracket so far, its log10 relative width, and the options that gave it
        let mut best: Option<(T, f64, LatticeOpts)> = None;
        let mut last_err = None;
        for round in 0..6 {
            if std::env::var_os("TIGHTDP_TRACE").is_some() {
                eprintln!("lattice: round {round}, {} at depth {}, estimated {:.2} s", o.arith.name(), o.depth, self.estimated_seconds(&o));
            }
            let res = self.profile(&o).and_then(|p| eval(&p));
            let shortfall = match res {
                Ok(v) => {
                    let c = Certified::new(bracket(&v), Engine::Lattice, Trust::Exact, String::new())?;
                    let lr = c.log10_rel_width();
                    if c.meets(target) {
                        return Ok((v, o, None));
                    }
                    // with the precision fixed only the depth can help: stop once it no longer halves the width
                    let improved = best.as_ref().is_none_or(|(_, b, _)| lr < *b - 0.3);
                    if best.as_ref().is_none_or(|(_, b, _)| lr < *b) {
                        best = Some((v, lr, o));
                    }
                    if fixed_prec && !improved {
                        break;
                    }
                    if lr.is_finite() {
                        ((lr + target as f64) * std::f64::consts::LOG2_10).ceil() as u32 + 16
                    } else {
                        o.depth / 2 + 64
                    }
                }
                // a refusal by size after the first round: a deeper lattice will not fit either
                Err(e) if e.is_declined() && e.settled_kind() == ErrorKind::Resource && round > 0 => break,
                // a refusal is retried shallower; anything else (a bug, a cancellation) surfaces
                Err(e) if e.is_declined() => {
                    last_err = Some(e);
                    o.depth / 2 + 64
                }
                Err(e) => return Err(e),
            };
            let next = LatticeOpts {
                arith: if fixed_prec { o.arith } else { Arith::Mpfr(o.arith.bits() + shortfall) },
                depth: (o.depth + shortfall).min(if o.arith.is_fixed() { F64_MAX_DEPTH } else { MAX_DEPTH }),
            };
            if next == o || estimated_window_shifts(&self.shifts, next.depth) > MAX_WINDOW {
                break;
            }
            if self.estimated_seconds(&next) > 4.0 * self.opts.time_budget {
                break;
            }
            o = next;
        }
        match best {
            Some((v, _, o)) => {
                let why = if o.arith.is_fixed() && need > o.depth {
                    format!(
                        "the {} engine keeps no mass below about 2^-{F64_MAX_DEPTH}, and this query needs about {need} bits of it \
                         (log2(1/delta) + epsilon*log2(e) + the digits)",
                        if o.arith == Arith::F64 { "f64" } else { "double-double" }
                    )
                } else if o.arith == Arith::F64 {
                    "the f64 engine's rounding-error bound limits it".to_string()
                } else if o.arith == Arith::DoubleDouble && self.opts.arith.is_none() {
                    "the double-double engine's error bound limits it".to_string()
                } else if let Some(a) = self.opts.arith {
                    match a {
                        Arith::Mpfr(b) => format!("--prec {b} limits it"),
                        _ => format!("--arith {} limits it", a.name()),
                    }
                } else {
                    "a deeper or more precise lattice would exceed the size or time limits".to_string()
                };
                Ok((v, o, Some(why)))
            }
            None => Err(last_err.unwrap_or_else(|| err!(Internal, "the lattice loop ended without a bracket or an error"))),
        }
    }

    pub(in crate::account) fn lattice_query(&self, q: Query, mpfr: bool) -> Fallible<Certified> {
        self.lattice_query_tiers(q, Tiers::exact(mpfr))
    }

    pub(in crate::account) fn lattice_query_tiers(&self, q: Query, tiers: Tiers) -> Fallible<Certified> {
        injected(Engine::Lattice)?;
        let (iv, o, note) = self.lattice_loop(q, tiers, &|p| query_on(p, q), &|i: &Interval| i.clone())?;
        Ok(Certified::new(iv, self.engine_of(&o), Trust::Exact, self.detail(&o))?.with_note_if(note))
    }

    pub(in crate::account) fn delta_lattice(&self, eps: &Rational, tiers: Tiers) -> Fallible<DeltaResult> {
        injected(Engine::Lattice)?;
        let q = Query::Delta(eps);
        let eval = |p: &PrivacyProfile| -> Fallible<crate::pld::profile::DeltaValue> { Ok(p.delta(eps)) };
        let (v, o, note) = self.lattice_loop(q, tiers, &eval, &|d| d.delta.clone())?;
        let c = Certified::new(v.delta.clone(), self.engine_of(&o), Trust::Exact, self.detail(&o))?.with_note_if(note);
        // the two terms, from the same lattice: certified by the same engine
        let term = |iv| Certified::new(iv, self.engine_of(&o), Trust::Exact, self.detail(&o));
        Ok(DeltaResult { delta: c, first: Some(term(v.first)?), second: Some(term(v.second)?) })
    }
}

/// The engines a cached lattice may serve across: f64, double-double, MPFR (at any precision ≥ asked).
fn tier(arith: Arith) -> u8 {
    match arith {
        Arith::F64 => 0,
        Arith::DoubleDouble => 1,
        Arith::Mpfr(_) => 2,
    }
}
