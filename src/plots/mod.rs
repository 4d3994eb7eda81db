//! Figures: every drawing (plotters) of the data the applications compute. Formatting only.
pub mod allocation;
pub mod attack;
pub mod bars;
pub mod csvplot;
pub mod deployments;
pub mod figures;
pub mod plot;
mod png;
pub mod realdata;
pub mod safetab_p;
pub mod topdown;
