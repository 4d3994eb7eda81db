//! `tightdp tradeoff`: the exact trade-off function as its knots (α, β) = (P[V ≥ c], P[V ≥ D+1−c])
//! (census-2020-more-private-fdp.txt Theorem A.7 for n = 1, eqs. A.5/A.6 for n ≥ 1), certified, and
//! f(α) at requested type I errors by linear interpolation between knots (f is piecewise linear).

use crate::cli::common::{resolve, TargetArgs};
use crate::num::format::{fmt_down, fmt_up};
use crate::num::parse_rational;
use crate::pld::compose_groups;
use crate::report::output::render_rows;
use crate::report::Record;
use clap::Args;

#[derive(Args, Debug)]
pub struct TradeoffArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// At most this many knots, evenly thinned in α (all knots with α, β > 1e-300 when 0)
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub points: usize,
    /// Evaluate f(α) at these type I errors instead of listing knots (comma-separated)
    #[arg(long, value_name = "A,B,…")]
    pub alpha: Option<String>,
}

pub fn run(a: TradeoffArgs) -> Result<String, String> {
    if a.target.grid.is_some() || a.target.method != crate::cli::common::Method::Lattice {
        return Err("tradeoff uses the exact lattice accountant (no --method or --grid)".into());
    }
    let t = resolve(&a.target)?;
    let prof = compose_groups(&t.groups, a.target.prec)?;
    let mut rows = Vec::new();
    if let Some(list) = &a.alpha {
        for s in list.split(',') {
            let al = parse_rational(s.trim()).map_err(|e| format!("alpha: {e}"))?;
            if !(0..=1).contains(&al) {
                return Err(format!("alpha must be in [0, 1], got '{}'", s.trim()));
            }
            let f = prof.tradeoff(&al)?;
            let mut r = Record::new();
            r.push("alpha", s.trim());
            r.push("beta_lo", fmt_down(&f.lo, 25));
            r.push("beta_hi", fmt_up(&f.hi, 25));
            rows.push(r);
        }
        return Ok(render_rows(&rows, a.target.format));
    }
    let (lo, hi) = prof.knots_window();
    let knots: Vec<_> = prof.knots(lo, hi).into_iter().filter(|k| k.alpha.hi > 1e-300 && k.beta.hi > 1e-300).collect();
    let step = if a.points == 0 || knots.len() <= a.points { 1 } else { knots.len().div_ceil(a.points) };
    for (i, k) in knots.iter().enumerate() {
        if i % step != 0 && i + 1 != knots.len() {
            continue;
        }
        let mut r = Record::new();
        r.push("k", k.k.to_string());
        r.push("alpha_lo", fmt_down(&k.alpha.lo, 25));
        r.push("alpha_hi", fmt_up(&k.alpha.hi, 25));
        r.push("beta_lo", fmt_down(&k.beta.lo, 25));
        r.push("beta_hi", fmt_up(&k.beta.hi, 25));
        rows.push(r);
    }
    Ok(render_rows(&rows, a.target.format))
}
