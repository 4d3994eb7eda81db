//! Output: key/value records as table, CSV or JSON; atomic file writes; result tables.
pub mod bars;
pub mod csvplot;
pub mod figures;
pub mod output;
pub mod plot;
pub mod realdata;
pub mod tables;

pub use output::{Format, Record};
