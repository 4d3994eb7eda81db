//! Lattice privacy-loss distributions: exact laws of the loss statistic, composition, and the
//! privacy profile (δ(ε), ε(δ), trade-off knots) read off them.
pub mod compose;
pub mod discretize;
pub mod estimate;
pub mod fixed;
pub mod frame;
pub mod grid;
pub mod gridpair;
pub mod lattice;
pub mod profile;
pub mod pure;
pub mod search;
pub mod symdist;

pub use compose::compose_groups;
pub use lattice::{LatticeDist, Tails};
pub use profile::{DeltaValue, LatticeKnot, PrivacyProfile};
