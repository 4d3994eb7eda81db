//! `tightdp safetab-p`: run SafeTab-P on a persons file; writes t1.txt, t2.txt and manifest.json.

use crate::mech::safetab_p::{run_with, Inputs};
use crate::mech::safetab_spec::Spec;
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
    /// Run configuration (budgets, γ, stability, thresholds) [default: config.toml of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "TOML")]
    pub config: Option<PathBuf>,
    /// Characteristic iterations [default: iterations.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub iterations: Option<PathBuf>,
    /// Race/ethnicity code → iteration map [default: race-codes.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub race_codes: Option<PathBuf>,
    /// Take the default specification files from DIR/safetab/ instead of the copies built into the binary
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Reproducible noise from this seed: the output is marked NOT FOR RELEASE
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replace a non-empty --out that does not hold an earlier `safetab-p` run, or one that also holds
    /// files `safetab-p` does not write
    #[arg(long)]
    pub force: bool,
    /// Skip Algorithm 4 (coterminous geographies, §5.3.3): release the independent counts of
    /// geographic entities with identical blocks as drawn (by default the highest unsuppressed one
    /// is copied to the others, as in production)
    #[arg(long)]
    pub no_coterminous: bool,
}

pub fn run(a: SafetabPArgs) -> Result<String, String> {
    let d = a.data.as_deref();
    let inp = Inputs::from_specs(
        &Spec::resolve(a.config.as_deref(), d, "config.toml"),
        &Spec::resolve(a.iterations.as_deref(), d, "iterations.txt"),
        &Spec::resolve(a.race_codes.as_deref(), d, "race-codes.txt"),
        &a.geography,
    )?;
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
