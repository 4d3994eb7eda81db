//! TopDown post-processing at national scale: the US and state estimates first, then every state's
//! subtree on its own, reading only that state's measurements, so that memory stays bounded by the
//! spine and the largest state, not the country.
//!
//! Every family TopDown solves depends only on its parent's fixed histogram and its children's
//! measurements, invariants and constraints ([CAK24, §1]; the production engine distributes the
//! families of a geolevel over its cluster the same way): so the subtrees below the states are
//! independent once the state estimates are fixed, and the answer is the one `postprocess_with` gives
//! on the whole run — the same families, the same inputs, the same order of output
//! (`tests/topdown_scale_cli.rs` compares the bytes).
//!
//! 1. One pass over `measurements.csv` checks every row as `load_run` does (duplicates and gaps through
//!    a bit per value), keeps the values of the geounits down to the states, and records for every
//!    state the byte ranges of its subtree's rows (`topdown measure` writes a subtree's rows together).
//! 2. The top of the spine (root to states) is estimated as a run of its own.
//! 3. Each state's subtree is a run of its own, rooted at the state with its estimate fixed
//!    (`postprocess_subtree`), its rows read back from the recorded ranges; its estimates go to one
//!    temporary file per geolevel.
//! 4. The output is written geolevel by geolevel, the states' files merged by geounit, as
//!    `write_estimates` orders it.

use crate::error::Fallible;
use crate::record::csv_field;
use crate::topdown::estimation::load::{open_measurements, RowReader};
use crate::topdown::estimation::passes::LevelPasses;
use crate::topdown::estimation::postprocess::{postprocess_subtree, postprocess_with, Stats};
use crate::topdown::estimation::run::{MeasurementGroup, RunData};
use crate::topdown::measurement::measure::TopdownManifest;
use crate::topdown::spine::{Spine, NONE};
use crate::{err, fallible};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The geolevel the run is split at: the one named State, else the root's children.
pub fn split_level(sp: &Spine) -> usize {
    sp.level_index("State").unwrap_or(1)
}

/// Whether the run can be split (a geolevel below the split level).
pub fn splittable(sp: &Spine) -> bool {
    let st = split_level(sp);
    st >= 1 && st + 1 < sp.n_levels()
}

/// A part of the spine as a run of its own: `units` (global indices, increasing) with their levels
/// shifted by `from`; the measurement groups of those levels; invariants, group invariants and
/// group-quarters units carried over. Values NaN, to be filled.
fn sub_run(run: &RunData, units: &[u32], from: usize, to: usize) -> Fallible<(RunData, HashMap<u32, u32>)> {
    let sp = &run.spine;
    let local: HashMap<u32, u32> = units.iter().enumerate().map(|(i, &u)| (u, i as u32)).collect();
    let ids: Vec<String> = units.iter().map(|&u| sp.ids[u as usize].clone()).collect();
    let level: Vec<u8> = units.iter().map(|&u| sp.level[u as usize] - from as u8).collect();
    let parent: Vec<u32> = units.iter().map(|&u| local.get(&sp.parent[u as usize]).copied().unwrap_or(NONE)).collect();
    // the leaves: the blocks (in the spine's block order) or, for the top, the units of the last level
    let blocks: Vec<u32> = if to + 1 == sp.n_levels() {
        let mut b: Vec<u32> = units.iter().filter(|&&u| sp.block_no[u as usize] != NONE).copied().collect();
        b.sort_unstable_by_key(|&u| sp.block_no[u as usize]);
        b.iter().map(|u| local[u]).collect()
    } else {
        units.iter().enumerate().filter(|(_, &u)| sp.level[u as usize] as usize == to).map(|(i, _)| i as u32).collect()
    };
    let mut s = Spine::assemble(sp.levels[from..=to].to_vec(), ids, level, parent, blocks, Vec::new())?;
    s.span = units.iter().map(|&u| sp.span[u as usize]).collect();
    s.bypass = sp.bypass;
    let groups: Vec<MeasurementGroup> = run
        .groups
        .iter()
        .filter(|g| g.level >= from && g.level <= to)
        .map(|g| MeasurementGroup { level: g.level - from, span: g.span, entries: g.entries.clone(), len: g.len })
        .collect();
    let mut r = RunData::new_layout(s, run.schema.clone(), run.queries.clone(), groups, true)?;
    r.invariant = units.iter().map(|&u| run.invariant[u as usize]).collect();
    r.cons.structural_zero = run.cons.structural_zero.clone();
    if !run.cons.units.is_empty() {
        let t = run.cons.types;
        r.cons.types = t;
        r.cons.units = units.iter().flat_map(|&u| run.cons.units[u as usize * t..(u as usize + 1) * t].iter().copied()).collect();
    }
    r.cons.groups = run
        .cons
        .groups
        .iter()
        .filter(|(us, _)| us.iter().all(|u| local.contains_key(u)))
        .map(|(us, t)| (us.iter().map(|u| local[u]).collect(), *t))
        .collect();
    Ok((r, local))
}

