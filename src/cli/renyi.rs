//! `tightdp renyi`: the Rényi divergences D_α of a composition at given orders, certified (the RDP
//! accountants' currency, `account::renyi`), and with `--rho` its tight zCDP parameter sup_α D_α/α.

use crate::cli::common::{accountant, parse_list, resolve, TargetArgs};
use crate::cli::epsilon::{out_digits, printed};
use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::record::{columns, render_rows, row, Format};
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct RenyiArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Rényi orders α > 1 at which to give D_α (comma-separated)
    #[arg(long, allow_hyphen_values = true, value_name = "A,B,…")]
    pub alpha: Option<String>,
    /// The tight zCDP parameter ρ = sup over α > 1 of D_α/α
    #[arg(long)]
    pub rho: bool,
}

/// A row of `renyi`: a divergence at one order, or the tight ρ (`alpha` empty); its fields are the CSV
/// columns, in order.
#[derive(Serialize, Default)]
pub struct RenyiRow {
    pub target: String,
    pub neighbors: String,
    pub method: String,
    pub trust: String,
    pub measure: String,
    pub alpha: String,
    pub value_lo: String,
    pub value_hi: String,
    pub value_width: String,
    pub digits: String,
    pub detail: Option<String>,
    pub note: Option<String>,
}

/// The CSV columns of `renyi` (an empty cell where a field does not apply).
pub fn renyi_columns() -> Vec<String> {
    columns::<RenyiRow>()
}

pub fn run(a: RenyiArgs) -> Fallible<String> {
    if a.alpha.is_none() && !a.rho {
        return fallible!(Input, "give --alpha A,B,... (Renyi divergences at those orders) or --rho (the tight zCDP parameter), or both");
    }
    if a.target.method != crate::account::Method::Auto || a.target.width.is_some() {
        return fallible!(Input, "renyi computes each law's divergence directly: --method and --width do not apply");
    }
    let alphas = match &a.alpha {
        None => Vec::new(),
        Some(list) => parse_list(list, "alpha", |s| {
            let al = parse_rational(s).map_err(|e| e.context("alpha"))?;
            if al <= 1 {
                return fallible!(Input, "the Renyi order alpha must be greater than 1, got '{s}'");
            }
            Ok(al)
        })?,
    };
    let t = resolve(&a.target)?;
    let acc = accountant(&a.target, &t)?;
    let mut rows = Vec::new();
    let mut results = Vec::new();
    for (s, al) in &alphas {
        results.push(("renyi_divergence", s.clone(), acc.renyi(al)?));
    }
    if a.rho {
        results.push(("tight_zcdp_rho", String::new(), acc.tight_rho()?));
    }
    let cols = renyi_columns();
    for (measure, s, c) in results {
        let p = printed(&c, out_digits(&a.target));
        let r = row(&RenyiRow {
            target: t.label.clone(),
            neighbors: t.comp.neighbors().as_str().into(),
            method: c.engine().as_str().into(),
            trust: c.trust().as_str().into(),
            measure: measure.into(),
            alpha: s,
            value_lo: p.lo,
            value_hi: p.hi,
            value_width: p.width,
            digits: p.digits,
            detail: p.detail,
            note: p.note,
        })?;
        rows.push(if a.target.format == Format::Csv { r.with_columns(&cols)? } else { r });
    }
    Ok(render_rows(&rows, a.target.format))
}
