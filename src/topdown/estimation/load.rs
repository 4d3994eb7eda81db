//! Loading a measurement run for post-processing (the files are `measurement/rundir.rs`'s).
//!
//! `load_run` reads the manifest, the geography, the measurements and the invariants, and checks
//! that they describe the same run: the geolevels, blocks and budget spans of the manifest are those of
//! the geography with its bypass rule; every measurement row names a noise entry of its geounit's
//! (geolevel, span) group, a query of that entry and a cell of that query; every measured geounit has
//! every cell of every query exactly once; the row count is the manifest's; values are finite.

use crate::census::allocation::norm_name;
use crate::error::{Error, Fallible};
use crate::num::parse_rational;
use crate::topdown::estimation::constraints::{aggregate_units, parse_structural_zeros, sibling_union};
use crate::topdown::estimation::run::{GroupEntry, MeasurementGroup, RunData};
use crate::topdown::geography::spine::{Bypass, Spine, NONE};
use crate::topdown::measurement::measure::{read_manifest, TopdownManifest};
use crate::topdown::measurement::rundir::{GEOGRAPHY_FILE, INVARIANTS_FILE, MAX_COUNT};
use crate::topdown::measurement::schema::{MarginalQuery, Schema};
use crate::{err, fallible};
use std::collections::HashMap;
use std::path::Path;

fn bypass_of(s: &str) -> Fallible<Bypass> {
    match s {
        "none" => Ok(Bypass::None),
        "zcdp-single-child" => Ok(Bypass::Zcdp),
        // the geography of such a run is the tree Algorithm 3 restructured: absorption reproduces its spans
        "pure-dp-theorem2" => Ok(Bypass::PureDp),
        o => fallible!(Input, "manifest: unknown bypass rule '{o}'"),
    }
}

/// The measurements of a run loaded by `load_head` (the measurement vector allocated here if it was
/// loaded without).
pub fn read_run_measurements(dir: &Path, m: &TopdownManifest, entry_at: &[(usize, usize)], run: &mut RunData) -> Fallible<()> {
    if run.values.is_empty() {
        let total: usize =
            (0..run.spine.n_units()).filter(|&u| run.unit_group[u] != NONE).map(|u| run.groups[run.unit_group[u] as usize].len).sum();
        run.values = vec![f64::NAN; total];
    }
    read_measurements(dir, m, entry_at, run)
}

/// Where noise entry k sits: (measurement group, position in it).
pub type EntryAt = Vec<(usize, usize)>;

