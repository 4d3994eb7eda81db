//! Census allocation files, geolevels, and published values.
pub mod allocation;

pub use allocation::{Allocation, Level, MechGroup, Neighbors};
