//! Noise distributions: the discrete Gaussian N_Z(0, σ²) and discrete Laplace with certified normaliser, pmf, tails,
//! variance and characteristic function; their exact samplers and the one random-number stack (`sampler`:
//! ChaCha20 keyed from the operating system or, not for release, a seed).
pub(crate) mod allocation;
pub(crate) mod blackbox;
pub(crate) mod bounded_range;
pub(crate) mod dgauss;
pub(crate) mod dgauss_loss;
#[cfg(test)]
pub(crate) mod dgauss_shift;
pub(crate) mod direction;
pub(crate) mod dlaplace;
pub(crate) mod dlaplace_loss;
pub mod gauss;
pub(crate) mod gauss_terms;
pub(crate) mod laplace;
pub mod loss;
pub(crate) mod mgf;
mod mgf_atoms;
mod mgf_bounded_range;
#[cfg(test)]
mod mgf_check;
mod mgf_dgauss;
mod mgf_laplace_sub;
pub(crate) mod mgf_modulus;
pub(crate) mod mgf_plan;
pub(crate) mod mgf_quad;
mod mgf_replace;
pub(crate) mod mgf_strip;
mod mgf_wor;
pub(crate) mod mog;
pub(crate) mod neighbors;
pub(crate) mod params;
pub(crate) mod poisson_replace;
pub(crate) mod poisson_replace_laplace;
pub mod registry;
pub(crate) mod renyi_dp;
pub(crate) mod repeat;
pub(crate) mod replace_pair;
pub(crate) mod rr;
pub(crate) mod sampler;
pub mod subsample;
pub(crate) mod truncated;
pub(crate) mod wor;

pub use dgauss::DiscreteGaussian;
