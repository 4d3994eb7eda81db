//! tightdp: certified, arbitrary-precision privacy accounting for the 2020 US Census.
//!
//! See docs/architecture.md, docs/design.md and the README for the data flow; every formula names its source paper and equation.

// A bare `unwrap()` says nothing about why it cannot fail: outside tests every one is an `expect` naming its
// invariant ("invariant: …"), or an error the caller sees (#52).
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]
pub mod account;
pub(crate) mod accuracy;
pub(crate) mod app;
pub(crate) mod attack;
pub(crate) mod budget;
pub(crate) mod calibrate;
pub mod census;
pub mod cli;
pub(crate) mod data;
pub mod error;
pub mod fourier;
pub mod model;
pub mod noise;
pub mod num;
pub mod pld;
pub(crate) mod plots;
pub(crate) mod record;
pub mod risk;
pub(crate) mod rundir;
pub mod tabulation;
pub(crate) mod topdown;

// The facade of the crate-private modules (#52 item 5): what the command line, the Python package and the
// tests outside the crate use of them; the rest is private, so the compiler reports what nothing uses.
pub use app::certificate::certificate;
pub use app::figure_data::count_errors;
pub use app::shuffle::{shuffle_row, ShuffleQuery};
pub use attack::{advantage, bayes_success, bureau_advantage, bureau_bayes_success, bureau_tradeoff, reconstruction_success, tpr_at_fpr};
pub use budget::zcdp;
pub use calibrate::{calibrate_factor, MAX_FACTOR};
pub use data::table::visit as visit_csv;
pub use record::{write_atomic, Format};
pub use rundir::RunDir;
pub use topdown::spine::GeoSpec;
