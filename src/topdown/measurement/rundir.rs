//! The files of a measurement run beside `measurements.csv` and `manifest.json`, and loading a run
//! for post-processing.
//!
//! * `geography.csv`: the spine the run measured, in the geography-file format of `spine.rs` (one row
//!   per block: block id, its ancestors from the root, its off-spine entities) — public geography, so
//!   that a run directory is self-contained;
//! * `invariants.csv`: `level,geounit,total`, the exact totals the Census publishes without noise (the
//!   US and state populations by default). They are released as they are, outside the privacy
//!   guarantee, as in production.
//!
//! `load_run` reads the manifest, the geography, the measurements and the invariants, and checks
//! that they describe the same run: the geolevels, blocks and budget spans of the manifest are those of
//! the geography with its bypass rule; every measurement row names a noise entry of its geounit's
//! (geolevel, span) group, a query of that entry and a cell of that query; every measured geounit has
//! every cell of every query exactly once; the row count is the manifest's; values are finite.

use crate::census::allocation::norm_name;
use crate::num::parse_rational;
use crate::topdown::estimation::postprocess::{csv_field, Group, GroupEntry, RunData};
use crate::topdown::geography::spine::{Bypass, Spine, NONE};
use crate::topdown::measurement::measure::{read_manifest, Manifest};
use crate::topdown::measurement::schema::{Query, Schema};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

pub const GEOGRAPHY_FILE: &str = "geography.csv";
pub const INVARIANTS_FILE: &str = "invariants.csv";
/// Every file `topdown measure` writes into its run directory (besides the completion marker).
pub const MEASURE_FILES: [&str; 4] = ["measurements.csv", "manifest.json", GEOGRAPHY_FILE, INVARIANTS_FILE];

/// Largest |count| accepted in a run's measurements and invariants: 10^12, over a hundred times the
/// world's population. `topdown measure` writes integer noisy counts far below it; the bound keeps
/// every count exact in the estimator's f64 arithmetic and every sum of 8 million of them inside i64.
pub const MAX_COUNT: i64 = 1_000_000_000_000;

/// Write the spine as a geography file (readable by `Spine::from_reader`).
pub fn write_geography(spine: &Spine, w: &mut dyn Write) -> Result<(), String> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
    let e = |e: std::io::Error| format!("write failed: {e}");
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

/// Write `level,geounit,total` for the given (unit, total) pairs.
pub fn write_invariants(spine: &Spine, totals: &[(u32, u64)], w: &mut dyn Write) -> Result<(), String> {
    let mut w = std::io::BufWriter::new(w);
    let e = |e: std::io::Error| format!("write failed: {e}");
    writeln!(w, "level,geounit,total").map_err(e)?;
    let mut totals = totals.to_vec();
    totals.sort_by_key(|&(u, _)| (spine.level[u as usize], u));
    for (u, t) in totals {
        let u = u as usize;
        writeln!(w, "{},{},{t}", csv_field(&spine.levels[spine.level[u] as usize]), csv_field(&spine.ids[u])).map_err(e)?;
    }
    w.flush().map_err(e)
}

fn bypass_of(s: &str) -> Result<Bypass, String> {
    match s {
        "none" => Ok(Bypass::None),
        "zcdp-single-child" => Ok(Bypass::Zcdp),
        // the geography of such a run is the tree Algorithm 3 restructured: absorption reproduces its spans
        "pure-dp-theorem2" => Ok(Bypass::PureDp),
        o => Err(format!("manifest: unknown bypass rule '{o}'")),
    }
}

