//! `tightdp tradeoff`: the exact trade-off function — its vertices (α_k, β_k), the errors of the
//! likelihood-ratio tests ([SSW24, Theorem A.7] for n = 1, eqs. A.5/A.6 for n ≥ 1),
//! or f(α) at requested type I errors — as certified brackets from the accountant.

use crate::account::Method;
use crate::cli::common::{accountant, parse_list, resolve, TargetArgs};
use crate::cli::epsilon::{out_digits, printed};
use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::record::{columns, render_rows, row, Format};
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct TradeoffArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// At most this many knots, evenly thinned in α (all knots with α, β > 1e-300 when 0; default 200)
    #[arg(long, value_name = "N")]
    pub points: Option<usize>,
    /// Evaluate f(α) at these type I errors instead of listing knots (comma-separated)
    #[arg(long, allow_hyphen_values = true, value_name = "A,B,…")]
    pub alpha: Option<String>,
}

/// A row of `tradeoff --alpha`: f(α) (its fields are the CSV columns, in order).
#[derive(Serialize, Default)]
pub struct AlphaRow {
    pub target: String,
    pub neighbors: String,
    pub method: String,
    pub trust: String,
    pub alpha: String,
    pub beta_lo: String,
    pub beta_hi: String,
    pub beta_width: String,
    pub digits: String,
    pub detail: Option<String>,
    pub note: Option<String>,
}

/// A row of `tradeoff`'s list of knots: the k-th vertex (α_k, β_k), its ends to 25 digits outward, and the
/// digits each printed bracket supports (few where a coordinate is tiny beside its bracket's certified error).
#[derive(Serialize)]
pub struct KnotRow {
    pub k: String,
    pub alpha_lo: String,
    pub alpha_hi: String,
    pub alpha_digits: String,
    pub beta_lo: String,
    pub beta_hi: String,
    pub beta_digits: String,
}

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
        let cols = columns::<AlphaRow>();
        for (s, al) in alphas {
            let f = acc.tradeoff(&al)?;
            let p = printed(&f, out_digits(&a.target));
            let r = row(&AlphaRow {
                target: t.label.clone(),
                neighbors: t.comp.neighbors().as_str().into(),
                method: f.engine().as_str().into(),
                trust: f.trust().as_str().into(),
                alpha: s,
                beta_lo: p.lo,
                beta_hi: p.hi,
                beta_width: p.width,
                digits: p.digits,
                detail: p.detail,
                note: p.note,
            })?;
            rows.push(if a.target.format == Format::Csv { r.with_columns(&cols)? } else { r });
        }
        return Ok(render_rows(&rows, a.target.format));
    }
    for k in acc.knots(a.points.unwrap_or(200))? {
        let (alpha, beta) = (k.alpha.printed(25), k.beta.printed(25));
        rows.push(row(&KnotRow {
            k: k.k.to_string(),
            alpha_digits: alpha.digits_field(),
            alpha_lo: alpha.lo,
            alpha_hi: alpha.hi,
            beta_digits: beta.digits_field(),
            beta_lo: beta.lo,
            beta_hi: beta.hi,
        })?);
    }
    Ok(render_rows(&rows, a.target.format))
}
