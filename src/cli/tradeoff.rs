//! `tightdp tradeoff`: the exact trade-off function — its vertices (α_k, β_k), the errors of the
//! likelihood-ratio tests ([SSW24, Theorem A.7] for n = 1, eqs. A.5/A.6 for n ≥ 1),
//! or f(α) at requested type I errors — as certified brackets from the accountant.

use crate::account::Method;
use crate::cli::common::{accountant, parse_list, resolve, TargetArgs};
use crate::cli::epsilon::{header, out_digits, push_bracket};
use crate::error::Fallible;
use crate::fallible;
use crate::num::format::{fmt_down, fmt_up};
use crate::num::parse_rational;
use crate::record::{render_rows, Format};
use clap::Args;

#[derive(Args, Debug)]
pub struct TradeoffArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// At most this many knots, evenly thinned in α (all knots with α, β > 1e-300 when 0; default 200)
    #[arg(long, value_name = "N")]
    pub points: Option<usize>,
    /// Evaluate f(α) at these type I errors instead of listing knots (comma-separated)
    #[arg(long, value_name = "A,B,…")]
    pub alpha: Option<String>,
}

/// The CSV columns of `tradeoff --alpha` (an empty cell where a field does not apply).
pub const ALPHA_COLUMNS: &[&str] =
    &["target", "neighbors", "method", "trust", "alpha", "beta_lo", "beta_hi", "beta_width", "digits", "detail", "note"];

pub fn run(a: TradeoffArgs) -> Fallible<String> {
    if let (Some(_), Some(_)) = (a.points, &a.alpha) {
        return fallible!(Input, "--points thins the list of knots; --alpha evaluates f at given points instead: give one of them");
    }
    if a.target.width.is_some() {
        return fallible!(
            Input,
            "--width sets the smoothed inversion's epsilon bracket; the trade-off function comes from the lattice and does not use it"
        );
    }
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    // the exact trade-off function comes from the lattice (or its Fourier inversion), a composition with
    // other mechanisms' from the pld grid (`--method grid --grid G` fixes its step; the accountant refuses
    // it for lattice-only compositions); another method would be silently ignored
    if !matches!(acc.options().method, Method::Auto | Method::Lattice | Method::LatticeFourier | Method::Grid | Method::Conditioned) {
        return fallible!(
            Input,
            "the trade-off function is computed on the lattice; --method {} does not give it (use --method auto or lattice)",
            acc.options().method.as_str()
        );
    }
    let mut rows = Vec::new();
    if let Some(list) = &a.alpha {
        let alphas = parse_list(list, "alpha", |s| {
            let al = parse_rational(s).map_err(|e| e.context("alpha"))?;
            if !(0..=1).contains(&al) {
                return fallible!(Input, "alpha must be in [0, 1], got '{s}'");
            }
            Ok(al)
        })?;
        for (s, al) in alphas {
            let f = acc.tradeoff(&al)?;
            let mut r = header(&t);
            r.push("method", f.engine().as_str());
            r.push("trust", f.trust().as_str());
            r.push("alpha", s);
            push_bracket(&mut r, "beta", &f, out_digits(&a.target));
            rows.push(if a.target.format == Format::Csv { r.with_columns(ALPHA_COLUMNS)? } else { r });
        }
        return Ok(render_rows(&rows, a.target.format));
    }
    for k in acc.knots(a.points.unwrap_or(200))? {
        let mut r = crate::record::Record::new();
        r.push("k", k.k.to_string());
        r.push("alpha_lo", fmt_down(k.alpha.lo(), 25));
        r.push("alpha_hi", fmt_up(k.alpha.hi(), 25));
        r.push("beta_lo", fmt_down(k.beta.lo(), 25));
        r.push("beta_hi", fmt_up(k.beta.hi(), 25));
        rows.push(r);
    }
    Ok(render_rows(&rows, a.target.format))
}