/// Everything of a run but the measurements: manifest, geography, layout, invariants, units (the
/// measurement vector allocated, NaN, when `values`).
pub fn load_head(dir: &Path, values: bool) -> Fallible<(RunData, TopdownManifest, EntryAt)> {
    if !dir.is_dir() {
        return fallible!(Input, "run directory '{}' does not exist", dir.display());
    }
    // only a run `topdown measure` finished (its marker written last) is post-processed
    match crate::rundir::completed_command(dir) {
        Some(c) if c == "topdown measure" => {}
        Some(c) => {
            return fallible!(Input, "'{}' holds a `tightdp {c}` run, not a `tightdp topdown measure` run", dir.display());
        }
        None => {
            return fallible!(
                Input,
                "'{}' is not a completed `tightdp topdown measure` run (no {} marker): measure it again",
                dir.display(),
                crate::rundir::MARKER
            )
        }
    }
    let m = read_manifest(&dir.join("manifest.json"))?;
    let geo = dir.join(GEOGRAPHY_FILE);
    if !geo.exists() {
        return fallible!(Input, "run directory '{}' has no {GEOGRAPHY_FILE} (written by `topdown measure`)", dir.display());
    }
    let mut spine = Spine::from_path(&geo)?;
    spine.apply_bypass(bypass_of(&m.bypass)?);
    let mism = |what: String| err!(Input, "the manifest does not match the run's geography: {what}");
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
    let schema = Schema::parse(&m.schema).map_err(|e| e.context("manifest"))?;
    // noise entries → groups by (level, span)
    let mut queries: Vec<MarginalQuery> = Vec::new();
    let mut groups: Vec<MeasurementGroup> = Vec::new();
    let mut entry_at: Vec<(usize, usize)> = Vec::with_capacity(m.noise.len()); // (group, position)
    for (k, e) in m.noise.iter().enumerate() {
        if e.id != k {
            return fallible!(Input, "manifest: noise entry {k} has id {}", e.id);
        }
        if e.level_index >= spine.n_levels() || norm_name(&e.level) != norm_name(&spine.levels[e.level_index]) {
            return fallible!(Input, "manifest: noise entry {k} names geolevel '{}' at index {}", e.level, e.level_index);
        }
        let span = e.span_levels.len();
        if span == 0 || e.level_index + span > spine.n_levels() {
            return fallible!(Input, "manifest: noise entry {k} has a bad budget span");
        }
        let q = MarginalQuery::parse(&e.query, &schema).map_err(|x| x.context(format!("manifest: noise entry {k}")))?;
        if q.cells != e.cells {
            return fallible!(Input, "manifest: noise entry {k}: query '{}' has {} cells, the manifest says {}", e.query, q.cells, e.cells);
        }
        let s2 = parse_rational(&e.sigma2).map_err(|x| x.context(format!("manifest: noise entry {k} sigma2")))?;
        let s2 = s2.to_f64();
        if !(s2 > 0.0 && s2.is_finite()) {
            return fallible!(Input, "manifest: noise entry {k}: sigma2 must be positive");
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
                groups.push(MeasurementGroup { level: e.level_index, span, entries: Vec::new(), len: 0 });
                groups.len() - 1
            }
        };
        let grp = &mut groups[g];
        if grp.entries.iter().any(|x| x.query == qi) {
            return fallible!(Input, "manifest: noise entry {k} repeats query '{}' of its geolevel", e.query);
        }
        grp.entries.push(GroupEntry { noise_id: k, query: qi, sigma2: s2, offset: grp.len });
        entry_at.push((g, grp.entries.len() - 1));
        grp.len += e.cells;
    }
    let mut run =
        RunData::new_layout(spine, schema, queries, groups, values).map_err(|e| e.context("the manifest does not match the run"))?;
    read_invariants(dir, &mut run)?;
    run.cons.structural_zero = parse_structural_zeros(&m.structural_zeros, &run.schema).map_err(|e| e.context("manifest"))?;
    if !m.units_file.is_empty() {
        read_units(&dir.join(&m.units_file), &mut run)?;
    }
    Ok((run, m, entry_at))
}

/// The measurements file of a run, its header checked.
pub fn open_measurements(dir: &Path, m: &TopdownManifest) -> Fallible<csv::Reader<std::io::BufReader<std::fs::File>>> {
    let path = dir.join(&m.measurements_file);
    let f = std::fs::File::open(&path).map_err(|e| err!(Io, "cannot read measurements '{}': {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::with_capacity(1 << 20, f));
    let hdr = rdr.headers().map_err(|e| crate::error::Error::from(e).context("measurements: bad header"))?.clone();
    let want = ["level", "geounit", "query", "cell", "value", "noise_id"];
    if hdr.len() != want.len() || hdr.iter().zip(want).any(|(a, b)| a.trim() != b) {
        return fallible!(Input, "measurements: header must be {}", want.join(","));
    }
    Ok(rdr)
}

/// Reads measurement rows against a run's layout: every check of `load_run` but duplicates and gaps.
pub struct RowReader<'a> {
    run: &'a RunData,
    entry_at: &'a [(usize, usize)],
    index: HashMap<&'a str, u32>,
    level_key: Vec<String>,
}

impl<'a> RowReader<'a> {
    /// The run whose rows this reads.
    pub fn run(&self) -> &'a RunData {
        self.run
    }

    pub fn new(run: &'a RunData, entry_at: &'a [(usize, usize)]) -> RowReader<'a> {
        RowReader { run, entry_at, index: unit_index(&run.spine), level_key: run.spine.levels.iter().map(|l| norm_name(l)).collect() }
    }

    /// (geounit, index of the value in the run's layout, value) of a row (`line`: its line number).
    pub fn row(&self, rec: &csv::StringRecord, line: u64) -> Fallible<(usize, usize, f64)> {
        let (run, sp) = (self.run, &self.run.spine);
        let bad = |what: String| err!(Input, "measurements line {line}: {what}");
        let nid: usize = rec[5].trim().parse().map_err(|_| bad(format!("noise_id '{}' is not a number", &rec[5])))?;
        let &(g, pos) = self.entry_at.get(nid).ok_or_else(|| bad(format!("noise_id {nid} is not in the manifest")))?;
        let gid = rec[1].trim();
        let u = *self.index.get(gid).ok_or_else(|| bad(format!("geounit '{gid}' is not in the run's geography")))? as usize;
        if norm_name(rec[0].trim()) != self.level_key[sp.level[u] as usize] {
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
        Ok((u, run.unit_off[u] + e.offset + cell, v as f64))
    }

    /// The error for a value given twice.
    pub fn duplicate(&self, rec: &csv::StringRecord, line: u64) -> Error {
        err!(
            Input,
            "measurements line {line}: duplicate measurement of '{}', query '{}', cell {}",
            rec[1].trim(),
            rec[2].trim(),
            rec[3].trim()
        )
    }

    /// The error for the first value never given (its index in the layout).
    pub fn missing(&self, i: usize) -> Error {
        let run = self.run;
        let u = (0..run.spine.n_units()).filter(|&u| run.unit_group[u] != NONE && run.unit_off[u] <= i).max_by_key(|&u| run.unit_off[u]);
        let who = u.map(|u| run.spine.ids[u].clone()).unwrap_or_default();
        err!(Input, "measurements: geounit '{who}' is missing some of its measurements (the manifest and the measurements disagree)")
    }
}

