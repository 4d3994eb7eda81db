//! What is measured and how: the histogram schema and queries (`schema`), the exact sampler
//! (`sampler`), the noisy measurements and their manifest (`measure`), the run directory (`rundir`).
pub mod measure;
pub mod rundir;
pub mod sampler;
pub mod schema;
