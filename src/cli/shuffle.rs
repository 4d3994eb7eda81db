//! `tightdp shuffle`: shuffled batches (shuffle and iterate) — a certified lower bound on ε (or δ) from one
//! explicit attack (`attack::shuffle`), beside the certified Poisson accounting of the same expected batch
//! size (q = 1/T over T·E steps), which practitioners often quote for shuffled training.

use crate::app::shuffle::{shuffle_row, ShuffleQuery, ShuffleRow};
use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::record::{render_rows, Format};
use clap::Args;

#[derive(Args, Debug)]
pub struct ShuffleArgs {
    /// Noise multiplier σ: the standard deviation of the Gaussian noise on each batch's sum of gradients
    /// clipped to norm 1 (decimal or fraction)
    #[arg(long, allow_hyphen_values = true, value_name = "S")]
    pub sigma: String,
    /// Batches (steps) per epoch T
    #[arg(long, value_name = "T")]
    pub steps: u64,
    /// Epochs E (each reshuffles)
    #[arg(long, value_name = "E", default_value_t = 1)]
    pub epochs: u64,
    /// δ at which to bound ε from below
    #[arg(long, allow_hyphen_values = true, value_name = "D", conflicts_with = "epsilon")]
    pub delta: Option<String>,
    /// ε at which to bound δ from below
    #[arg(long, allow_hyphen_values = true, value_name = "E")]
    pub epsilon: Option<String>,
    /// Neighbour relation: add-remove (the record, gradient +1, present or absent; the others' gradients 0)
    /// or replace (its gradient +1 replaced by −1; the others' −1)
    #[arg(long, value_name = "REL", default_value = "add-remove")]
    pub neighbors: String,
    /// Correct significant digits asked of the Poisson accounting beside the bound
    #[arg(long, value_name = "D", default_value_t = 6)]
    pub digits: u32,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub fn run(a: ShuffleArgs) -> Fallible<String> {
    let sigma = parse_rational(&a.sigma).map_err(|e| e.context("--sigma"))?;
    let query = match (&a.delta, &a.epsilon) {
        (Some(d), None) => ShuffleQuery::Epsilon(parse_rational(d).map_err(|e| e.context("--delta"))?),
        (None, Some(e)) => ShuffleQuery::Delta(parse_rational(e).map_err(|e| e.context("--epsilon"))?),
        _ => return fallible!(Input, "give --delta D (a lower bound of epsilon) or --epsilon E (a lower bound of delta)"),
    };
    let r = shuffle_row(&sigma, a.steps, a.epochs, &query, &a.neighbors, a.digits)?;
    let row = if a.format == Format::Csv { r.with_columns(&crate::record::columns::<ShuffleRow>())? } else { r };
    Ok(render_rows(&[row], a.format))
}
