//! `tightdp renyi`: the Rényi divergences D_α of a composition at given orders, certified (the RDP
//! accountants' currency, `account::renyi`), and with `--rho` its tight zCDP parameter sup_α D_α/α.

use crate::cli::common::{accountant, parse_list, resolve, TargetArgs};
use crate::cli::epsilon::{header, out_digits, push_bracket};
use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::record::{render_rows, Format};
use clap::Args;

#[derive(Args, Debug)]
pub struct RenyiArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Rényi orders α > 1 at which to give D_α (comma-separated)
    #[arg(long, value_name = "A,B,…")]
    pub alpha: Option<String>,
    /// The tight zCDP parameter ρ = sup over α > 1 of D_α/α
    #[arg(long)]
    pub rho: bool,
}

/// The CSV columns of `renyi` (an empty cell where a field does not apply: `alpha` on the ρ row).
pub const RENYI_COLUMNS: &[&str] =
    &["target", "neighbors", "method", "trust", "measure", "alpha", "value_lo", "value_hi", "value_width", "digits", "detail", "note"];

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
    for (measure, s, c) in results {
        let mut r = header(&t);
        r.push("method", c.engine().as_str());
        r.push("trust", c.trust().as_str());
        r.push("measure", measure);
        r.push("alpha", s);
        push_bracket(&mut r, "value", &c, out_digits(&a.target));
        rows.push(if a.target.format == Format::Csv { r.with_columns(RENYI_COLUMNS)? } else { r });
    }
    Ok(render_rows(&rows, a.target.format))
}
