//! Tabulation mechanisms whose budgets tightdp certifies: exact samplers, SafeTab-P (Detailed DHC-A),
//! SafeTab (Detailed DHC race & ethnicity), synthetic persons, and run manifests.
pub(crate) mod account;
pub(crate) mod calib;
pub(crate) mod coterminous;
pub mod manifest;
pub mod safetab;
pub(crate) mod safetab_p;
pub(crate) mod safetab_prod;
pub(crate) mod safetab_re;
pub(crate) mod safetab_spec;
pub(crate) mod safetab_tab;
pub(crate) mod suppression;
pub(crate) mod synth;