fn unit_index(spine: &Spine) -> HashMap<&str, u32> {
    spine.ids.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect()
}

fn read_measurements(dir: &Path, m: &TopdownManifest, entry_at: &[(usize, usize)], run: &mut RunData) -> Fallible<()> {
    let mut rdr = open_measurements(dir, m)?;
    let mut values = std::mem::take(&mut run.values);
    let res = (|| -> Fallible<u64> {
        let rr = RowReader::new(run, entry_at);
        let mut rec = csv::StringRecord::new();
        let mut rows = 0u64;
        let mut line = 1u64;
        while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("measurements line {}", line + 1)))? {
            line += 1;
            let (_, i, v) = rr.row(&rec, line)?;
            let slot = &mut values[i];
            if !slot.is_nan() {
                return Err(rr.duplicate(&rec, line));
            }
            *slot = v;
            rows += 1;
        }
        if rows != m.rows {
            return fallible!(Input, "measurements has {rows} rows but the manifest says {}", m.rows);
        }
        if let Some(i) = values.iter().position(|v| v.is_nan()) {
            return Err(rr.missing(i));
        }
        Ok(rows)
    })();
    run.values = values;
    res.map(|_| ())
}

fn read_invariants(dir: &Path, run: &mut RunData) -> Fallible<()> {
    let path = dir.join(INVARIANTS_FILE);
    let f = std::fs::File::open(&path).map_err(|e| err!(Io, "cannot read invariants '{}': {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::new(f));
    let hdr = rdr.headers().map_err(|e| crate::error::Error::from(e).context("invariants: bad header"))?.clone();
    let want = ["level", "geounit", "total"];
    if hdr.len() != 3 || hdr.iter().zip(want).any(|(a, b)| a.trim() != b) {
        return fallible!(Input, "invariants: header must be level,geounit,total");
    }
    let index = unit_index(&run.spine);
    let sp = &run.spine;
    let mut inv = vec![-1i64; sp.n_units()];
    let mut groups: Vec<(Vec<u32>, i64)> = Vec::new();
    let mut rec = csv::StringRecord::new();
    let mut line = 1u64;
    while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("invariants line {}", line + 1)))? {
        line += 1;
        let gid = rec[1].trim();
        if let Some(cat) = rec[0].trim().strip_prefix("ose:") {
            // an off-spine entity's total: the sibling geounits that make it up (the AIAN and non-AIAN
            // parts of a state)
            let k = sp
                .ose
                .iter()
                .position(|o| norm_name(&o.name) == norm_name(cat))
                .ok_or_else(|| err!(Input, "invariants line {line}: the geography has no category 'ose:{cat}'"))?;
            let e = sp.ose[k]
                .entities
                .iter()
                .position(|x| x == gid)
                .ok_or_else(|| err!(Input, "invariants line {line}: no entity '{gid}' in ose:{cat}"))?;
            let us = sibling_union(sp, &sp.ose_members(k, e as u32))
                .ok_or_else(|| err!(Input, "invariants line {line}: entity '{gid}' of ose:{cat} is not a union of sibling geounits"))?;
            let t = parse_total(&rec[2], line)?;
            if groups.iter().any(|(g, _)| g.iter().any(|u| us.contains(u))) {
                return fallible!(Input, "invariants line {line}: entity '{gid}' overlaps another invariant");
            }
            if us.len() == 1 {
                if inv[us[0] as usize] >= 0 {
                    return fallible!(Input, "invariants line {line}: second invariant for '{}'", sp.ids[us[0] as usize]);
                }
                inv[us[0] as usize] = t;
            } else {
                groups.push((us, t));
            }
            continue;
        }
        let u =
            *index.get(gid).ok_or_else(|| err!(Input, "invariants line {line}: geounit '{gid}' is not in the run's geography"))? as usize;
        if norm_name(rec[0].trim()) != norm_name(&sp.levels[sp.level[u] as usize]) {
            return fallible!(
                Input,
                "invariants line {line}: geounit '{gid}' is a {}, not a {}",
                sp.levels[sp.level[u] as usize],
                rec[0].trim()
            );
        }
        let t = parse_total(&rec[2], line)?;
        if groups.iter().any(|(g, _)| g.contains(&(u as u32))) {
            return fallible!(Input, "invariants line {line}: '{gid}' is also in a group invariant");
        }
        if inv[u] >= 0 {
            return fallible!(Input, "invariants line {line}: second invariant for '{gid}'");
        }
        inv[u] = t;
    }
    run.invariant = inv;
    run.cons.groups = groups;
    run.check_invariants().map_err(|e| e.context("invariants"))
}

