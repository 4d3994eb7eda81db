//! `tightdp plot`: figures of a user's own allocation (src/plots/allocation.rs), written all or nothing.

use crate::census::Allocation;
use crate::cli::common::check_prec;
use crate::error::Fallible;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Allocation file (TOML), or the name of a built-in allocation (e.g. dhc-2022-08-25)
    #[arg(long, value_name = "FILE")]
    pub allocation: PathBuf,
    /// Output directory: epsilon-delta, tradeoff, attack-risk (.png, .svg, .csv each) and calibration.csv
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Expert override of the MPFR working precision in bits of the per-level lattices
    #[arg(long, value_name = "BITS", default_value_t = crate::num::DEFAULT_PREC)]
    pub prec: u32,
    /// Replace a non-empty --out that does not hold an earlier `plot` run
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: PlotArgs) -> Fallible<String> {
    let prec = check_prec(a.prec)?;
    let alloc = Allocation::from_path(&a.allocation)?;
    // all or nothing: staged beside --out, swapped into place with its completion marker at the end
    let run = crate::rundir::RunDir::begin(&a.out, "plot", a.force)?;
    let files = crate::plots::allocation::write_all(&alloc, run.path(), prec)?;
    let finals: Vec<PathBuf> = files.iter().map(|f| run.final_path(f)).collect();
    run.commit()?;
    Ok(finals.iter().map(|f| format!("wrote {}\n", f.display())).collect())
}