/// Load and cross-check a run directory written by `topdown measure`.
pub fn load_run(dir: &Path) -> Result<(RunData, Manifest), String> {
    if !dir.is_dir() {
        return Err(format!("run directory '{}' does not exist", dir.display()));
    }
    // only a run `topdown measure` finished (its marker written last) is post-processed
    match crate::rundir::completed_command(dir) {
        Some(c) if c == "topdown measure" => {}
        Some(c) => {
            return Err(format!("'{}' holds a `tightdp {c}` run, not a `tightdp topdown measure` run", dir.display()));
        }
        None => {
            return Err(format!(
                "'{}' is not a completed `tightdp topdown measure` run (no {} marker): measure it again",
                dir.display(),
                crate::rundir::MARKER
            ))
        }
    }
    let m = read_manifest(&dir.join("manifest.json"))?;
    let geo = dir.join(GEOGRAPHY_FILE);
    if !geo.exists() {
        return Err(format!("run directory '{}' has no {GEOGRAPHY_FILE} (written by `topdown measure`)", dir.display()));
    }
    let mut spine = Spine::from_path(&geo)?;
    spine.apply_bypass(bypass_of(&m.bypass)?);
    let mism = |what: String| format!("the manifest does not match the run's geography: {what}");
    if m.levels.len() != spine.n_levels() {
        return Err(mism(format!("{} geolevels in the manifest, {} in {GEOGRAPHY_FILE}", m.levels.len(), spine.n_levels())));
    }
    for (a, b) in m.levels.iter().zip(&spine.levels) {
        if norm_name(&a.name) != norm_name(b) {
            return Err(mism(format!("geolevel '{}' in the manifest, '{b}' in {GEOGRAPHY_FILE}", a.name)));
        }
    }
    if m.blocks != spine.blocks.len() {
        return Err(mism(format!("{} blocks in the manifest, {} in {GEOGRAPHY_FILE}", m.blocks, spine.blocks.len())));
    }
    let bypassed = spine.span.iter().filter(|&&s| s == 0).count();
    if m.bypassed_units != bypassed {
        return Err(mism(format!("{} bypassed geounits in the manifest, {bypassed} by its bypass rule", m.bypassed_units)));
    }
    let schema = Schema::parse(&m.schema).map_err(|e| format!("manifest: {e}"))?;
    // noise entries → groups by (level, span)
    let mut queries: Vec<Query> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut entry_at: Vec<(usize, usize)> = Vec::with_capacity(m.noise.len()); // (group, position)
    for (k, e) in m.noise.iter().enumerate() {
        if e.id != k {
            return Err(format!("manifest: noise entry {k} has id {}", e.id));
        }
        if e.level_index >= spine.n_levels() || norm_name(&e.level) != norm_name(&spine.levels[e.level_index]) {
            return Err(format!("manifest: noise entry {k} names geolevel '{}' at index {}", e.level, e.level_index));
        }
        let span = e.span_levels.len();
        if span == 0 || e.level_index + span > spine.n_levels() {
            return Err(format!("manifest: noise entry {k} has a bad budget span"));
        }
        let q = Query::parse(&e.query, &schema).map_err(|x| format!("manifest: noise entry {k}: {x}"))?;
        if q.cells != e.cells {
            return Err(format!("manifest: noise entry {k}: query '{}' has {} cells, the manifest says {}", e.query, q.cells, e.cells));
        }
        let s2 = parse_rational(&e.sigma2).map_err(|x| format!("manifest: noise entry {k} sigma2: {x}"))?;
        let s2 = s2.to_f64();
        if !(s2 > 0.0 && s2.is_finite()) {
            return Err(format!("manifest: noise entry {k}: sigma2 must be positive"));
        }
        let qi = match queries.iter().position(|x| x.name == q.name) {
            Some(i) => i,
            None => {
                queries.push(q);
                queries.len() - 1
            }
        };
        let g = match groups.iter().position(|g| g.level == e.level_index && g.span == span) {
            Some(g) => g,
            None => {
                groups.push(Group { level: e.level_index, span, entries: Vec::new(), len: 0 });
                groups.len() - 1
            }
        };
        let grp = &mut groups[g];
        if grp.entries.iter().any(|x| x.query == qi) {
            return Err(format!("manifest: noise entry {k} repeats query '{}' of its geolevel", e.query));
        }
        grp.entries.push(GroupEntry { noise_id: k, query: qi, sigma2: s2, offset: grp.len });
        entry_at.push((g, grp.entries.len() - 1));
        grp.len += e.cells;
    }
    let mut run = RunData::new(spine, schema, queries, groups).map_err(|e| format!("the manifest does not match the run: {e}"))?;
    read_measurements(dir, &m, &entry_at, &mut run)?;
    read_invariants(dir, &mut run)?;
    Ok((run, m))
}

fn unit_index(spine: &Spine) -> HashMap<&str, u32> {
    spine.ids.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect()
}

