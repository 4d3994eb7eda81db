//! `tightdp safetab-p`: run SafeTab-P on a persons file; writes t1.txt, t2.txt and manifest.json.

use crate::mech::safetab_p::{run_with, Inputs};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SafetabPArgs {
    /// Persons CSV (QAGE,QSEX,TABBLKST,TABBLKCOU,TABTRACTCE,TABBLK,QRACE1..QRACE8,QSPAN)
    #[arg(long, value_name = "CSV")]
    pub persons: PathBuf,
    /// Geography file (block → place, AIANNH)
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Run configuration (budgets, γ, stability, thresholds)
    #[arg(long, value_name = "TOML", default_value = "data/safetab/config.toml")]
    pub config: PathBuf,
    /// Characteristic iterations
    #[arg(long, value_name = "FILE", default_value = "data/safetab/iterations.txt")]
    pub iterations: PathBuf,
    /// Race/ethnicity code → iteration map
    #[arg(long, value_name = "FILE", default_value = "data/safetab/race-codes.txt")]
    pub race_codes: PathBuf,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Reproducible noise from this seed: the output is marked NOT FOR RELEASE
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replace a non-empty --out that does not hold an earlier `safetab-p` run
    #[arg(long)]
    pub force: bool,
    /// Skip Algorithm 4 (coterminous geographies, §5.3.3): release the independent counts of
    /// geographic entities with identical blocks as drawn (by default the highest unsuppressed one
    /// is copied to the others, as in production)
    #[arg(long)]
    pub no_coterminous: bool,
}

pub fn run(a: SafetabPArgs) -> Result<String, String> {
    let inp = Inputs::load(&a.config, &a.iterations, &a.race_codes, &a.geography)?;
    let t0 = std::time::Instant::now();
    // a mechanism releases nothing on error: the tables are staged and swapped into place at the end
    let run = crate::rundir::RunDir::begin_owned(&a.out, "safetab-p", a.force, &["t1.txt", "t2.txt", "manifest.json"])?;
    let s = run_with(&inp, &a.persons, run.path(), a.seed, std::io::stderr().is_terminal(), !a.no_coterminous)?;
    run.commit()?;
    let mut o = String::new();
    if a.seed.is_some() {
        o += "WARNING: seeded run — reproducible noise, NOT FOR RELEASE\n";
    }
    o += &format!(
        "persons {}\ngroups {}\nt1_rows {}\nt2_rows {}\nsuppressed {}\nnoise_draws {}\ncoterminous_sets {}\ncoterminous_replaced {}\nseconds {:.2}\nwrote {}/t1.txt, t2.txt, manifest.json\n",
        s.persons,
        s.groups,
        s.t1_rows,
        s.t2_rows,
        s.suppressed,
        s.noise_draws,
        if a.no_coterminous { "skipped (--no-coterminous)".to_string() } else { s.coterminous_sets.to_string() },
        s.coterminous_replaced,
        t0.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(o)
}
