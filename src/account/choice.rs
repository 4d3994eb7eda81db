//! Engine choice: the working precision and truncation depth a query needs, the estimated cost of a
//! lattice build, the `auto` policy (`lattice_plan`) and the climb of its ladder (`lattice_ladder`).

use super::engines::lattice::REFUSE_FACTOR;
use super::engines::lattice_fourier::CONDITIONED_FIRST_SECS;
use super::engines::lattice_ladder::{ladder, Cond, Refuse, Run, Rung, Then};
use super::engines::lattice_plan::{choose, Kind, LatticeOffers, Refusal};
pub(super) use super::engines::lattice_plan::{AutoEngine, FOURIER_FEW_GROUPS};
use super::vocabulary::{DeltaResult, Method, Query, F64_MAX_DEPTH, MAX_DEPTH};
use super::{Accountant, Certified};
use crate::budget::zcdp;
use crate::err;
use crate::error::{Error, Fallible};
use crate::num::{log2_of, Arith};
use crate::pld::estimate::{estimated_bytes, estimated_ops_split, estimated_residue_ops, estimated_window_shifts, MAX_LATTICE_BYTES};
use crate::pld::frame::{LatticeOpts, MAX_WINDOW};
use rug::{Float, Rational};

impl Accountant {
    pub(super) fn work_prec(&self) -> u32 {
        match self.opts.arith {
            Some(a) => a.bits(),
            None => ((self.opts.digits as f64 * std::f64::consts::LOG2_10).ceil() as u32 + 32).max(64),
        }
    }

    /// Truncation depth a query needs for the target digits, from cheap a-priori bounds.
    pub(super) fn depth_for(&self, q: Query) -> u32 {
        (self.depth_wanted(q).ceil().max(64.0) as u32).min(MAX_DEPTH)
    }

    /// The truncation depth a query needs, uncapped (bits; may be far above what a stored lattice holds).
    pub(super) fn depth_wanted(&self, q: Query) -> f64 {
        let digit_bits = self.opts.digits as f64 * std::f64::consts::LOG2_10;
        // planning only: compositions without a ρ go to the law engines before this is asked
        let rho = self.rho().unwrap_or_default();
        match q {
            Query::Epsilon(delta) => {
                // ε ≤ ε_BS(δ) = ρ + 2√(ρ log 1/δ)
                let l = -log2_of(delta) * std::f64::consts::LN_2;
                let r = rho.to_f64();
                let eps_up = r + 2.0 * (r * l).sqrt();
                -log2_of(delta) + eps_up * std::f64::consts::LOG2_E + digit_bits + 24.0
            }
            Query::Delta(eps) => {
                // δ(ε) ≥ … is unknown in advance: start from the zCDP bound on δ and let the loop deepen
                let e = eps.to_f64();
                let (d_bs, _) = zcdp::delta_cks(&rho, eps, 64);
                // log2 from the MPFR exponent: δ below f64's range (10 × N_Z(0, 1e5) at ε = 1 has
                // δ ≈ 2e-2178) was clamped at 1e-300, planning a depth of ~1,000 bits for ~7,300
                let hi = d_bs.hi();
                let ld = match hi.get_exp() {
                    Some(e) if *hi > 0 => -(e as f64 - 1.0 + Float::with_val(64, hi >> (e - 1)).to_f64().log2()),
                    _ => 0.0,
                };
                e * std::f64::consts::LOG2_E + ld + digit_bits + 24.0
            }
            Query::Tradeoff(alpha) => {
                let one_minus = Rational::from(1) - alpha.clone();
                let extra = if one_minus > 0 { -log2_of(&one_minus) } else { 0.0 };
                // β = f(α) itself may be tiny (30,000 × N_Z(0, 37.7) at α = 1e-3: β ≈ 1.5e-139): its
                // magnitude from the Gaussian trade-off G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), μ = √(2ρ) [DRS22, eq. 6],
                // with Φ(−x) ≤ e^{−x²/2} and z = Φ⁻¹(1 − α) taken as √(2 ln 1/α) for α ≤ ½ and as
                // −√(2 ln 1/(1 − α)) above (|Φ⁻¹(p)| ≤ √(2 ln 1/p), p ≤ ½: the second overstates |z|, so
                // the depth; 3,000 × N_Z(0, 37.7) at α = 1 − 1e-6 has β ≈ 7e-43, z ≈ −4.75, which the
                // first form alone took as 0 and planned 57 bits of β instead of ~140); planning only (the 64
                // bits of headroom cover β down to ~2^-40)
                let mu = (2.0 * rho.to_f64()).sqrt();
                let tail = |p: &Rational| (2.0 * (-log2_of(p) * std::f64::consts::LN_2).max(0.0)).sqrt();
                let z = if *alpha <= (1, 2) {
                    tail(alpha)
                } else if one_minus > 0 {
                    -tail(&one_minus)
                } else {
                    0.0
                };
                let beta_bits = (mu - z).max(0.0).powi(2) / 2.0 * std::f64::consts::LOG2_E;
                digit_bits + 2.0 * extra + 64.0f64.max(beta_bits + 24.0)
            }
        }
    }

