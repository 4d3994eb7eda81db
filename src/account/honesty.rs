//! The honesty gate every certified answer passes: the digits asked, or a note saying how many were
//! certified (0 included), why, and what to try.

use super::vocabulary::Query;
use super::{Accountant, Certified, Engine};
use crate::error::Fallible;
use crate::num::Arith;
use crate::pld::estimate::estimated_window_shifts;
use crate::pld::frame::{LatticeOpts, MAX_WINDOW};

impl Accountant {
    /// The honesty rule every certified answer passes, one rule for every query (ε, δ, f(α)) and every
    /// interface: a bracket that meets the digits asked is returned as it is; any other certified bracket
    /// is returned too — it still holds the value — with a note saying how many digits it certifies (0
    /// included), why no more, and, where no digit is certified, which end is a certified bound and what
    /// to try. Nothing certified is withheld; only an engine that produced no bracket refuses.
    pub(super) fn honest(&self, what: &str, c: Certified, q: Query) -> Fallible<Certified> {
        let target = self.opts.digits;
        if c.meets(target) {
            return Ok(c);
        }
        let d = c.digits();
        // ε beyond MPFR's exponent range: e^ε overflows past 2^emax (emax = 2^30 − 1), so no engine's
        // search passes ε = emax·ln 2 ≈ 7.44e8 (30,000,000 × N_Z(0, 0.01) has ε ≈ 1.5e9)
        let ceiling = exp_range_epsilon();
        // (the engines' lower end then stops at the ceiling)
        let beyond =
            matches!(q, Query::Epsilon(_)) && d == 0 && (0.999 * ceiling..=ceiling).contains(&c.lo().to_f64()) && c.hi().to_f64() > ceiling;
        // a probability below MPFR's exponent range: the upper end rounded up to the smallest positive
        // number 2^(emin − 1) (3 × N_Z(0, 1e8) at ε = 10: δ ≈ e^(−5e9)); no engine or precision resolves it
        let underflow = matches!(q, Query::Delta(_) | Query::Tradeoff(_))
            && *c.lo() == 0
            && c.hi().get_exp().is_some_and(|e| e <= rug::float::exp_min() + 1);
        let why = match c.note() {
            _ if beyond => format!(
                "an ε above {ceiling:.6e} (= emax·ln 2, emax = {}) needs e^ε beyond MPFR's exponent range, which tightdp's engines do not pass",
                rug::float::exp_max()
            ),
            _ if underflow => format!(
                "{what} lies below MPFR's exponent range (its smallest positive number is 2^{}), which no engine passes",
                rug::float::exp_min() as i64 - 1
            ),
            Some(n) => n.to_string(),
            None => format!("the {} engine resolves no more", c.engine().as_str()),
        };
        if d > 0 {
            let s = if d == 1 { "" } else { "s" };
            return Ok(c.with_note(format!("wider than the {target} digits asked: {d} digit{s} certified, because {why}")));
        }
        // no digit: what the enclosure still certifies (for ε the upper end bounds ε from above, for δ and
        // β = f(α) the upper end bounds the probability), and what to try
        let bound = match (c.lo().is_zero(), c.hi().is_finite()) {
            (true, true) => format!("only the upper bound {what} <= {} is certified", c.hi_str(6)),
            (false, true) => format!("{what} is only enclosed in [{}, {}] (its upper end is a certified bound)", c.lo_str(6), c.hi_str(6)),
            (false, false) => format!("only the lower bound {what} >= {} is certified", c.lo_str(6)),
            (true, false) => "no bound is certified".to_string(),
        };
        let tries = if underflow {
            String::new()
        } else if beyond && self.comp.rho().is_some() && self.comp.pure_epsilon().is_none() {
            "; --method zcdp-cks gives a certified upper bound".to_string()
        } else {
            format!("; {}", self.what_to_try(q, c.engine(), why.contains("the finest step the engine refines to")))
        };
        Ok(c.with_note(format!("0 digits certified: {bound}, because {why}{tries}")))
    }

    /// What to try when no engine the accountant chose certified a digit.
    /// `finest`: the pld grid's refinement stopped at its finest step (not at the time budget).
    fn what_to_try(&self, q: Query, engine: Engine, finest: bool) -> String {
        let mut tries = Vec::new();
        if engine == Engine::Pld {
            match &self.opts.grid {
                // a step the user fixed: a finer one (the grid budget does not apply)
                Some(h) => tries.push(format!("a finer --grid than {}", crate::num::format::fmt_rational(h))),
                // a longer budget buys no step finer than the finest the refinement takes
                None if finest => tries.push(format!("a fixed --grid finer than {:e}", super::engines::pld_grid::PLD_FINEST_STEP)),
                None => tries.push(format!("a larger --grid-budget (now {} work units) for a finer grid", self.opts.grid_work)),
            }
        }
        if self.comp.has_law() {
            // the lattice engines do not take these mechanisms
        } else if engine != Engine::Lattice || self.opts.arith.is_some() {
            let o = self.initial_opts(q, true);
            let o = LatticeOpts { arith: Arith::Mpfr(self.work_prec() + 16), ..o };
            if estimated_window_shifts(&self.shifts, o.depth) <= MAX_WINDOW {
                tries.push(format!("--method lattice (MPFR; estimated {:.0} s)", self.estimated_seconds(&o).max(1.0)));
            }
        }
        // (a pure-DP composition's ε is already capped by Σ ε_i, which the zCDP bound does not beat)
        if !matches!(q, Query::Tradeoff(_))
            && !self.opts.method.is_conversion()
            && self.comp.rho().is_some()
            && self.comp.pure_epsilon().is_none()
        {
            tries.push("--method zcdp-cks (a certified upper bound)".into());
        }
        if tries.is_empty() {
            "no other certified engine applies".into()
        } else {
            format!("try {}", tries.join(" or "))
        }
    }
}

/// The largest ε whose e^ε MPFR represents: emax·ln 2 (emax = 2^30 − 1 by default: ≈ 7.44e8).
pub(super) fn exp_range_epsilon() -> f64 {
    rug::float::exp_max() as f64 * std::f64::consts::LN_2
}
