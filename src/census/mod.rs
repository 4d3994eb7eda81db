//! Census allocation files, geolevels, and published values.
pub mod allocation;
pub mod certificate;
pub mod recompute;
pub mod verify;

pub use allocation::{Allocation, Level};