    pub(super) fn initial_opts(&self, q: Query, mpfr: bool) -> LatticeOpts {
        let depth = self.depth_for(q);
        match self.opts.arith {
            Some(Arith::F64) => LatticeOpts { arith: Arith::F64, depth: depth.min(F64_MAX_DEPTH) },
            Some(arith) => LatticeOpts { arith, depth },
            None if !mpfr => LatticeOpts { arith: Arith::F64, depth: depth.min(F64_MAX_DEPTH) },
            None => {
                let w = estimated_window_shifts(&self.shifts, depth).max(2) as f64;
                LatticeOpts { arith: Arith::Mpfr(self.work_prec() + w.log2().ceil() as u32 + 8), depth }
            }
        }
    }

    /// Estimated seconds of a lattice build on this machine (two cores).
    pub(super) fn estimated_seconds(&self, o: &LatticeOpts) -> f64 {
        let (recursion, convolution) = estimated_ops_split(&self.shifts, o.depth, o.arith.is_fixed());
        let mut ops = recursion + convolution;
        let per = match o.arith {
            Arith::F64 => 1.5e-9,
            // the fixed-width engines convolve in blocked kernels on windows trimmed at every step:
            // measured 0.04–0.1 ns per estimated operation (DHC persons/units 2023, SafeTab-P), 2–5× margin
            Arith::DoubleDouble if !self.comp.has_laplace() => 0.2e-9,
            // MPFR (and a double-double request with discrete Laplace noise, convolved in MPFR at 106
            // bits): linear in the precision up to a few thousand bits, then the multiplications'
            // Karatsuba/Toom growth (--prec 65536 on 1,000 × N_Z(0, 5) ran > 60 s on an estimate of ~20 s)
            a => {
                let p = a.bits() as f64;
                // binary powering and convolutions cost ~4× the recursion's rate per operation: measured
                // (idle, 2 cores) 3.7–4.2× the old estimate on 3,000 × N_Z(0, 37.7) and N_Z(0, 5),
                // 1,000 × N_Z(0, 37.7) of sensitivity 2 and 3,000 × N_Z(0, 37.7) + 30 × DLap(4) (6.3 s
                // on an estimate of 1.7 s); the recursion's 22–24 ns per n²K operation matches the formula,
                // but a group's recursion runs on one thread (300 × N_Z(0, 10⁴) at 190 bits: 6.5 s on an
                // estimate of 2.4 s, now 4.8 s)
                ops = 2.0 * recursion + 4.0 * convolution;
                (15.0 + 0.1 * p * (p / 2048.0).max(1.0).powf(0.6)) * 1e-9
            }
        };
        // the fixed engines' residue recursions run in MPFR at 64 (f64) or 128 (double-double) bits, one
        // group per thread: priced at the MPFR rate, not the kernels' (see `estimated_residue_ops`)
        let residue = match o.arith {
            Arith::F64 => estimated_residue_ops(&self.shifts, o.depth) * (15.0 + 0.1 * 64.0) * 1e-9,
            Arith::DoubleDouble if !self.comp.has_laplace() => estimated_residue_ops(&self.shifts, o.depth) * (15.0 + 0.1 * 128.0) * 1e-9,
            _ => 0.0,
        };
        ops * per / 2.0 + residue
    }