/// Removes the temporary directory of the state files, however the run ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Post-process the run of `dir` state by state (module comment) and write the estimates to `out`.
/// `run` is the run's head (`load::load_head` without values). Returns the statistics and the rows.
pub fn postprocess_by_state(
    dir: &Path,
    run: &RunData,
    m: &TopdownManifest,
    entry_at: &[(usize, usize)],
    passes: &[LevelPasses],
    out: &Path,
) -> Fallible<(Stats, u64)> {
    let sp = &run.spine;
    if !splittable(sp) {
        return fallible!(Input, "internal: the run has no geolevel below the states");
    }
    let st = split_level(sp);
    run.check_invariants()?;
    let (states, state_of) = states_of_units(sp, st);
    let top_units: Vec<u32> = (0..sp.n_units() as u32).filter(|&u| sp.level[u as usize] as usize <= st).collect();
    let (mut top, top_local) = sub_run(run, &top_units, 0, st)?;
    // 1. one pass over the measurements
    let rr = RowReader::new(run, entry_at);
    let ranges = scan_measurements(dir, m, &rr, (&mut top, &top_local), &state_of, states.len())?;
    // 2. the top
    let (top_est, mut stats) = postprocess_with(&top, Some(&passes[..=st]))?;
    // 3. the states
    let tmp =
        TempDir(out.with_file_name(format!(".{}.parts{}", out.file_name().and_then(|n| n.to_str()).unwrap_or("out"), std::process::id())));
    std::fs::create_dir_all(&tmp.0).map_err(|e| err!(Io, "cannot create '{}': {e}", tmp.0.display()))?;
    let _progress = crate::num::progress::begin(&format!("TopDown post-processing, {} states", states.len()), 1e-4 * sp.n_units() as f64);
    let job = StateJob {
        run,
        rr: &rr,
        top: &top,
        top_local: &top_local,
        top_est: &top_est,
        passes,
        path: dir.join(&m.measurements_file),
        tmp: &tmp.0,
    };
    let results: Vec<Fallible<(Stats, Vec<Vec<u32>>)>> =
        (0..states.len()).into_par_iter().map(|si| job.solve(si, states[si], &ranges[si])).collect();
    let mut orders = Vec::with_capacity(states.len());
    for r in results {
        let (s, o) = r?;
        stats.solved += s.solved;
        stats.copied += s.copied;
        orders.push(o);
    }
    // 4. the output, geolevel by geolevel
    let rows = merge_output(out, run, (&top_units, &top_est), &orders, &tmp.0)?;
    Ok((stats, rows))
}

/// The states (the units of the split level) and every unit's state (NONE above the states), walking
/// down from each state (no assumption on the order of the units).
fn states_of_units(sp: &Spine, st: usize) -> (Vec<u32>, Vec<u32>) {
    let states: Vec<u32> = (0..sp.n_units() as u32).filter(|&u| sp.level[u as usize] as usize == st).collect();
    let mut state_of = vec![NONE; sp.n_units()];
    let mut stack: Vec<u32> = Vec::new();
    for (si, &s) in states.iter().enumerate() {
        stack.push(s);
        while let Some(u) = stack.pop() {
            state_of[u as usize] = si as u32;
            stack.extend_from_slice(sp.children(u));
        }
    }
    (states, state_of)
}

