//! `tightdp reproduce`: the main job — every table (and, as they land, figures and verification).

use crate::cli::common::check_prec;
use crate::census::Allocation;
use crate::num::{parse_rational, DEFAULT_PREC};
use crate::report::output::{render_csv, write_atomic};
use crate::report::tables;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Output directory
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Directory holding the bundled data (allocations, published values)
    #[arg(long, value_name = "DIR", default_value = "data")]
    pub data: PathBuf,
    /// Working precision in bits
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
}

pub fn run(a: ReproduceArgs) -> Result<String, String> {
    let prec = check_prec(a.prec)?;
    let alloc = Allocation::from_path(&a.data.join("allocations/dhc-2022-08-25.toml"))?;
    let deltas = vec![parse_rational("1e-11").unwrap(), parse_rational("1e-5").unwrap()];
    let mut log = String::new();
    // Compute everything first, then write: nothing half-written on failure.
    let rows = tables::geolevel_epsilons(&alloc, &deltas, prec)?;
    let files = vec![(a.out.join("geolevel-epsilons.csv"), render_csv(&rows))];
    for (path, body) in files {
        write_atomic(&path, body.as_bytes())?;
        log += &format!("wrote {}\n", path.display());
    }
    Ok(log)
}
