//! `tightdp safetab-p`: run SafeTab-P on a persons file; writes t1.txt, t2.txt and manifest.json.

use crate::error::Fallible;
use crate::fallible;
use crate::tabulation::safetab_p::{run_with, Inputs};
use crate::tabulation::safetab_prod::{IterationFiles, CONFIG};
use crate::tabulation::safetab_spec::{Pass, Spec};
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
    /// Run configuration: TOML (budgets, γ, stability, thresholds) or the Bureau's config.json as it is
    /// [default: config.toml of --data DIR/safetab/, else the built-in copy; with --production production/config.json]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Characteristic iterations [default: iterations.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub iterations: Option<PathBuf>,
    /// Race/ethnicity code → iteration map [default: race-codes.txt of --data DIR/safetab/, else the built-in copy]
    #[arg(long, value_name = "FILE")]
    pub race_codes: Option<PathBuf>,
    /// Use the Census Bureau's 2020 production parameter files (safetab/production/: config.json and the
    /// 2,996 characteristic iterations with their race/ethnicity codes), as they are
    #[arg(long, conflicts_with_all = ["iterations", "race_codes"])]
    pub production: bool,
    /// Passes to run, overriding the configuration's run_us / run_pr: us, pr or us,pr (the US and the
    /// Puerto Rico pass, safetab-p §5.4.2)
    #[arg(long, value_name = "LIST")]
    pub passes: Option<String>,
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

/// `--passes`: a comma-separated list of `us` and `pr`.
pub fn parse_passes(s: &str) -> Fallible<Vec<Pass>> {
    let mut out = Vec::new();
    for p in s.split(',') {
        let pass = match p.trim().to_ascii_lowercase().as_str() {
            "us" => Pass::Us,
            "pr" => Pass::Pr,
            o => return fallible!(Input, "--passes: unknown pass '{o}' (us, pr or us,pr)"),
        };
        if out.contains(&pass) {
            return fallible!(Input, "--passes: '{}' listed twice", p.trim());
        }
        out.push(pass);
    }
    Ok(out)
}

pub fn run(a: SafetabPArgs) -> Fallible<String> {
    let d = a.data.as_deref();
    let passes = a.passes.as_deref().map(parse_passes).transpose()?;
    let config = Spec::resolve(a.config.as_deref(), d, if a.production { CONFIG } else { "config.toml" });
    let files = IterationFiles::resolve(a.production, a.iterations.as_deref(), a.race_codes.as_deref(), d, "iterations.txt");
    let mut inp = Inputs::from_files(&config, &files, &a.geography)?;
    if let Some(p) = passes {
        inp.config = inp.config.with_passes(&p).map_err(|e| e.context("--passes"))?;
    }
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
        "persons {}\npasses {}\nskipped_persons {}\niterations {}\ngroups {}\nt1_rows {}\nt2_rows {}\nsuppressed {}\nnoise_draws {}\ncoterminous_sets {}\ncoterminous_replaced {}\nseconds {:.2}\nwrote {}/t1.txt, t2.txt, manifest.json\n",
        s.persons,
        s.passes.join(","),
        s.skipped,
        inp.iterations.list.len(),
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
