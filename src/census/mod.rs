//! Census allocation files: geolevels, their noise and budgets, parsed into the mechanism model.
pub mod allocation;

pub use allocation::{Allocation, Level};
