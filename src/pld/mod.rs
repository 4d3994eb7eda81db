//! Lattice privacy-loss distributions: exact laws of the loss statistic, composition, and the
//! privacy profile (δ(ε), ε(δ), trade-off knots) read off them.
pub mod compose;
pub mod discretize;
pub(crate) mod estimate;
pub(crate) mod fixed;
pub mod frame;
pub mod grid;
pub(crate) mod gridpair;
pub(crate) mod lattice;
pub(crate) mod profile;
pub(crate) mod pure;
pub(crate) mod search;
pub(crate) mod symdist;

pub use profile::PrivacyProfile;
