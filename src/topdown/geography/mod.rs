//! The geographic spine: the tree, its bypass and off-spine entity distances (`spine`), Algorithm 2
//! (`alg2`), the bypass statements of [CAK24, §5] (`bypass`).
pub mod alg2;
pub mod bypass;
pub mod spine;
