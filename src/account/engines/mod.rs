//! The engines, one file each.
//!
//! * [`laplace_sum`] — n releases of Laplace mechanisms with one ε₀, as an exact finite sum.

pub mod laplace_sum;