fn read_measurements(dir: &Path, m: &Manifest, entry_at: &[(usize, usize)], run: &mut RunData) -> Result<(), String> {
    let path = dir.join(&m.measurements_file);
    let f = std::fs::File::open(&path).map_err(|e| format!("cannot read measurements '{}': {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::with_capacity(1 << 20, f));
    let hdr = rdr.headers().map_err(|e| format!("measurements: bad header: {e}"))?.clone();
    let want = ["level", "geounit", "query", "cell", "value", "noise_id"];
    if hdr.len() != want.len() || hdr.iter().zip(want).any(|(a, b)| a.trim() != b) {
        return Err(format!("measurements: header must be {}", want.join(",")));
    }
    let level_key: Vec<String> = run.spine.levels.iter().map(|l| norm_name(l)).collect();
    let values = std::mem::take(&mut run.values);
    let mut values = values;
    let res = (|| -> Result<u64, String> {
        let index = unit_index(&run.spine);
        let sp = &run.spine;
        let mut rec = csv::StringRecord::new();
        let mut rows = 0u64;
        let mut line = 1u64;
        while rdr.read_record(&mut rec).map_err(|e| format!("measurements line {}: {e}", line + 1))? {
            line += 1;
            let bad = |what: String| format!("measurements line {line}: {what}");
            let nid: usize = rec[5].trim().parse().map_err(|_| bad(format!("noise_id '{}' is not a number", &rec[5])))?;
            let &(g, pos) = entry_at.get(nid).ok_or_else(|| bad(format!("noise_id {nid} is not in the manifest")))?;
            let gid = rec[1].trim();
            let u = *index.get(gid).ok_or_else(|| bad(format!("geounit '{gid}' is not in the run's geography")))? as usize;
            if norm_name(rec[0].trim()) != level_key[sp.level[u] as usize] {
                return Err(bad(format!("geounit '{gid}' is a {}, not a {}", sp.levels[sp.level[u] as usize], rec[0].trim())));
            }
            if run.unit_group[u] != g as u32 {
                return Err(bad(format!("noise entry {nid} does not belong to geounit '{gid}' (geolevel and budget span differ)")));
            }
            let e = &run.groups[g].entries[pos];
            let q = &run.queries[e.query];
            if rec[2].trim() != q.name {
                return Err(bad(format!("query '{}' but noise entry {nid} is '{}'", rec[2].trim(), q.name)));
            }
            let cell: usize = rec[3].trim().parse().map_err(|_| bad(format!("cell '{}' is not a number", &rec[3])))?;
            if cell >= q.cells {
                return Err(bad(format!("cell {cell} outside query '{}' ({} cells)", q.name, q.cells)));
            }
            // measure writes integer noisy counts: a fraction, an exponent or a huge value was not written by it
            let v: i64 = rec[4]
                .trim()
                .parse()
                .map_err(|_| bad(format!("value '{}' is not an integer (`topdown measure` writes integer noisy counts)", &rec[4])))?;
            if v.unsigned_abs() > MAX_COUNT as u64 {
                return Err(bad(format!("value {v} is outside ±10^12 (no noisy count of a run is that large)")));
            }
            let v = v as f64;
            let slot = &mut values[run.unit_off[u] + e.offset + cell];
            if !slot.is_nan() {
                return Err(bad(format!("duplicate measurement of '{gid}', query '{}', cell {cell}", q.name)));
            }
            *slot = v;
            rows += 1;
        }
        Ok(rows)
    })();
    run.values = values;
    let rows = res?;
    if rows != m.rows {
        return Err(format!("measurements has {rows} rows but the manifest says {}", m.rows));
    }
    if let Some(i) = run.values.iter().position(|v| v.is_nan()) {
        let u = (0..run.spine.n_units()).filter(|&u| run.unit_group[u] != NONE && run.unit_off[u] <= i).max_by_key(|&u| run.unit_off[u]);
        let who = u.map(|u| run.spine.ids[u].clone()).unwrap_or_default();
        return Err(format!(
            "measurements: geounit '{who}' is missing some of its measurements (the manifest and the measurements disagree)"
        ));
    }
    Ok(())
}

fn read_invariants(dir: &Path, run: &mut RunData) -> Result<(), String> {
    let path = dir.join(INVARIANTS_FILE);
    let f = std::fs::File::open(&path).map_err(|e| format!("cannot read invariants '{}': {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::new(f));
    let hdr = rdr.headers().map_err(|e| format!("invariants: bad header: {e}"))?.clone();
    let want = ["level", "geounit", "total"];
    if hdr.len() != 3 || hdr.iter().zip(want).any(|(a, b)| a.trim() != b) {
        return Err("invariants: header must be level,geounit,total".into());
    }
    let index = unit_index(&run.spine);
    let sp = &run.spine;
    let mut inv = vec![-1i64; sp.n_units()];
    let mut rec = csv::StringRecord::new();
    let mut line = 1u64;
    while rdr.read_record(&mut rec).map_err(|e| format!("invariants line {}: {e}", line + 1))? {
        line += 1;
        let gid = rec[1].trim();
        let u = *index.get(gid).ok_or_else(|| format!("invariants line {line}: geounit '{gid}' is not in the run's geography"))? as usize;
        if norm_name(rec[0].trim()) != norm_name(&sp.levels[sp.level[u] as usize]) {
            return Err(format!(
                "invariants line {line}: geounit '{gid}' is a {}, not a {}",
                sp.levels[sp.level[u] as usize],
                rec[0].trim()
            ));
        }
        let t: i64 =
            rec[2].trim().parse().map_err(|_| format!("invariants line {line}: total '{}' is not a non-negative integer", &rec[2]))?;
        if t < 0 {
            return Err(format!("invariants line {line}: negative total {t}"));
        }
        if t > MAX_COUNT {
            return Err(format!("invariants line {line}: total {t} is above 10^12 (no population is that large)"));
        }
        if inv[u] >= 0 {
            return Err(format!("invariants line {line}: second invariant for '{gid}'"));
        }
        inv[u] = t;
    }
    run.invariant = inv;
    run.check_invariants().map_err(|e| format!("invariants: {e}"))
}
