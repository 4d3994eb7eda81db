//! TopDown noisy measurements on a geographic spine ([CAK24]), with certified
//! budgets and accuracy. Four parts, each a folder:
//!
//! * `geography`: the spine — block-level geography files → spine tree, fan-outs, bypass
//!   (Algorithm 3), path sums (Theorem 3), off-spine entity distance (eqs. 4.1–4.4), synthetic
//!   geographies (`spine`); Algorithm 2's redefined block and tract groups (`alg2`); the bypass
//!   statements of §5 checked on the WLS variance matrix (`bypass`);
//! * `measurement`: histogram schema, marginal query groups, synthetic persons (`schema`); the exact
//!   discrete Gaussian sampler (`sampler`); the noisy measurements (Theorems 1 and 3) streamed to CSV,
//!   and their manifest (`measure`); the run directory's other files and loading a run (`rundir`);
//! * `estimation`: TopDown's estimation — per parent, top down, weighted non-negative least squares
//!   under the parent and invariant constraints (`l2`, its direct dense route `l2_dense`), then
//!   L1-optimal integer rounding (`rounding`), driven by `postprocess`; tree-consistent WLS with exact
//!   variances on and off the spine and its simulation (`estimate`, with `bisect`, the bisection of
//!   its non-negativity step, bit for bit from far fewer evaluations);
//! * `analysis`: exact ε(δ) of a manifest through the lattice accountant (`certify`); the simulated
//!   accuracy of the final counts (`pp_accuracy`).
//!
//! The modules are also reachable under their old flat names (`topdown::spine`, …).

pub mod analysis;
pub mod estimation;
pub mod geography;
pub mod measurement;

pub use analysis::pp_accuracy;
pub use geography::spine;
pub use measurement::rundir;
