//! The lattice-Fourier driver: profiles whose tails come from the certified Fourier inversion of the
//! exact lattice law (`fourier::lattice`), and the loop that raises the tails' accuracy until the digits
//! asked are met.

use crate::account::vocabulary::{DeltaResult, Query};
use crate::account::{injected, Accountant, Certified, Engine, Trust};
use crate::err;
use crate::error::Fallible;
use crate::num::Interval;
use crate::pld::profile::PrivacyProfile;
use rug::{Float, Rational};
use std::sync::{Arc, Mutex, OnceLock};

/// Largest lattice weight the Fourier inversion takes without pricing it first: the factor of weight w
/// peaks w times per period, and where the other factors do not hold those side peaks down the nodes
/// around them must be evaluated (the State level of DHC 2022 with five DLap(4) queries has weights in
/// the thousands: millions of live nodes). Above it the accountant counts the nodes first, by the
/// inversion's own f64 walk (`FourierTails::live_estimate`), and prices them ([`Accountant::fourier_secs`]):
/// 100,000 × N_Z(0, 37.7) with 1,000 × DLap(4) (weights 20 and 377) has ~100 live nodes a tail, its
/// Gaussian factor holding every DLap peak below e^{−524}; 1,000 with 10 has ~1,100.
const FOURIER_MAX_WEIGHT: u64 = 16;

/// Estimated seconds of one live node of the inversion per factor, at the first round's precision (~150
/// bits), on one core: measured 0.2–0.25 ms (N_Z(0, 37.7) with DLap(4), 2 factors, 4,353 nodes in 2.0 s of
/// CPU on this machine, idle).
const SECS_PER_NODE_FACTOR: f64 = 0.25e-3;
/// Priced seconds of the wide-weight inversion above which the conditioned engine is asked first: 10 ×
/// N_Z(0, 10⁴) with 1,000 × DLap(1) (weights 1 and 20,000) has ~7,900 live nodes a tail, 36–58 s by
/// inversion, 0.3 s by conditioning on the Gaussian group.
pub(in crate::account) const CONDITIONED_FIRST_SECS: f64 = 2.0;
/// Tails an ε(δ) search evaluates (measured 6 in one round; up to three rounds at rising precision).
const TAILS_PER_QUERY: f64 = 12.0;

/// The lattice Fourier inversion's state, one per accountant: its profiles by (tail precision bits, window
/// bits), and whether it takes the composition with its priced cost and live nodes where its weights are
/// wide (`Accountant::fourier_price`).
#[derive(Default)]
pub(in crate::account) struct FourierState {
    profiles: Mutex<Vec<(u32, u32, Arc<PrivacyProfile>)>>,
    price: OnceLock<Fallible<Option<(f64, u64)>>>,
}

impl Accountant {
    /// The loss statistic's factors for `fourier::lattice`, or why the engine cannot take the composition.
    pub(in crate::account) fn fourier_factors(&self) -> Fallible<Vec<crate::fourier::lattice::factor::Factor>> {
        use crate::fourier::lattice::factor::{Factor, Law};
        let (_, w, _) = crate::pld::frame::lattice_frame(&self.shifts);
        let mut out = Vec::new();
        for (g, wi) in self.shifts.iter().zip(&w) {
            let w = wi
                .to_i64()
                .filter(|w| w.unsigned_abs() < 1 << 40)
                .ok_or_else(|| err!(Declined, "the loss slopes share no lattice the Fourier inversion can use (weights above 2^40)"))?;
            let law = match &g.noise {
                crate::model::Noise::Gaussian { sigma2 } => Law::gauss(sigma2),
                crate::model::Noise::Law(_) => {
                    return crate::fallible!(
                        Declined,
                        "the lattice Fourier inversion takes discrete Gaussian and discrete Laplace noise only"
                    )
                }
                crate::model::Noise::Laplace { scale } => {
                    let one = crate::pld::lattice::LatticeDist::dlap_shift_sum(scale, g.mu, 1, 256)?;
                    Law::finite((0..one.len()).map(|i| Interval::new(one.lo[i].clone(), one.hi[i].clone())).collect())
                }
            };
            out.push(Factor { law, n: g.count, w });
        }
        Ok(out)
    }

