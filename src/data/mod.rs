//! Readers for the public census extracts the f-DP paper's accuracy results were computed on, in the
//! layouts they are downloaded in (parsing only; no computation): NHGIS 2010 SF1 and privacy-protected
//! demonstration data CSVs (`nhgis`), ACS 5-year educational attainment and earnings tables from the Census
//! Data API or data.census.gov (`acs`). The files cannot be bundled; `data/synthetic-extracts/` holds
//! made-up files in the same layouts (scripts/make_synthetic_extracts.py).
pub mod acs;
pub mod nhgis;
pub mod table;

use std::path::{Path, PathBuf};

/// Regular `.csv` / `.json` files directly in `dir`, sorted by name (missing directory: none).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref(), Some("csv" | "json")))
        .collect();
    v.sort();
    v
}