fn parse_total(s: &str, line: u64) -> Fallible<i64> {
    let t: i64 = s.trim().parse().map_err(|_| err!(Input, "invariants line {line}: total '{s}' is not a non-negative integer"))?;
    if t < 0 {
        return fallible!(Input, "invariants line {line}: negative total {t}");
    }
    if t > MAX_COUNT {
        return fallible!(Input, "invariants line {line}: total {t} is above 10^12 (no population is that large)");
    }
    Ok(t)
}

/// `units.csv` (`block,hhgq,units`) into the run's group-quarters bounds.
fn read_units(path: &Path, run: &mut RunData) -> Fallible<()> {
    let f = std::fs::File::open(path).map_err(|e| err!(Io, "cannot read units '{}': {e}", path.display()))?;
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::with_capacity(1 << 20, f));
    let hdr = rdr.headers().map_err(|e| crate::error::Error::from(e).context("units: bad header"))?.clone();
    if hdr.len() != 3 || hdr.iter().zip(["block", "hhgq", "units"]).any(|(a, b)| a.trim() != b) {
        return fallible!(Input, "units: header must be block,hhgq,units");
    }
    let sp = &run.spine;
    let types = run.schema.card[0] as usize;
    let index = unit_index(sp);
    let mut block_units = vec![0u32; sp.blocks.len() * types];
    let mut rec = csv::StringRecord::new();
    let mut line = 1u64;
    while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("units line {}", line + 1)))? {
        line += 1;
        let b = rec[0].trim();
        let u = *index.get(b).ok_or_else(|| err!(Input, "units line {line}: block '{b}' is not in the run's geography"))?;
        let bn = sp.block_no[u as usize];
        if bn == NONE {
            return fallible!(Input, "units line {line}: '{b}' is not a block");
        }
        let t: usize = rec[1].trim().parse().map_err(|_| err!(Input, "units line {line}: hhgq '{}' is not a number", &rec[1]))?;
        if t >= types {
            return fallible!(Input, "units line {line}: hhgq {t} outside the schema (0..{types})");
        }
        let n: u32 = rec[2].trim().parse().map_err(|_| err!(Input, "units line {line}: units '{}' is not a count below 2^32", &rec[2]))?;
        let slot = &mut block_units[bn as usize * types + t];
        if *slot != 0 {
            return fallible!(Input, "units line {line}: second row for block '{b}', hhgq {t}");
        }
        *slot = n;
    }
    run.cons.units = aggregate_units(sp, &block_units, types);
    run.cons.types = types;
    Ok(())
}