    /// Whether the inversion takes this composition, and (weights above [`FOURIER_MAX_WEIGHT`] only) its
    /// estimated seconds for one query ([`Accountant::fourier_price`]). Declined when the variance is out
    /// of range or the estimate exceeds the time budget.
    pub(in crate::account) fn fourier_check(&self) -> Fallible<Option<f64>> {
        let price = self.fourier_price()?;
        if let Some((secs, live)) = price.filter(|&(s, _)| s > self.opts.time_budget) {
            return crate::fallible!(
                Declined,
                "the lattice Fourier inversion's factors peak together away from the centre: about {live} live \
                 nodes a tail, ~{secs:.0} s (limit {:.0} s)",
                self.opts.time_budget
            );
        }
        Ok(price.map(|(s, _)| s))
    }

    /// The inversion's priced seconds and live nodes a tail where its weights are wide (None: narrow
    /// weights, the flat cost), whatever the time budget; or why it cannot take the composition. Computed
    /// once per accountant (`FourierState`).
    fn fourier_price(&self) -> Fallible<Option<(f64, u64)>> {
        self.fourier.price.get_or_init(|| self.price_inversion()).clone()
    }

    /// [`Accountant::fourier_price`], uncached: the most live nodes the inversion's own walk finds over
    /// tails from 1 sd out to the window of an ε(1e-10) query (`FourierTails::live_estimate`), priced per
    /// node and factor.
    fn price_inversion(&self) -> Fallible<Option<(f64, u64)>> {
        let f = self.fourier_factors()?;
        let var: f64 = f.iter().map(|x| x.n as f64 * (x.w as f64).powi(2) * x.law.mean_var().1).sum();
        if !(var > 0.0 && var.is_finite() && var.sqrt() < 2f64.powi(50)) {
            return crate::fallible!(Declined, "the lattice Fourier inversion needs a statistic of variance below 2^100");
        }
        if f.iter().all(|x| x.w.unsigned_abs() <= FOURIER_MAX_WEIGHT) {
            return Ok(None);
        }
        // the accuracy the first round asks of the tails (fourier_loop)
        let bits = (self.opts.digits as f64 * std::f64::consts::LOG2_10).ceil() as u32 + 24;
        let factors = f.len() as f64;
        // tails as deep as an ε(1e-10) query's window (the search's deepest tails are the dearest)
        let window_bits = self.depth_wanted(Query::Epsilon(&Rational::from((1, 10_000_000_000u64)))).clamp(64.0, 4e9) as u32;
        let live = crate::fourier::lattice::FourierTails::new(f, bits)?.with_window_bits(window_bits).live_estimate()?;
        let threads = rayon::current_num_threads().max(1) as f64;
        let secs = live as f64 * factors * SECS_PER_NODE_FACTOR * TAILS_PER_QUERY / threads;
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!("lattice-fourier: wide weights, about {live} live nodes a tail, ~{secs:.2} s a query");
        }
        Ok(Some((secs, live)))
    }

    /// The inversion's priced seconds even where above the time budget (the progress bar's estimate when
    /// it runs anyway: forced, or escalated to where a cheaper answer falls short: `lattice_ladder::Cond::FourierDear`).
    pub(in crate::account) fn fourier_priced(&self) -> Option<f64> {
        self.fourier_price().ok().flatten().map(|(s, _)| s)
    }

    pub(in crate::account) fn fourier_applicable(&self) -> bool {
        self.fourier_check().is_ok()
    }

    /// The inversion's estimated seconds where its weights are wide enough to price it (None otherwise, or
    /// where it declines).
    pub(in crate::account) fn fourier_secs(&self) -> Option<f64> {
        self.fourier_check().ok().flatten()
    }

    /// The profile on tails computed by the inversion, each to about 2^-bits relative.
    fn fourier_profile(&self, bits: u32, window_bits: u32) -> Fallible<Arc<PrivacyProfile>> {
        {
            let cache = self.fourier.profiles.lock().map_err(|_| err!(Internal, "profile cache poisoned"))?;
            if let Some((_, _, p)) = cache.iter().find(|(b, w, _)| *b >= bits && *w >= window_bits) {
                return Ok(p.clone());
            }
        }
        let (h, _, c) = crate::pld::frame::lattice_frame(&self.shifts);
        let ft = crate::fourier::lattice::FourierTails::new(self.fourier_factors()?, bits)?.with_window_bits(window_bits);
        let prec = ft.prec();
        let outside = Float::with_val(prec, Float::i_exp(1, -(window_bits.min(1 << 20) as i32)));
        let tails = crate::pld::lattice::Tails::from_oracle(Arc::new(ft), outside, prec);
        let prof = Arc::new(PrivacyProfile::from_tails(tails, h, c)?);
        let mut cache = self.fourier.profiles.lock().map_err(|_| err!(Internal, "profile cache poisoned"))?;
        cache.push((bits, window_bits, prof.clone()));
        Ok(prof)
    }

    /// An error the inversion met (kept by its oracle interface): an internal one surfaces, a declined one
    /// explains a wide bracket.
    fn fourier_error(prof: &PrivacyProfile) -> Option<crate::error::Error> {
        prof.tails().oracle().and_then(|o| o.error())
    }

    /// Evaluate a query on inversion profiles, raising the tails' accuracy until the digits asked are met.
    fn fourier_loop<T>(
        &self,
        q: Query,
        eval: &dyn Fn(&PrivacyProfile) -> Fallible<T>,
        bracket: &dyn Fn(&T) -> Interval,
    ) -> Fallible<(T, u32, u64, Option<String>)> {
        let target = self.opts.digits;
        let mut bits = (target as f64 * std::f64::consts::LOG2_10).ceil() as u32 + 24;
        // the inversion's search window is virtual: as deep as the query needs (ε up to 5e8 at σ² = 0.01)
        let window_bits = self.depth_wanted(q).clamp(64.0, 4e9) as u32;
        let mut best: Option<(T, f64, u32, u64)> = None;
        // ~20 tails of ~100 nodes, each node a θ-sum per group: about 1 ms per group and tail here
        let estimate = self.fourier_priced().unwrap_or(0.02 * self.shifts.len() as f64 + 0.1);
        let _progress = crate::num::progress::begin("lattice Fourier inversion", estimate);
        for _ in 0..3 {
            let prof = self.fourier_profile(bits, window_bits)?;
            let v = eval(&prof);
            // an error the oracle kept (a bug, a cancellation) surfaces before whatever the search made of it
            if let Some(e) = Self::fourier_error(&prof) {
                if !e.is_declined() {
                    return Err(e);
                }
            }
            let v = v?;
            let nodes = prof.tails().oracle().map(|_| 0).unwrap_or(0);
            let c = Certified::new(bracket(&v), Engine::LatticeFourier, Trust::Exact, String::new())?;
            let lr = c.log10_rel_width();
            if c.meets(target) {
                return Ok((v, bits, nodes, None));
            }
            let better = best.as_ref().is_none_or(|(_, b, _, _)| lr < *b - 0.3);
            if best.as_ref().is_none_or(|(_, b, _, _)| lr < *b) {
                best = Some((v, lr, bits, nodes));
            }
            if !better {
                break;
            }
            let short = if lr.is_finite() { ((lr + target as f64) * std::f64::consts::LOG2_10).ceil() as u32 + 16 } else { bits };
            bits += short.clamp(16, 4000);
        }
        let (v, _, b, n) = best.ok_or_else(|| err!(Internal, "no inversion result"))?;
        let prof = self.fourier_profile(b, window_bits)?;
        let why = match Self::fourier_error(&prof) {
            Some(e) => format!("the lattice Fourier inversion declined some nodes ({})", e.message()),
            None => "the lattice Fourier inversion's working precision limits it".to_string(),
        };
        Ok((v, b, n, Some(why)))
    }

    fn fourier_detail(&self, bits: u32) -> String {
        let (h, _, _) = crate::pld::frame::lattice_frame(&self.shifts);
        format!("certified inversion of the lattice law (step {}), tails to 2^-{bits}", crate::num::format::fmt_rational(&h))
    }

    pub(in crate::account) fn fourier_query(&self, q: Query) -> Fallible<Certified> {
        injected(Engine::LatticeFourier)?;
        let (iv, bits, _, note) = self.fourier_loop(q, &|p| super::lattice::query_on(p, q), &|i: &Interval| i.clone())?;
        Ok(Certified::new(iv, Engine::LatticeFourier, Trust::Exact, self.fourier_detail(bits))?.with_note_if(note))
    }

    pub(in crate::account) fn delta_fourier(&self, eps: &Rational) -> Fallible<DeltaResult> {
        injected(Engine::LatticeFourier)?;
        let q = Query::Delta(eps);
        let eval = |p: &PrivacyProfile| -> Fallible<crate::pld::profile::DeltaValue> { Ok(p.delta(eps)) };
        let (v, bits, _, note) = self.fourier_loop(q, &eval, &|d| d.delta.clone())?;
        let c = Certified::new(v.delta.clone(), Engine::LatticeFourier, Trust::Exact, self.fourier_detail(bits))?.with_note_if(note);
        // the two terms, from the same lattice: certified by the same engine
        let term = |iv| Certified::new(iv, Engine::LatticeFourier, Trust::Exact, self.fourier_detail(bits));
        Ok(DeltaResult { delta: c, first: Some(term(v.first)?), second: Some(term(v.second)?) })
    }
}
