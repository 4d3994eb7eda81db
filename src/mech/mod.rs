//! Tabulation mechanisms whose budgets tightdp certifies: exact samplers, SafeTab-P (Detailed DHC-A),
//! SafeTab (Detailed DHC race & ethnicity), synthetic persons, and run manifests.
pub mod sampler;
pub mod calib;
pub mod account;
pub mod safetab_re;
pub mod manifest;
pub mod safetab_spec;
pub mod safetab_p;
pub mod synth;
