//! `tightdp certify MANIFEST --delta D`: exact ε of a mechanism run next to its zCDP / pure-DP totals.

use crate::cli::common::{check_prec, parse_delta};
use crate::mech::manifest::{certify, safetab_p_production, Manifest};
use crate::report::output::render_rows;
use crate::report::Format;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// Manifest JSON written by a mechanism run, or `safetab-p-production` / `safetab-p-production-bounded`
    #[arg(value_name = "MANIFEST")]
    pub manifest: String,
    /// δ in (0, 1)
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Working precision in bits
    #[arg(long, value_name = "BITS", default_value_t = 96)]
    pub prec: u32,
}

pub fn run(a: CertifyArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let prec = check_prec(a.prec)?;
    let m = match a.manifest.as_str() {
        "safetab-p-production" => safetab_p_production(false),
        "safetab-p-production-bounded" => safetab_p_production(true),
        p => Manifest::from_path(&PathBuf::from(p))?,
    };
    Ok(render_rows(&certify(&m, &delta, prec)?, a.format))
}