/// One pass over the measurements: every row checked as `load_run` does (duplicates, gaps, the row
/// count), the values of the units at and above the states put into the top run, and for each state the
/// byte ranges of its subtree's rows.
fn scan_measurements(
    dir: &Path,
    m: &TopdownManifest,
    rr: &RowReader,
    (top, top_local): (&mut RunData, &HashMap<u32, u32>),
    state_of: &[u32],
    n_states: usize,
) -> Fallible<Vec<Vec<(u64, u64)>>> {
    let run = rr.run();
    let (sp, st) = (&run.spine, split_level(&run.spine));
    let total: usize = (0..sp.n_units()).filter(|&u| run.unit_group[u] != NONE).map(|u| run.groups[run.unit_group[u] as usize].len).sum();
    let mut seen = vec![0u64; total.div_ceil(64)];
    let mut ranges: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n_states];
    {
        let mut rdr = open_measurements(dir, m)?;
        let mut rec = csv::StringRecord::new();
        let (mut rows, mut line) = (0u64, 1u64);
        loop {
            let start = rdr.position().byte();
            if !rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("measurements line {}", line + 1)))? {
                break;
            }
            line += 1;
            let end = rdr.position().byte();
            let (u, i, v) = rr.row(&rec, line)?;
            if seen[i / 64] & (1 << (i % 64)) != 0 {
                return Err(rr.duplicate(&rec, line));
            }
            seen[i / 64] |= 1 << (i % 64);
            rows += 1;
            if (sp.level[u] as usize) <= st {
                let lu = top_local[&(u as u32)] as usize;
                top.values[top.unit_off[lu] + (i - run.unit_off[u])] = v;
            } else {
                let r = &mut ranges[state_of[u] as usize];
                match r.last_mut() {
                    Some(last) if last.1 == start => last.1 = end,
                    _ => r.push((start, end)),
                }
            }
        }
        if rows != m.rows {
            return fallible!(Input, "measurements has {rows} rows but the manifest says {}", m.rows);
        }
        if let Some(i) = (0..total).find(|&i| seen[i / 64] & (1 << (i % 64)) == 0) {
            return Err(rr.missing(i));
        }
    }
    Ok(ranges)
}

/// What each state's post-processing reads: the run, the top's run and estimates, the passes, the
/// measurements file and the folder of the per-state parts.
struct StateJob<'a> {
    run: &'a RunData,
    rr: &'a RowReader<'a>,
    top: &'a RunData,
    top_local: &'a HashMap<u32, u32>,
    top_est: &'a [i64],
    passes: &'a [LevelPasses],
    path: PathBuf,
    tmp: &'a Path,
}

impl StateJob<'_> {
    /// State `s` (index `si`): its subtree's rows read from `ranges`, post-processed below the top's
    /// estimate of it, its estimates written one file per geolevel below it; its statistics and, per
    /// geolevel, its units in spine order.
    fn solve(&self, si: usize, s: u32, ranges: &[(u64, u64)]) -> Fallible<(Stats, Vec<Vec<u32>>)> {
        let (run, top, top_local, top_est, passes, path) = (self.run, self.top, self.top_local, self.top_est, self.passes, &self.path);
        let sp = &run.spine;
        let (st, nl, nc) = (split_level(sp), sp.n_levels(), run.schema.cells());
        let ls = top_local[&s] as usize;
        let root_est = &top_est[ls * nc..(ls + 1) * nc];
        let mut units: Vec<u32> = vec![s];
        let mut i = 0;
        while i < units.len() {
            units.extend_from_slice(sp.children(units[i]));
            i += 1;
        }
        units.sort_unstable();
        let (mut r, local) = sub_run(run, &units, st, nl - 1)?;
        // the state's own values (from the top run), then its subtree's rows
        let lo = top.unit_off[ls];
        if top.unit_group[ls] != NONE {
            let len = top.groups[top.unit_group[ls] as usize].len;
            r.values[r.unit_off[0]..r.unit_off[0] + len].copy_from_slice(&top.values[lo..lo + len]);
        }
        let rr = self.rr;
        let mut f = std::fs::File::open(path).map_err(|e| err!(Io, "cannot read measurements '{}': {e}", path.display()))?;
        let mut buf = Vec::new();
        for &(a, b) in ranges {
            buf.clear();
            f.seek(std::io::SeekFrom::Start(a)).map_err(|e| crate::error::Error::from(e).context("measurements"))?;
            (&mut f).take(b - a).read_to_end(&mut buf).map_err(|e| crate::error::Error::from(e).context("measurements"))?;
            let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(&buf[..]);
            let mut rec = csv::StringRecord::new();
            while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context("measurements"))? {
                let (u, i, v) = rr.row(&rec, 0)?;
                let lu = local[&(u as u32)] as usize;
                r.values[r.unit_off[lu] + (i - run.unit_off[u])] = v;
            }
        }
        let (est, st_stats) =
            postprocess_subtree(&r, root_est, Some(&passes[st..])).map_err(|e| e.context(format!("state '{}'", sp.ids[s as usize])))?;
        // its estimates, one file per geolevel below the state, units in spine order
        let mut order: Vec<Vec<u32>> = vec![Vec::new(); nl - st];
        let mut files: Vec<std::io::BufWriter<std::fs::File>> = Vec::new();
        for l in 1..nl - st {
            let p = self.tmp.join(format!("s{si}-l{l}"));
            files.push(std::io::BufWriter::with_capacity(
                1 << 16,
                std::fs::File::create(&p).map_err(|e| err!(Io, "cannot write '{}': {e}", p.display()))?,
            ));
        }
        let mut line = String::with_capacity(128);
        for (lu, &u) in units.iter().enumerate() {
            let l = r.spine.level[lu] as usize;
            if l == 0 {
                continue;
            }
            order[l].push(u);
            write_unit(sp, u as usize, &est[lu * nc..(lu + 1) * nc], &mut line);
            files[l - 1].write_all(line.as_bytes()).map_err(|e| err!(Io, "write failed: {e}"))?;
        }
        for f in files.iter_mut() {
            f.flush().map_err(|e| err!(Io, "write failed: {e}"))?;
        }
        Ok((st_stats, order))
    }
}

