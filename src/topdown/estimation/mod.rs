//! TopDown's estimation step (`postprocess` with `l2`, `l2_dense`, `rounding`) and the
//! tree-consistent WLS with exact variances (`estimate`, `bisect`).
mod bisect;
pub mod by_state;
pub mod constraints;
pub mod estimate;
pub mod l2;
mod l2_dense;
pub mod load;
pub mod multipass;
pub mod passes;
pub mod postprocess;
pub mod qp;
pub mod round_lp;
pub mod rounding;
pub mod run;