    /// The engine `auto` runs for a query on the lattice laws: the policy (`lattice_plan::choose`) on
    /// this composition's offers, its refusals worded with the engines' own reasons.
    pub(super) fn auto_engine(&self, q: Query) -> Fallible<AutoEngine> {
        let o = self.initial_opts(q, true);
        let fourier = || self.fourier_check().map_err(|_| ());
        let smooth_ok = || self.smooth_range_error().is_none();
        let offers = self.lattice_offers(q, &o, &fourier, &smooth_ok);
        match choose(&offers) {
            Ok(e) => Ok(e),
            Err(r) => Err(self.refusal(q, &offers, r)),
        }
    }

    /// What the lattice engines offer for `q` at the planned options `o` (`lattice_plan::LatticeOffers`).
    fn lattice_offers<'a>(
        &self,
        q: Query,
        o: &LatticeOpts,
        fourier: &'a dyn Fn() -> Result<Option<f64>, ()>,
        smooth_ok: &'a dyn Fn() -> bool,
    ) -> LatticeOffers<'a> {
        let window = estimated_window_shifts(&self.shifts, o.depth);
        let window_f64 = estimated_window_shifts(&self.shifts, o.depth.min(F64_MAX_DEPTH));
        let lap = self.comp.has_laplace();
        let gauss_only = !lap;
        let smoothed_gauss_ok = !gauss_only || self.smoothed_gauss_error().is_none();
        let fits = |o: &LatticeOpts| estimated_bytes(estimated_window_shifts(&self.shifts, o.depth), o.arith, lap) <= MAX_LATTICE_BYTES;
        let f64_opts = LatticeOpts { arith: Arith::F64, depth: o.depth.min(F64_MAX_DEPTH) };
        let dd = self.dd_opts(q);
        let exact_secs = match &dd {
            Some(d) => self.estimated_seconds(d).min(self.estimated_seconds(o)),
            None => self.estimated_seconds(o),
        };
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            eprintln!("auto: window {window}, exact engine ~{exact_secs:.2} s (budget {} s)", self.opts.time_budget);
        }
        LatticeOffers {
            kind: Kind::of(q),
            forced_lattice: self.opts.method == Method::Lattice,
            arith: self.opts.arith,
            lattice_max: self.opts.lattice_max,
            time_budget: self.opts.time_budget,
            gauss_only,
            has_law: self.comp.has_law(),
            few_groups: self.shifts.len() <= FOURIER_FEW_GROUPS,
            smoothed_gauss_ok,
            depth_beyond_max: self.depth_wanted(q) > MAX_DEPTH as f64,
            depth: o.depth,
            window,
            window_f64,
            exact_fits: fits(o) || dd.is_some_and(|d| fits(&d)),
            f64_fits: estimated_bytes(window_f64, Arith::F64, lap) <= MAX_LATTICE_BYTES,
            exact_secs,
            f64_secs: self.estimated_seconds(&f64_opts),
            fourier,
            smooth_ok,
        }
    }

    /// Why the smoothed inversion's range does not hold the composition's discrete Gaussian groups (None: it
    /// does).
    fn smoothed_gauss_error(&self) -> Option<Error> {
        self.comp.gauss_shifts().ok().and_then(|g| crate::fourier::smooth::check_groups(&g).err())
    }

    /// The policy's refusal in words, with the engines' own reasons.
    fn refusal(&self, q: Query, offers: &LatticeOffers, r: Refusal) -> Error {
        let bound = if matches!(q, Query::Tradeoff(_)) { "" } else { "; --method zcdp-cks gives a certified upper bound" };
        let entries = crate::pld::estimate::describe_entries(offers.window);
        match r {
            Refusal::MpfrTooSlow { depth, secs, limit } => {
                let fourier = match self.fourier_check() {
                    Err(e) => format!(": {}", e.message()),
                    Ok(_) => String::new(),
                };
                let also = match (q, self.smooth_range_error()) {
                    (Query::Epsilon(_) | Query::Delta(_), Some(_)) => ", as does the smoothed inversion",
                    _ => "",
                };
                err!(
                    Resource,
                    "no certified engine answers this composition within the limits: it needs about {depth} bits of \
                     lattice depth, beyond the f64 lattice's {F64_MAX_DEPTH}, the MPFR lattice would take about \
                     {secs:.0} s here (limit {limit:.0} s), and the lattice Fourier inversion declines it{fourier}{also}{bound}"
                )
            }
            Refusal::GaussOutOfRange => {
                let why = self.smoothed_gauss_error().map_or(String::new(), |e| e.to_string());
                err!(
                    Resource,
                    "no certified engine handles this composition: the lattice would need {entries} entries \
                     (limit {MAX_WINDOW}) and {}{bound}",
                    why.trim_end_matches("; use --method auto")
                )
            }
            Refusal::SmoothOutOfRange => {
                let why = self.smooth_range_error().map_or(String::new(), |e| e.message().to_string());
                err!(
                    Resource,
                    "no certified engine handles this composition: its loss slopes share no practical lattice ({entries} entries) and {}",
                    why.trim_end_matches("; use the lattice method")
                )
            }
            Refusal::NoLattice => err!(
                Resource,
                "no certified engine handles this composition: its loss slopes share no practical lattice ({entries} entries) \
                 and the smoothed inversion handles discrete Gaussian and discrete Laplace noise only"
            ),
        }
    }

    /// `auto` on the lattice laws: the ladder (`lattice_ladder::ladder`) from the engine `choose` picks,
    /// climbed.
    pub(super) fn auto(&self, q: Query) -> Fallible<DeltaResult> {
        let forced = self.opts.method == Method::Lattice;
        let (rungs, refuse) = ladder(self.auto_engine(q)?, Kind::of(q), forced, self.opts.arith == Some(Arith::F64));
        self.climb(q, &rungs, refuse, None)
    }

    /// Climb a ladder of the lattice engines by its rules (`lattice_ladder`'s module doc), from `seed`, an
    /// answer already in hand (None: none).
    pub(super) fn climb(&self, q: Query, rungs: &[Rung], refuse: Refuse, seed: Option<DeltaResult>) -> Fallible<DeltaResult> {
        let digits = self.opts.digits;
        if let Some(s) = seed.as_ref().filter(|s| s.delta.meets(digits)) {
            return Ok(s.clone());
        }
        let mut best = seed;
        let mut declined: Option<Error> = None;
        for r in rungs {
            if !r.when.iter().all(|c| self.holds(*c, q, best.is_some())) {
                continue;
            }
            let Some(answer) = self.run_rung(r.run, q) else { continue };
            match (r.then, answer) {
                (Then::Final, a) => return a,
                (Then::IfMeets, Ok(a)) if a.delta.meets(digits) => return Ok(a),
                (Then::IfMeets, _) => {}
                (_, Err(e)) if e.is_declined() => {
                    declined.get_or_insert(e);
                }
                (_, Err(e)) => return Err(e),
                (then, Ok(a)) => {
                    // (the earlier answer is kept unless the new one is strictly narrower; a width that is not a
                    // number keeps it too)
                    let b = match best.take() {
                        Some(b) if !(a.delta.log10_rel_width() < b.delta.log10_rel_width()) => b,
                        _ => a,
                    };
                    if then == Then::Narrow && b.delta.meets(digits) {
                        return Ok(b);
                    }
                    best = Some(b);
                }
            }
        }
        match best {
            Some(b) => Ok(b),
            None => Err(self.ladder_refusal(q, refuse, declined)),
        }
    }

    /// Whether a rung's condition holds, from the accountant's cached estimates (`answered`: an answer is
    /// kept).
    fn holds(&self, c: Cond, q: Query, answered: bool) -> bool {
        let free = self.opts.arith.is_none();
        let limit = REFUSE_FACTOR * self.opts.time_budget;
        match c {
            Cond::FourierApplies => free && self.fourier_applicable(),
            Cond::FourierDear => free && !self.fourier_applicable() && self.fourier_priced().is_some_and(|s| s <= limit),
            Cond::FourierWide => self.fourier_secs().is_some(),
            Cond::ConditionedCheaper => {
                // (only where its own estimate is the lower: 1,000 × N_Z(0, 10⁴) with DLap(1) has the inversion
                // priced at 4 s, the conditioned engine's exact law of the Gaussian group ~40 s)
                let dear = self.fourier_secs().filter(|&s| s > CONDITIONED_FIRST_SECS);
                dear.is_some_and(|f| self.conditioned_seconds(q).is_some_and(|c| c < f))
            }
            Cond::SmoothRangeOk => self.smooth_range_error().is_none(),
            Cond::Answered => answered,
            Cond::NothingYet => !answered,
            Cond::NoWidth => self.opts.width.is_none(),
            Cond::LatticeNear => {
                let (fits, secs) = self.lattice_reach(q);
                fits && secs <= limit
            }
            Cond::F64Near => {
                let f = LatticeOpts { arith: Arith::F64, depth: self.depth_for(q).min(F64_MAX_DEPTH) };
                free && estimated_window_shifts(&self.shifts, f.depth) <= MAX_WINDOW && self.estimated_seconds(&f) <= self.opts.time_budget
            }
            Cond::Tiered => self.tiered(q),
            Cond::NotTiered => !self.tiered(q),
        }
    }

    /// The trade-off's tiers apart (double-double, the inversion, MPFR): double-double serves and the
    /// inversion applies, no arithmetic forced.
    fn tiered(&self, q: Query) -> bool {
        self.dd_opts(q).is_some() && self.opts.arith.is_none() && self.fourier_applicable()
    }

    /// Whether the exact lattice (in the arithmetic forced, else double-double or MPFR) fits, and its
    /// estimated seconds.
    fn lattice_reach(&self, q: Query) -> (bool, f64) {
        let mpfr = self.opts.arith != Some(Arith::F64);
        let o = self.initial_opts(q, mpfr);
        let fits = estimated_window_shifts(&self.shifts, o.depth) <= MAX_WINDOW;
        let secs = match self.dd_opts(q) {
            Some(d) if mpfr => self.estimated_seconds(&d).min(self.estimated_seconds(&o)),
            _ => self.estimated_seconds(&o),
        };
        (fits, secs)
    }

    /// A rung's engine on the query; None where it passes silently (the conditioned engine without a split,
    /// or declining).
    fn run_rung(&self, run: Run, q: Query) -> Option<Fallible<DeltaResult>> {
        let plain = |c: Certified| DeltaResult { delta: c, first: None, second: None };
        Some(match (run, q) {
            (Run::Lattice(t), Query::Delta(e)) => self.delta_lattice(e, t),
            (Run::Lattice(t), q) => self.lattice_query_tiers(q, t).map(plain),
            (Run::Fourier, Query::Delta(e)) => self.delta_fourier(e),
            (Run::Fourier, q) => self.fourier_query(q).map(plain),
            (Run::Conditioned, q) => return self.try_conditioned(q).map(|r| r.map(plain)),
            (Run::Smoothed { width, input_declines }, q) => {
                let r = match q {
                    Query::Epsilon(d) => self.epsilon_smoothed(d, width),
                    Query::Delta(e) => self.delta_smoothed(e),
                    Query::Tradeoff(_) => Err(err!(Internal, "the smoothed inversion gives no trade-off function")),
                };
                let r = if input_declines { r.map_err(super::smooth_refusal) } else { r };
                r.map(plain)
            }
        })
    }

    /// The refusal of a ladder every rung of which declined (`declined`: the first refusal met).
    fn ladder_refusal(&self, q: Query, refuse: Refuse, declined: Option<Error>) -> Error {
        let e = declined.unwrap_or_else(|| err!(Declined, "no engine answers"));
        let why = |e: &Error| e.message().trim_end_matches("; use the lattice method").to_string();
        match refuse {
            Refuse::AsFirst => e,
            Refuse::SmoothedDelta => err!(
                Resource,
                "no certified engine answers this composition: the lattice is out of reach and the smoothed \
                 inversion declines ({}); --method zcdp-cks gives a certified upper bound",
                why(&e)
            ),
            Refuse::SmoothedEpsilon => {
                // the smoothed inversion's own refusal, or the lattice's cost where it fits
                let (fits, secs) = self.lattice_reach(q);
                if !fits {
                    return e;
                }
                err!(
                    Resource,
                    "no certified engine answers this in reasonable time: the smoothed inversion declined ({}) and \
                     the lattice would take about {secs:.0} s (limit {:.0} s); --method zcdp-cks gives a certified upper bound",
                    why(&e),
                    REFUSE_FACTOR * self.opts.time_budget
                )
            }
            Refuse::Tradeoff => {
                err!(Resource, "no practical common lattice for this composition: the certified trade-off function needs one")
            }
        }
    }
}
