//! The smoothed driver: the certified smoothed Fourier inversion (`fourier::smooth`) of ε(δ) and δ(ε),
//! and the certified grid rounding of ε(δ).

use crate::account::vocabulary::SMOOTHED_AUTO_WIDTH;
use crate::account::{injected, smooth_refusal, Accountant, Certified, Engine, Trust};
use crate::error::Fallible;
use crate::fourier::smooth::LapGroup;
use crate::model::{GaussGroup, Noise};
use crate::num::log2_of;
use crate::{err, fallible};
use rug::Rational;

impl Accountant {
    /// The composition's groups as the smoothed inversion takes them: discrete Gaussian groups and discrete
    /// Laplace groups (docs/smoothed-fourier.md §8); any other mechanism declines.
    pub(in crate::account) fn smooth_groups(&self) -> Fallible<(Vec<GaussGroup>, Vec<LapGroup>)> {
        let (mut gauss, mut lap) = (Vec::new(), Vec::new());
        for g in self.comp.shifts() {
            let count = u32::try_from(g.count).map_err(|_| {
                err!(Declined, "{} queries of {} are too many for the smoothed inversion", g.count, g.noise.describe()).over_limits()
            })?;
            match g.noise {
                Noise::Gaussian { sigma2 } => gauss.push(GaussGroup { sigma2, count, mu: g.mu }),
                Noise::Laplace { scale } => lap.push(LapGroup { scale, count, mu: g.mu }),
                Noise::Law(_) => {
                    return fallible!(Declined, "the smoothed inversion handles discrete Gaussian and discrete Laplace noise only")
                }
            }
        }
        Ok((gauss, lap))
    }

    /// Why the smoothed inversion cannot take this composition (None if it can try).
    pub(in crate::account) fn smooth_range_error(&self) -> Option<crate::error::Error> {
        let (g, l) = match self.smooth_groups() {
            Ok(v) => v,
            Err(e) => return Some(e),
        };
        crate::fourier::smooth::check_groups(&g).and_then(|_| crate::fourier::smooth::check_lap(g.len(), &l)).err()
    }

    fn smooth_width(&self, scale: f64) -> f64 {
        self.opts.width.unwrap_or_else(|| (10f64.powi(-(self.opts.digits.min(300) as i32)) * scale.max(1.0)).max(SMOOTHED_AUTO_WIDTH))
    }

    /// The smoothed inversion's certified ε bracket, at the width asked (`width`: an override, from the
    /// accountant's escalation when the lattice is out of reach).
    pub(in crate::account) fn epsilon_smoothed(&self, delta: &Rational, width: Option<f64>) -> Fallible<Certified> {
        injected(Engine::Smoothed)?;
        use crate::fourier::smooth::{epsilon_smooth_mixed, SmoothParams};
        let (groups, lap) = self.smooth_groups()?;
        let r = self.rho().unwrap_or_default().to_f64();
        let l = -log2_of(delta) * std::f64::consts::LN_2;
        let width = width.unwrap_or_else(|| self.smooth_width(r + 2.0 * (r * l).sqrt()));
        let e = epsilon_smooth_mixed(&groups, &lap, delta, &SmoothParams { width, ..Default::default() }).map_err(smooth_refusal)?;
        let tier = if e.precise { "128-bit nodes, sieved; " } else { "" };
        let detail =
            format!("smoothing w = {:.3e}, tilt c = {:.4}, {}{} nodes ({} live{})", e.w, e.c, tier, e.nodes, e.live, period_note(e.period));
        let c = Certified::new(e.interval(), Engine::Smoothed, Trust::Exact, detail)?;
        Ok(if c.meets(self.opts.digits) {
            c
        } else {
            let why = match &e.fallback {
                Some(f) => format!(" (double-precision nodes; the 20-digit tier: {f})"),
                None if e.precise => String::new(),
                None => " (double-precision nodes)".into(),
            };
            c.with_note(format!("the smoothed inversion{why} resolves no more"))
        })
    }

    pub(in crate::account) fn delta_smoothed(&self, eps: &Rational) -> Fallible<Certified> {
        injected(Engine::Smoothed)?;
        use crate::fourier::smooth::{delta_smooth_mixed, SmoothParams};
        let (groups, lap) = self.smooth_groups()?;
        let d = delta_smooth_mixed(&groups, &lap, eps, &SmoothParams { w: Some(1e-4), ..Default::default() }).map_err(smooth_refusal)?;
        let detail =
            format!("smoothing w = {:.3e}, tilt c = {:.4}, {} nodes ({} live{})", d.w, d.c, d.nodes, d.live, period_note(d.period));
        let c = Certified::new(d.interval(), Engine::Smoothed, Trust::Exact, detail)?;
        Ok(if c.meets(self.opts.digits) {
            c
        } else {
            c.with_note("the smoothed inversion of delta(epsilon) works at a fixed smoothing w = 1e-4".into())
        })
    }

    pub(in crate::account) fn epsilon_grid(&self, delta: &Rational) -> Fallible<Certified> {
        let g = self.opts.grid.clone().ok_or_else(|| err!(Input, "--method grid needs --grid G"))?;
        let groups = self.comp.gauss_shifts()?;
        let e = crate::pld::grid::epsilon_by_grid(&groups, &g, delta)?;
        let c = Certified::new(e, Engine::Grid, Trust::Exact, format!("grid {g}"))?;
        Ok(if c.meets(self.opts.digits) {
            c
        } else {
            c.with_note(format!(
                "grid rounding certifies no more at the grid {} (a finer --grid narrows it)",
                crate::num::format::fmt_rational(&g)
            ))
        })
    }
}

/// The smoothed engine's remark on a node step fitted to the loss lattice's period.
fn period_note(period: Option<usize>) -> String {
    period.map_or(String::new(), |m| format!("; step fitted to the loss lattice's period, {m} nodes evaluated per period"))
}
