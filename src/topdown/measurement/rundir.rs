//! The files of a measurement run beside `measurements.csv` and `manifest.json`, as `topdown measure`
//! writes them (loading a run for post-processing is `estimation/load.rs`):
//!
//! * `geography.csv`: the spine the run measured, in the geography-file format of `spine.rs` (one row
//!   per block: block id, its ancestors from the root, its off-spine entities) — public geography, so
//!   that a run directory is self-contained;
//! * `invariants.csv`: `level,geounit,total`, the exact totals the Census publishes without noise (the
//!   US and state populations by default). They are released as they are, outside the privacy
//!   guarantee, as in production.

use crate::err;
use crate::error::Fallible;
use crate::record::csv_field;
use crate::topdown::geography::spine::{Spine, NONE};
use std::io::Write;

pub const GEOGRAPHY_FILE: &str = "geography.csv";
pub const INVARIANTS_FILE: &str = "invariants.csv";
/// Every file `topdown measure` writes into its run directory (besides the completion marker).
pub const UNITS_FILE: &str = "units.csv";

pub const MEASURE_FILES: [&str; 5] = ["measurements.csv", "manifest.json", GEOGRAPHY_FILE, INVARIANTS_FILE, UNITS_FILE];

/// Largest |count| accepted in a run's measurements and invariants: 10^12, over a hundred times the
/// world's population. `topdown measure` writes integer noisy counts far below it; the bound keeps
/// every count exact in the estimator's f64 arithmetic and every sum of 8 million of them inside i64.
pub const MAX_COUNT: i64 = 1_000_000_000_000;

/// Write the spine as a geography file (readable by `Spine::from_reader`).
pub fn write_geography(spine: &Spine, w: &mut dyn Write) -> Fallible<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
    let e = |e: std::io::Error| err!(Io, "write failed: {e}");
    let nl = spine.n_levels();
    let mut hdr: Vec<String> = vec![csv_field(&spine.levels[nl - 1]).into_owned()];
    hdr.extend(spine.levels[..nl - 1].iter().map(|l| csv_field(l).into_owned()));
    hdr.extend(spine.ose.iter().map(|o| csv_field(&format!("ose:{}", o.name)).into_owned()));
    writeln!(w, "{}", hdr.join(",")).map_err(e)?;
    for (b, &u) in spine.blocks.iter().enumerate() {
        let path = spine.path(u);
        let mut line = csv_field(&spine.ids[u as usize]).into_owned();
        for &a in &path[..path.len() - 1] {
            line.push(',');
            line.push_str(&csv_field(&spine.ids[a as usize]));
        }
        for o in &spine.ose {
            line.push(',');
            let x = o.of_block[b];
            if x != NONE {
                line.push_str(&csv_field(&o.entities[x as usize]));
            }
        }
        line.push('\n');
        w.write_all(line.as_bytes()).map_err(e)?;
    }
    w.flush().map_err(e)
}

/// Write `level,geounit,total` for the given (unit, total) pairs, then the (`ose:CATEGORY`, entity,
/// total) rows: an entity's invariant is the total of the sibling geounits that make it up.
pub fn write_invariants(spine: &Spine, totals: &[(u32, u64)], entities: &[(String, String, u64)], w: &mut dyn Write) -> Fallible<()> {
    let mut w = std::io::BufWriter::new(w);
    let e = |e: std::io::Error| err!(Io, "write failed: {e}");
    writeln!(w, "level,geounit,total").map_err(e)?;
    let mut totals = totals.to_vec();
    totals.sort_by_key(|&(u, _)| (spine.level[u as usize], u));
    for (u, t) in totals {
        let u = u as usize;
        writeln!(w, "{},{},{t}", csv_field(&spine.levels[spine.level[u] as usize]), csv_field(&spine.ids[u])).map_err(e)?;
    }
    for (cat, id, t) in entities {
        writeln!(w, "{},{},{t}", csv_field(cat), csv_field(id)).map_err(e)?;
    }
    w.flush().map_err(e)
}

/// Write `block,hhgq,units`: the facilities (housing units for type 0) of each block and type, the
/// non-zero ones (`units`: block-major, `types` per block).
pub fn write_units(spine: &Spine, units: &[u32], types: usize, w: &mut dyn Write) -> Fallible<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
    let e = |e: std::io::Error| err!(Io, "write failed: {e}");
    writeln!(w, "block,hhgq,units").map_err(e)?;
    for (b, &u) in spine.blocks.iter().enumerate() {
        for t in 0..types {
            let n = units[b * types + t];
            if n > 0 {
                writeln!(w, "{},{t},{n}", csv_field(&spine.ids[u as usize])).map_err(e)?;
            }
        }
    }
    w.flush().map_err(e)
}