/// The output, geolevel by geolevel: the top's units, then each geolevel below the states merged from
/// the states' parts in spine order. The number of rows.
fn merge_output(out: &Path, run: &RunData, (top_units, top_est): (&[u32], &[i64]), orders: &[Vec<Vec<u32>>], tmp: &Path) -> Fallible<u64> {
    let sp = &run.spine;
    let (st, nl, nc, n_states) = (split_level(sp), sp.n_levels(), run.schema.cells(), orders.len());
    crate::record::write_streamed(out, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        let e = |e: std::io::Error| err!(Io, "write failed: {e}");
        writeln!(w, "level,geounit,parent,cell,count").map_err(e)?;
        let mut line = String::with_capacity(128);
        for l in 0..=st {
            for (lu, &u) in top_units.iter().enumerate() {
                if sp.level[u as usize] as usize == l {
                    write_unit(sp, u as usize, &top_est[lu * nc..(lu + 1) * nc], &mut line);
                    w.write_all(line.as_bytes()).map_err(e)?;
                }
            }
        }
        let mut text = Vec::new();
        for l in 1..nl - st {
            let mut readers: Vec<std::io::BufReader<std::fs::File>> = (0..n_states)
                .map(|si| {
                    std::fs::File::open(tmp.join(format!("s{si}-l{l}"))).map(|f| std::io::BufReader::with_capacity(1 << 16, f)).map_err(e)
                })
                .collect::<Result<_, _>>()?;
            let mut next = vec![0usize; n_states];
            let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u32, usize)>> =
                (0..n_states).filter(|&si| !orders[si][l].is_empty()).map(|si| std::cmp::Reverse((orders[si][l][0], si))).collect();
            while let Some(std::cmp::Reverse((_, si))) = heap.pop() {
                for _ in 0..nc {
                    text.clear();
                    readers[si].read_until(b'\n', &mut text).map_err(e)?;
                    w.write_all(&text).map_err(e)?;
                }
                next[si] += 1;
                if let Some(&u) = orders[si][l].get(next[si]) {
                    heap.push(std::cmp::Reverse((u, si)));
                }
            }
        }
        w.flush().map_err(e)?;
        Ok((sp.n_units() * nc) as u64)
    })
}

/// The `nc` rows of unit u (`write_estimates`' format) into `line`.
fn write_unit(sp: &Spine, u: usize, est: &[i64], line: &mut String) {
    use std::fmt::Write as _;
    line.clear();
    let p = sp.parent[u];
    let pid = if p == NONE { "" } else { sp.ids[p as usize].as_str() };
    let (lv, id, pid) = (csv_field(&sp.levels[sp.level[u] as usize]), csv_field(&sp.ids[u]), csv_field(pid));
    for (k, v) in est.iter().enumerate() {
        let _ = writeln!(line, "{lv},{id},{pid},{k},{v}");
    }
}
