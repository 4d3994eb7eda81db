//! `tightdp calibrate`: per-level (Table 1) or uniform variance reductions that keep a target ε.

pub use crate::app::calibration::{level_rows, push_bracket, uniform_row, Conversion, REL_WIDTH};
use crate::census::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::num::{parse_rational, DEFAULT_PREC};
use crate::record::render_rows;
use crate::record::Format;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Allocation file (TOML)
    #[arg(long, value_name = "FILE")]
    pub allocation: PathBuf,
    /// δ at which the exact ε is matched to the target
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
    /// Explicit target ε (default: the zCDP-implied ε of the published noise at the same δ)
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub target_epsilon: Option<String>,
    /// Conversion that defines the default target
    #[arg(long, value_enum, default_value = "zcdp-bs")]
    pub conversion: Conversion,
    /// One common variance factor for all levels, matching the overall guarantee
    #[arg(long)]
    pub uniform: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Working precision in bits
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
}

/// Relative width of the certified factor bracket.
pub fn run(a: CalibrateArgs) -> Result<String, String> {
    let prec = check_prec(a.prec)?;
    let delta = parse_delta(&a.delta)?;
    let explicit = match &a.target_epsilon {
        Some(s) => {
            let e = parse_rational(s).map_err(|e| format!("target-epsilon: {e}"))?;
            if e <= 0 {
                return Err(format!("target-epsilon must be positive, got '{s}'"));
            }
            Some(e)
        }
        None => None,
    };
    let alloc = Allocation::from_path(&a.allocation)?;
    let rows = if a.uniform {
        vec![uniform_row(&alloc, &delta, a.conversion, &explicit, prec)?]
    } else {
        level_rows(&alloc, &delta, a.conversion, &explicit, prec)?
    };
    Ok(render_rows(&rows, a.format))
}
