//! zCDP bookkeeping and its conversions to (ε, δ)-DP.
pub mod zcdp;
