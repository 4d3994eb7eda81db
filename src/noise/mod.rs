//! Noise distributions: the discrete Gaussian N_Z(0, σ²) with certified normaliser, pmf, tails,
//! variance and characteristic function.
pub mod dgauss;
pub mod dlaplace;
pub mod gauss_terms;

pub use dgauss::DiscreteGaussian;
