//! Noise distributions: the discrete Gaussian N_Z(0, σ²) and discrete Laplace with certified normaliser, pmf, tails,
//! variance and characteristic function; their exact samplers and the one random-number stack (`sampler`:
//! ChaCha20 keyed from the operating system or, not for release, a seed).
pub mod allocation;
pub mod blackbox;
pub mod dgauss;
pub mod dgauss_loss;
pub mod dgauss_shift;
pub mod direction;
pub mod dlaplace;
pub mod dlaplace_loss;
pub mod gauss;
pub mod gauss_terms;
pub mod laplace;
pub mod loss;
pub mod mgf;
#[cfg(test)]
mod mgf_check;
mod mgf_dgauss;
mod mgf_laplace_sub;
pub mod mgf_plan;
mod mgf_quad;
mod mgf_replace;
mod mgf_wor;
pub mod mog;
pub mod neighbors;
pub mod params;
pub mod poisson_replace;
pub mod poisson_replace_laplace;
pub mod registry;
pub mod renyi_dp;
pub mod repeat;
pub mod replace_pair;
pub mod rr;
pub mod sampler;
pub mod subsample;
pub mod truncated;
pub mod wor;

pub use dgauss::DiscreteGaussian;
