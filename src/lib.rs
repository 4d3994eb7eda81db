//! tightdp: certified, arbitrary-precision privacy accounting for the 2020 US Census.
//!
//! See docs/architecture.md, docs/design.md and the README for the data flow; every formula names its source paper and equation.

// A bare `unwrap()` says nothing about why it cannot fail: outside tests every one is an `expect` naming its
// invariant ("invariant: …"), or an error the caller sees (#52).
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]
pub(crate) mod account;
pub(crate) mod accuracy;
pub(crate) mod app;
pub(crate) mod attack;
pub(crate) mod budget;
pub(crate) mod calibrate;
pub(crate) mod census;
pub(crate) mod cli;
pub(crate) mod data;
pub(crate) mod error;
pub(crate) mod fourier;
pub(crate) mod model;
pub(crate) mod noise;
pub(crate) mod num;
pub(crate) mod pld;
pub(crate) mod plots;
pub(crate) mod record;
pub(crate) mod risk;
pub(crate) mod rundir;
pub(crate) mod tabulation;
pub(crate) mod topdown;

// The facade (#52 item 5): every module is crate-private, and these re-exports are the whole public API —
// what the binary (`main.rs`), the Python package (`python/src`), the benches, the examples and the
// integration tests use. Everything else is private, so the compiler reports what nothing uses.
pub use account::gridprofile::{FourierGridTails, GridProfile};
pub use account::{Accountant, Certified, Method, Options, CERT_WIDTH, DEFAULT_GRID_WORK};
pub use app::certificate::certificate;
pub use app::figure_data::count_errors;
pub use app::shuffle::{shuffle_row, ShuffleQuery};
pub use attack::{advantage, bayes_success, bureau_advantage, bureau_bayes_success, bureau_tradeoff, reconstruction_success, tpr_at_fpr};
pub use budget::zcdp;
pub use calibrate::{calibrate_factor, MAX_FACTOR};
pub use census::allocation::{builtin as builtin_allocation, Allocation, BUILTIN as BUILTIN_ALLOCATIONS};
pub use cli::calibrate_sigma::{record as calibrate_sigma_record, SigmaArgs};
pub use cli::renyi::renyi_columns;
pub use cli::{execute, keep_freed_memory, run, Cli};
pub use data::table::visit as visit_csv;
pub use error::{Error, ErrorKind, Fallible};
pub use fourier::fast::{CharSource, FastParams};
pub use fourier::smooth::{epsilon_smooth, SmoothParams};
pub use fourier::{boole, clt, dhc_table3_groups, dhc_table3_mechs, fast, first_above, paper_lattice};
pub use model::spec::{parse_count, parse_mech, parse_sensitivity, MAX_N};
pub use model::{gauss_rho, Composition, GaussGroup, Group, Neighbors, Noise};
pub use noise::gauss::Gaussian;
pub use noise::loss::Direction;
pub use noise::registry::{kinds as mech_kinds, mech_help};
pub use noise::subsample::PoissonSampled;
pub use noise::DiscreteGaussian;
pub use num::format::{fmt_down, fmt_up};
pub use num::parse::{parse_count_field, parse_rational, COUNT_FIELD_MAX};
pub use num::{cancel, test_cases, Arith, Interval, DEFAULT_PREC};
pub use pld::compose::{compose_groups, lattice_profile};
pub use pld::discretize::{lower as grid_lower, upper as grid_upper};
pub use pld::frame::LatticeOpts;
pub use pld::grid::epsilon_by_grid;
pub use pld::PrivacyProfile;
pub use record::{write_atomic, Format};
pub use risk::decisions::{prob_correct, Procedure};
pub use risk::hier::{Prior2, Sampler};
pub use risk::single::SingleLevel;
pub use risk::{figures as risk_figures, paper};
pub use rundir::RunDir;
pub use tabulation::manifest::{composition as manifest_composition, safetab_p_production, Manifest};
pub use tabulation::safetab::ReConfig;
pub use topdown::spine::GeoSpec;
