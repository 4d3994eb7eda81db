//! TopDown's estimation step (`postprocess` with `l2`, `l2_dense`, `rounding`) and the
//! tree-consistent WLS with exact variances (`estimate`, `bisect`).
mod bisect;
pub mod estimate;
pub mod l2;
mod l2_dense;
pub mod postprocess;
pub mod rounding;
