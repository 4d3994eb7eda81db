//! `tightdp safetab`: run SafeTab (Detailed DHC race & ethnicity; RE Alg. 1–5) on a persons file with
//! geometric or discrete Gaussian noise (per the configuration); writes t1.txt, t2.txt, moe.csv and
//! manifest.json, all or nothing.

use crate::error::Fallible;
use crate::tabulation::safetab::{run as run_re, ReConfig};
use crate::tabulation::safetab_prod::IterationFiles;
use crate::tabulation::safetab_spec::{Geography, Spec};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SafetabArgs {
    /// Run configuration: noise (geometric | discrete-gaussian), γ, stability, levels with budgets, MOE targets, thresholds
    /// [default: DIR/safetab/safetab-geometric.toml with --data DIR, else the built-in copy]
    #[arg(long, value_name = "TOML")]
    pub config: Option<PathBuf>,
    /// Take the default specification files from DIR/safetab/ instead of the copies built into the binary
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Persons CSV (QAGE,QSEX,TABBLKST,TABBLKCOU,TABTRACTCE,TABBLK,QRACE1..QRACE8,QSPAN)
    #[arg(long, value_name = "CSV")]
    pub persons: PathBuf,
    /// Geography file (block → place, AIANNH), e.g. from `tightdp synth`
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Characteristic iterations (TOTAL_ONLY = the TotalOnly set of RE Alg. 2, at every geography)
    /// [default: iterations-re.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub iterations: Option<PathBuf>,
    /// Race/ethnicity code → iteration map [default: race-codes.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub race_codes: Option<PathBuf>,
    /// Use the Census Bureau's 2020 production iteration and code files (safetab/production/, the
    /// Detailed DHC-A's 2,996 iterations; DETAILED_ONLY iterations are the TotalOnly set)
    #[arg(long, conflicts_with_all = ["iterations", "race_codes"])]
    pub production: bool,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Reproducible noise from this seed: the output is marked NOT FOR RELEASE
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replace a non-empty --out that does not hold an earlier `safetab` run, or one that also holds
    /// files `safetab` does not write
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: SafetabArgs) -> Fallible<String> {
    // every public input is validated before the output directory is touched
    let d = a.data.as_deref();
    let spec = Spec::resolve(a.config.as_deref(), d, "safetab-geometric.toml");
    let cfg = ReConfig::parse(&spec.text()?, &spec.name())?;
    let its = IterationFiles::resolve(a.production, a.iterations.as_deref(), a.race_codes.as_deref(), d, "iterations-re.txt").load()?;
    let geo = Geography::load(&a.geography)?;
    let t0 = std::time::Instant::now();
    let run = crate::rundir::RunDir::begin_owned(&a.out, "safetab", a.force, &["t1.txt", "t2.txt", "moe.csv", "manifest.json"])?;
    let (s, _) = run_re(&cfg, &its, &geo, &a.persons, run.path(), a.seed, std::io::stderr().is_terminal())?;
    run.commit()?;
    let mut o = String::new();
    if a.seed.is_some() {
        o += "WARNING: seeded run — reproducible noise, NOT FOR RELEASE\n";
    }
    o += &format!(
        "noise {}\npersons {}\niterations {}\ngroups {}\ntotal_only {}\nstep2_total {}\nstep2_age4 {}\nstep2_age9 {}\nstep2_age23 {}\nt1_rows {}\nt2_rows {}\nnoise_draws {}\nseconds {:.2}\nwrote {}/t1.txt, t2.txt, moe.csv, manifest.json\n",
        cfg.noise.name(),
        s.persons,
        its.list.len(),
        s.groups,
        s.total_only,
        s.branch[0],
        s.branch[1],
        s.branch[2],
        s.branch[3],
        s.t1_rows,
        s.t2_rows,
        s.noise_draws,
        t0.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(o)
}
