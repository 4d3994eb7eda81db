//! The geographic spine: the tree, its bypass and off-spine entity distances (`spine`), Algorithm 2
//! (`alg2`), the bypass statements of [CAK24, §5] (`bypass`).
pub mod aian;
pub mod alg2;
pub mod alg3;
#[cfg(test)]
pub mod bypass;
pub mod generate;
pub mod spine;
