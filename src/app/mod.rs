//! Applications over the accountant and the mechanisms: production certificates, verification of every
//! published number, the recomputation behind it, and the tables `reproduce` writes. Layer: above the
//! mechanisms (`mech`, `topdown`, `risk`, `accuracy`) and the input parsers (`census`, `data`); below
//! `report` (figures) and `cli`.
pub mod attack_calibration;
pub mod attack_table;
pub mod calibration;
pub mod certificate;
pub mod deployment_registry;
pub mod deployments;
pub mod figure_data;
pub mod production;
pub mod recompute;
pub mod shuffle;
pub mod tables;
pub mod verify;
