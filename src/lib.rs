//! tightdp: certified, arbitrary-precision privacy accounting for the 2020 US Census.
//!
//! See docs/architecture.md, docs/design.md and the README for the data flow; every formula names its source paper and equation.

// A bare `unwrap()` says nothing about why it cannot fail: outside tests every one is an `expect` naming its
// invariant ("invariant: …"), or an error the caller sees (#52).
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]
pub mod account;
pub mod accuracy;
pub mod app;
pub mod attack;
pub mod budget;
pub mod calibrate;
pub mod census;
pub mod cli;
pub mod data;
pub mod error;
pub mod fourier;
pub mod model;
pub mod noise;
pub mod num;
pub mod pld;
pub mod plots;
pub mod record;
pub mod risk;
pub mod rundir;
pub mod tabulation;
pub mod topdown;
