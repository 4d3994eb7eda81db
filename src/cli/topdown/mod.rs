//! `tightdp topdown …`: geographic spines, TopDown noisy measurements, certification, accuracy.

use crate::error::Fallible;
use clap::{Args, Subcommand};

mod estimate;
mod geography;
mod measure;

use estimate::run_postprocess;
pub use estimate::{run_accuracy, PostprocessArgs, TopdownAccuracyArgs};
use geography::{gen_geography, persons, spine};
pub use geography::{GenGeoArgs, PersonsArgs, SpineArgs};
use measure::run_measure;
pub use measure::{run_certify, MeasureArgs, TopdownCertifyArgs};

#[derive(Args, Debug)]
pub struct TopdownArgs {
    #[command(subcommand)]
    pub cmd: TopdownCmd,
}

#[derive(Subcommand, Debug)]
pub enum TopdownCmd {
    /// Generate a synthetic block-level geography (deterministic from the seed)
    GenGeography(GenGeoArgs),
    /// Generate a synthetic person file for a geography
    Persons(PersonsArgs),
    /// Summarise a spine: geolevels, fan-outs, bypasses, off-spine entity distances
    Spine(SpineArgs),
    /// Noisy measurements: measurements.csv and manifest.json in --out
    Measure(MeasureArgs),
    /// Exact ε(δ) of a measurement manifest (lattice accountant), next to the zCDP conversions
    Certify(TopdownCertifyArgs),
    /// MSE of tree-consistent WLS by geolevel and for off-spine entities: closed form and simulation
    Accuracy(TopdownAccuracyArgs),
    /// TopDown estimation: integer, non-negative, consistent histograms of every geounit from a run
    Postprocess(PostprocessArgs),
}

pub fn run(a: TopdownArgs) -> Fallible<String> {
    match a.cmd {
        TopdownCmd::GenGeography(a) => gen_geography(a),
        TopdownCmd::Persons(a) => persons(a),
        TopdownCmd::Spine(a) => spine(a),
        TopdownCmd::Measure(a) => run_measure(a),
        TopdownCmd::Certify(a) => run_certify(a),
        TopdownCmd::Accuracy(a) => run_accuracy(a),
        TopdownCmd::Postprocess(a) => run_postprocess(a),
    }
}
