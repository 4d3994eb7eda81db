//! `tightdp synth`: synthetic persons and geography for SafeTab-P (deterministic from --seed).

use crate::error::Fallible;
use crate::tabulation::safetab_prod::{ProductionSpecs, CONFIG};
use crate::tabulation::safetab_spec::{Config, Spec};
use crate::tabulation::synth::{synth, CodePools, SynthParams};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Output directory (persons.csv, geography.txt)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Number of synthetic states
    #[arg(long, default_value_t = 3)]
    pub states: u32,
    /// Counties per synthetic state
    #[arg(long, default_value_t = 4)]
    pub counties: u32,
    /// tracts per county
    #[arg(long, default_value_t = 5)]
    pub tracts: u32,
    /// blocks per tract
    #[arg(long, default_value_t = 4)]
    pub blocks: u32,
    /// Number of synthetic persons in all (spread over the blocks)
    #[arg(long, default_value_t = 10_000)]
    pub persons: u64,
    /// Seed of the random draws: the same seed, the same output
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw race and ethnicity codes from the Census Bureau's 2020 code list and use the real state
    /// codes (safetab/production/: race-and-ethnicity-codes.txt and the iteration files, state_filter_us
    /// of config.json; built in, or of --data DIR)
    #[arg(long)]
    pub production: bool,
    /// Add Puerto Rico (state 72) with as many counties, tracts and blocks as a state
    #[arg(long)]
    pub puerto_rico: bool,
    /// Take the production files from DIR/safetab/production/ instead of the copies built into the binary
    #[arg(long, value_name = "DIR", requires = "production")]
    pub data: Option<PathBuf>,
    /// Replace a non-empty --out that does not hold an earlier `synth` run, or one that also holds
    /// files `synth` does not write
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: SynthArgs) -> Fallible<String> {
    let (codes, state_codes) = if a.production {
        let d = a.data.as_deref();
        let its = crate::tabulation::safetab_prod::iterations(&ProductionSpecs::resolve(d))?;
        let cfg = Config::from_spec(&Spec::resolve(None, d, CONFIG))?;
        (Some(CodePools::from_iterations(&its)?), cfg.state_filter_us)
    } else {
        (None, None)
    };
    let p = SynthParams {
        states: a.states,
        counties_per_state: a.counties,
        tracts_per_county: a.tracts,
        blocks_per_tract: a.blocks,
        persons: a.persons,
        seed: a.seed,
        codes,
        state_codes,
        puerto_rico: a.puerto_rico,
    };
    // all or nothing: written into a staging directory, swapped into place at the end
    let run = crate::rundir::RunDir::begin_owned(&a.out, "synth", a.force, &["geography.txt", "persons.csv"])?;
    let (b, n) = synth(&p, run.path(), std::io::stderr().is_terminal())?;
    run.commit()?;
    Ok(format!("wrote {} ({b} blocks) and {} ({n} persons)\n", a.out.join("geography.txt").display(), a.out.join("persons.csv").display()))
}
