//! `tightdp synth`: synthetic persons and geography for SafeTab-P (deterministic from --seed).

use crate::mech::synth::{synth, SynthParams};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Output directory (persons.csv, geography.txt)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 3)]
    pub states: u32,
    #[arg(long, default_value_t = 4)]
    pub counties: u32,
    /// tracts per county
    #[arg(long, default_value_t = 5)]
    pub tracts: u32,
    /// blocks per tract
    #[arg(long, default_value_t = 4)]
    pub blocks: u32,
    #[arg(long, default_value_t = 10_000)]
    pub persons: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Replace a non-empty --out that does not hold an earlier `synth` run, or one that also holds
    /// files `synth` does not write
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: SynthArgs) -> Result<String, String> {
    let p = SynthParams {
        states: a.states,
        counties_per_state: a.counties,
        tracts_per_county: a.tracts,
        blocks_per_tract: a.blocks,
        persons: a.persons,
        seed: a.seed,
    };
    // all or nothing: written into a staging directory, swapped into place at the end
    let run = crate::rundir::RunDir::begin_owned(&a.out, "synth", a.force, &["geography.txt", "persons.csv"])?;
    let (b, n) = synth(&p, run.path(), std::io::stderr().is_terminal())?;
    run.commit()?;
    Ok(format!("wrote {} ({b} blocks) and {} ({n} persons)\n", a.out.join("geography.txt").display(), a.out.join("persons.csv").display()))
}
