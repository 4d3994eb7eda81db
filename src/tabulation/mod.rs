//! Tabulation mechanisms whose budgets tightdp certifies: exact samplers, SafeTab-P (Detailed DHC-A),
//! SafeTab (Detailed DHC race & ethnicity), synthetic persons, and run manifests.
pub mod account;
pub mod calib;
pub mod coterminous;
pub mod manifest;
pub mod safetab;
pub mod safetab_p;
pub mod safetab_prod;
pub mod safetab_re;
pub mod safetab_spec;
pub mod safetab_tab;
pub mod suppression;
pub use crate::noise::sampler;
pub mod synth;
