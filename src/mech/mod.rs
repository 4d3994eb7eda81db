//! Tabulation mechanisms whose budgets tightdp certifies: exact samplers, SafeTab-P (Detailed DHC-A),
//! SafeTab (Detailed DHC race & ethnicity), synthetic persons, and run manifests.
pub mod sampler;
pub mod calib;
