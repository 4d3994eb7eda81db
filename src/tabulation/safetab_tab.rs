//! Persons → exact counts per population group (shared by SafeTab-P and SafeTab): one streaming,
//! validating read of the persons file; a record's race codes and ethnicity code are mapped to its
//! characteristic iterations per iteration level ([HBC25, §2.2, §5.4.1]: Alone when every race code is
//! in the group, Alone or in Any Combination when some code is, the ethnicity group of QSPAN), its block
//! to its geographic entities, and, with several passes ([HBC25, §5.4.2]), its state to the one pass
//! that tabulates it.

use crate::error::Fallible;
use crate::tabulation::safetab_spec::{block_key, GeoLevel, Geography, Iterations, NONE};
use crate::{err, fallible};
use std::io::Read;
use std::path::Path;

/// Start ages of the Age23 bins (T02003); Age9 (T02002) and Age4 (T02001) bins are unions of them.
pub const AGE23: [u32; 23] = [0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85];
pub const AGE9: [u32; 9] = [0, 5, 18, 25, 35, 45, 55, 65, 75];
pub const AGE4: [u32; 4] = [0, 18, 45, 65];
pub const MAX_AGE: u32 = 115;
/// Sex × Age23 cells of one group.
pub const CELLS: usize = 46;

pub const PERSON_COLUMNS: [&str; 15] = [
    "QAGE",
    "QSEX",
    "TABBLKST",
    "TABBLKCOU",
    "TABTRACTCE",
    "TABBLK",
    "QRACE1",
    "QRACE2",
    "QRACE3",
    "QRACE4",
    "QRACE5",
    "QRACE6",
    "QRACE7",
    "QRACE8",
    "QSPAN",
];

/// Which population groups one level tabulates (shared by SafeTab-P and SafeTab): the level's geography
/// and iteration level, and whether TOTAL_ONLY iterations are tabulated at it (SafeTab-P: only at
/// USA/STATE; SafeTab (race & ethnicity): everywhere, RE Alg. 2 has no geographic restriction).
#[derive(Clone, Copy, Debug)]
pub struct TabLevel {
    pub geo: GeoLevel,
    pub detailed: bool,
    pub include_total_only: bool,
    /// a level of the Puerto Rico pass: REGION_TYPE PR-STATE, PR-COUNTY, … ([HBC25, §5.4.2])
    pub pr: bool,
}

impl TabLevel {
    /// REGION_TYPE of the released rows.
    pub fn region_type(&self) -> String {
        if self.pr {
            format!("PR-{}", self.geo.name())
        } else {
            self.geo.name().to_string()
        }
    }
}

/// One pass of a run: its levels and its geography (None: the whole geography file).
pub struct PassTab<'a> {
    pub levels: &'a [TabLevel],
    pub geo: Option<&'a Geography>,
}

/// Exact tabulation of one level: counts[(geo·n_iter + it)·46 + sex·23 + age23].
pub struct LevelCounts {
    pub level: TabLevel,
    /// global iteration index → local index (None: not tabulated at this level)
    pub local: Vec<Option<u32>>,
    /// local → global
    pub iters: Vec<u32>,
    pub n_geo: usize,
    pub counts: Vec<u32>,
}

fn age_bin_table() -> [u8; 116] {
    let mut t = [0u8; 116];
    for (a, slot) in t.iter_mut().enumerate() {
        *slot = (AGE23.iter().rposition(|&s| s as usize <= a).expect("invariant: the first bin starts at 0")) as u8;
    }
    t
}

/// Validate and tabulate the persons file for the given levels (one streaming pass; no noise): header,
/// QAGE 0–115, QSEX 1/2, block in the geography, race/ethnicity codes known, ≤ `stability` groups per
/// record and level. Errors name the file line. Shared by SafeTab-P and SafeTab (race & ethnicity).
pub fn tabulate_levels(
    specs: &[TabLevel],
    stability: u32,
    its: &Iterations,
    geo: &Geography,
    persons: &Path,
    progress: bool,
) -> Fallible<(Vec<LevelCounts>, u64)> {
    let (mut out, n, _) = tabulate_passes(&[PassTab { levels: specs, geo: None }], stability, its, geo, persons, progress)?;
    Ok((out.remove(0), n))
}

/// [`tabulate_levels`] for several passes in one read of the persons file: a record counts in the pass
/// whose geography holds its block; a record whose block is in `full` but in no pass's geography is
/// validated and skipped (its state is tabulated by no pass of this run). Returns the counts per pass,
/// the records read and the records skipped.
pub fn tabulate_passes(
    passes: &[PassTab],
    stability: u32,
    its: &Iterations,
    full: &Geography,
    persons: &Path,
    progress: bool,
) -> Fallible<(Vec<Vec<LevelCounts>>, u64, u64)> {
    let mut out = allocate_counts(passes, its, full)?;
    let (mut rdr, pb) = persons_reader(persons, progress)?;
    let pname = persons.display().to_string();
    let ages = age_bin_table();
    let mut rec = csv::ByteRecord::new();
    let mut n: u64 = 0;
    let mut skipped: u64 = 0;
    let mut groups = RecordGroups::default();
    loop {
        let line = n + 2;
        match rdr.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let kind = if e.is_io_error() { crate::error::ErrorKind::Io } else { crate::error::ErrorKind::Input };
                return Err(crate::error::Error::new(kind, format!("{pname} line {line}: malformed row ({e})")));
            }
        }
        n += 1;
        let f = |i: usize| rec.get(i).unwrap_or(b"");
        let age = parse_u32(f(0)).ok_or_else(|| err!(Input, "{pname} line {line}: QAGE '{}' is not an integer", lossy(f(0))))?;
        if age > MAX_AGE {
            return fallible!(Input, "{pname} line {line}: QAGE {age} outside 0–{MAX_AGE}");
        }
        let sex = match f(1) {
            b"1" => 0usize,
            b"2" => 1usize,
            o => return fallible!(Input, "{pname} line {line}: QSEX must be 1 or 2, got '{}'", lossy(o)),
        };
        let key = block_key(f(2), f(3), f(4), f(5)).ok_or_else(|| err!(Input, "{pname} line {line}: malformed block id"))?;
        let g = full.blocks.get(&key).ok_or_else(|| {
            err!(
                Input,
                "{pname} line {line}: block {}{}{}{} is not in the geography file",
                lossy(f(2)),
                lossy(f(3)),
                lossy(f(4)),
                lossy(f(5))
            )
        })?;
        groups.read(&f, its, stability as usize, &pname, line)?;
        let cell = sex * 23 + ages[age as usize] as usize;
        // the pass whose geography holds the block (the whole file when a pass has no geography of its own)
        let mut here = None;
        for (pi, pass) in passes.iter().enumerate() {
            match pass.geo {
                None => here = Some((pi, g)),
                Some(pg) => here = pg.blocks.get(&key).map(|b| (pi, b)),
            }
            if here.is_some() {
                break;
            }
        }
        let Some((pi, g)) = here else {
            skipped += 1;
            continue;
        };
        count_record(&mut out[pi], g, &groups.groups, cell, &pname, line)?;
        if n.is_multiple_of(1 << 20) {
            if let Some(pb) = &pb {
                pb.set_message(format!("{n} persons"));
            }
        }
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok((out, n, skipped))
}

/// The zeroed counts of every level of every pass (refused beyond 400 million cells in all).
fn allocate_counts(passes: &[PassTab], its: &Iterations, full: &Geography) -> Fallible<Vec<Vec<LevelCounts>>> {
    let mut out: Vec<Vec<LevelCounts>> = Vec::new();
    let mut cells_total: u64 = 0;
    for pass in passes {
        let geo = pass.geo.unwrap_or(full);
        let mut levels: Vec<LevelCounts> = Vec::new();
        for spec in pass.levels {
            let mut local = vec![None; its.list.len()];
            let mut iters = Vec::new();
            for (g, it) in its.list.iter().enumerate() {
                // TotalOnly (DETAILED_ONLY) iterations below state only where the level includes them,
                // COARSE_ONLY iterations never at nation/state
                let here = if spec.geo.substate() { spec.include_total_only || !it.total_only } else { !it.coarse_only };
                if it.detailed == spec.detailed && here {
                    local[g] = Some(iters.len() as u32);
                    iters.push(g as u32);
                }
            }
            let n_geo = geo.ids[&spec.geo].len();
            let n = n_geo * iters.len() * CELLS;
            cells_total += n as u64;
            if cells_total > 400_000_000 {
                return fallible!(Input, "population-group universe too large for the dense tabulation (> 400M cells)");
            }
            levels.push(LevelCounts { level: *spec, local, iters, n_geo, counts: vec![0u32; n] });
        }
        out.push(levels);
    }
    Ok(out)
}

/// A persons file read as CSV, through a progress bar or not.
type PersonsReader = csv::Reader<Box<dyn Read>>;

/// The persons file's CSV reader (behind a progress bar of bytes read when `progress`), its header checked.
fn persons_reader(persons: &Path, progress: bool) -> Fallible<(PersonsReader, Option<indicatif::ProgressBar>)> {
    let file = std::fs::File::open(persons).map_err(|e| err!(Io, "cannot read '{}': {e}", persons.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let pb = if progress {
        let pb = indicatif::ProgressBar::new(size);
        pb.set_style(
            indicatif::ProgressStyle::with_template("reading persons {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta}) {msg}")
                .expect("invariant: a valid progress template"),
        );
        Some(pb)
    } else {
        None
    };
    let reader: Box<dyn Read> = match &pb {
        Some(pb) => Box::new(pb.wrap_read(std::io::BufReader::with_capacity(1 << 20, file))),
        None => Box::new(std::io::BufReader::with_capacity(1 << 20, file)),
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(reader);
    let pname = persons.display().to_string();
    {
        let h = rdr.byte_headers().map_err(|e| crate::error::Error::from(e).context(format!("{pname} line 1")))?;
        let cols: Vec<&[u8]> = h.iter().collect();
        if cols.len() != PERSON_COLUMNS.len() || cols.iter().zip(PERSON_COLUMNS).any(|(a, b)| *a != b.as_bytes()) {
            return fallible!(Input, "{pname} line 1: header must be {}", PERSON_COLUMNS.join(","));
        }
    }
    Ok((rdr, pb))
}

/// The population groups of one record, per iteration level (detailed, regional): its race codes' Alone
/// or in Any Combination groups, the Alone group when every code shares one, and its ethnicity group
/// ([HBC25, §2.2]); scratch buffers reused from record to record.
#[derive(Default)]
struct RecordGroups {
    codes: Vec<usize>,
    groups: [Vec<u32>; 2],
    key_buf: String,
}

impl RecordGroups {
    /// Read the groups of the record `f` (field by index); at most `s` (the stability) per level.
    fn read<'r>(&mut self, f: &impl Fn(usize) -> &'r [u8], its: &Iterations, s: usize, pname: &str, line: u64) -> Fallible<()> {
        let RecordGroups { codes, groups, key_buf } = self;
        // race codes
        codes.clear();
        for i in 6..14 {
            let c = f(i);
            if c.is_empty() {
                continue;
            }
            if !codes.iter().any(|&j| f(j) == c) {
                codes.push(i);
            }
        }
        if f(6).is_empty() {
            return fallible!(Input, "{pname} line {line}: QRACE1 is empty");
        }
        for lv in groups.iter_mut() {
            lv.clear();
        }
        let mut alone: [Option<Option<u32>>; 2] = [None, None];
        for &ci in codes.iter() {
            let c = f(ci);
            key_buf.clear();
            key_buf.push_str(std::str::from_utf8(c).map_err(|_| err!(Input, "{pname} line {line}: race code is not UTF-8"))?);
            let m = its.race_groups(key_buf.as_str()).ok_or_else(|| err!(Input, "{pname} line {line}: unknown race code '{key_buf}'"))?;
            for l in 0..2 {
                if let Some(a) = m.aoic[l] {
                    if !groups[l].contains(&a) {
                        groups[l].push(a);
                    }
                }
                alone[l] = match alone[l] {
                    None => Some(m.alone[l]),
                    Some(prev) if prev == m.alone[l] => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
        for l in 0..2 {
            if let Some(Some(a)) = alone[l] {
                groups[l].push(a);
            }
        }
        let sp = f(14);
        let sps = std::str::from_utf8(sp).unwrap_or("");
        let em = its.eth_groups(sps).ok_or_else(|| err!(Input, "{pname} line {line}: unknown ethnicity code '{}'", lossy(sp)))?;
        for l in 0..2 {
            if let Some(a) = em.alone[l] {
                groups[l].push(a);
            }
            if groups[l].len() > s {
                return fallible!(
                    Input,
                    "{pname} line {line}: record maps to {} groups in one level, above the stability {s}",
                    groups[l].len()
                );
            }
        }
        Ok(())
    }
}

/// Count one record (its block's entities `g`, its groups, its sex × age cell) in every level of its pass.
fn count_record(levels: &mut [LevelCounts], g: &[u32], groups: &[Vec<u32>; 2], cell: usize, pname: &str, line: u64) -> Fallible<()> {
    for lc in levels.iter_mut() {
        let gi = match lc.level.geo {
            GeoLevel::Usa => 0,
            GeoLevel::State => g[0],
            GeoLevel::County => g[1],
            GeoLevel::Tract => g[2],
            GeoLevel::Place => g[3],
            GeoLevel::Aiannh => g[4],
        };
        if gi == NONE {
            continue;
        }
        let ni = lc.iters.len();
        for &it in &groups[if lc.level.detailed { 0 } else { 1 }] {
            if let Some(li) = lc.local[it as usize] {
                let c = &mut lc.counts[(gi as usize * ni + li as usize) * CELLS + cell];
                // a cell holds at most the number of records: refuse rather than wrap past u32
                *c = c.checked_add(1).ok_or_else(|| err!(Input, "{pname} line {line}: more than {} persons in one cell", u32::MAX))?;
            }
        }
    }
    Ok(())
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(40).collect()
}

fn parse_u32(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    let mut v: u32 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tabulation::safetab_prod::{iterations, ProductionSpecs};

    /// Exact counts on the production files, expected values read off the files by hand:
    /// 1010 Albanian → 1003 Albanian alone, 1114 Albanian AOIC, 1002 European alone, 1113 European AOIC;
    /// 1030 Austrian → 1007 / 1118 / 1002 / 1113; 2011 Mexican → race 3980 / 4006 (detailed, DETAILED_ONLY)
    /// and 3977 / 4003 (regional, DETAILED_ONLY), ethnicity 4015 Mexican (detailed only); 9950 in no
    /// group. Persons: A (state 01) 1010+1030 / 9950, B (72) 2011 / 2011, C (03) 1010 / 9950,
    /// D (01) 1010 / 2011. US pass = state 01 only, PR pass = 72: C is skipped, B counts in PR only.
    #[test]
    fn passes_route_persons_and_map_codes_as_the_files_say() {
        let its = iterations(&ProductionSpecs::resolve(None)).unwrap();
        let d = tempfile::tempdir().unwrap();
        let geo_p = d.path().join("geo.txt");
        std::fs::write(
            &geo_p,
            "TABBLKST|TABBLKCOU|TABTRACTCE|TABBLK|PLACEFP|AIANNHCE\n01|001|000001|0001|99999|9999\n72|001|000001|0001|99999|9999\n03|001|000001|0001|99999|9999\n",
        )
        .unwrap();
        let persons = d.path().join("p.csv");
        std::fs::write(
            &persons,
            format!(
                "{}\n30,1,01,001,000001,0001,1010,1030,,,,,,,9950\n70,2,72,001,000001,0001,2011,,,,,,,,2011\n5,1,03,001,000001,0001,1010,,,,,,,,9950\n40,2,01,001,000001,0001,1010,,,,,,,,2011\n",
                PERSON_COLUMNS.join(",")
            ),
        )
        .unwrap();
        let full = Geography::load(&geo_p).unwrap();
        let us_geo = full.subset(&|s: &str| s == "01").unwrap();
        let pr_geo = full.subset(&|s: &str| s == "72").unwrap();
        assert_eq!(us_geo.ids[&GeoLevel::State], ["01"]);
        assert_eq!(pr_geo.ids[&GeoLevel::County], ["72001"]);
        let lv = |geo, detailed, pr| TabLevel { geo, detailed, include_total_only: false, pr };
        let us = [lv(GeoLevel::Usa, true, false), lv(GeoLevel::Usa, false, false), lv(GeoLevel::County, true, false)];
        let pr = [lv(GeoLevel::State, true, true), lv(GeoLevel::County, true, true)];
        let passes = [PassTab { levels: &us, geo: Some(&us_geo) }, PassTab { levels: &pr, geo: Some(&pr_geo) }];
        let (out, n, skipped) = tabulate_passes(&passes, 9, &its, &full, &persons, false).unwrap();
        assert_eq!((n, skipped), (4, 1));
        let count = |lc: &LevelCounts, code: &str| -> Option<u32> {
            let g = its.list.iter().position(|i| i.code == code).unwrap();
            lc.local[g].map(|li| lc.counts[li as usize * CELLS..(li as usize + 1) * CELLS].iter().sum())
        };
        let usa_d = &out[0][0];
        for (code, want) in [("1114", 2), ("1118", 1), ("1003", 1), ("1007", 0), ("4015", 1), ("3980", 0)] {
            assert_eq!(count(usa_d, code), Some(want), "USA detailed {code}");
        }
        for (code, want) in [("1113", 2), ("1002", 2), ("3977", 0)] {
            assert_eq!(count(&out[0][1], code), Some(want), "USA regional {code}");
        }
        // below state the DETAILED_ONLY iterations are not tabulated
        assert_eq!(count(&out[0][2], "1114"), Some(2));
        assert_eq!(count(&out[0][2], "3980"), None);
        assert_eq!(out[0][2].iters.len(), 2150);
        for (code, want) in [("3980", 1), ("4006", 1), ("4015", 1), ("1114", 0)] {
            assert_eq!(count(&out[1][0], code), Some(want), "PR-STATE detailed {code}");
        }
        assert_eq!(out[1][0].iters.len(), 2944);
        assert_eq!(count(&out[1][1], "4015"), Some(1));
        assert_eq!(count(&out[1][1], "4006"), None);
        // B: female (sex index 1), age 70 → Age23 bin 19 (70–74)
        let g = its.list.iter().position(|i| i.code == "4015").unwrap();
        let li = out[1][0].local[g].unwrap() as usize;
        assert_eq!(out[1][0].counts[li * CELLS + 23 + 19], 1);
    }

    /// A code outside the code list is refused with its line; a valid code in no group is accepted.
    #[test]
    fn unknown_code_refused_with_line() {
        let its = iterations(&ProductionSpecs::resolve(None)).unwrap();
        let d = tempfile::tempdir().unwrap();
        let geo_p = d.path().join("geo.txt");
        std::fs::write(&geo_p, "TABBLKST|TABBLKCOU|TABTRACTCE|TABBLK|PLACEFP|AIANNHCE\n01|001|000001|0001|99999|9999\n").unwrap();
        let geo = Geography::load(&geo_p).unwrap();
        let lv = [TabLevel { geo: GeoLevel::Usa, detailed: true, include_total_only: true, pr: false }];
        let persons = d.path().join("p.csv");
        let head = PERSON_COLUMNS.join(",");
        std::fs::write(&persons, format!("{head}\n30,1,01,001,000001,0001,9950,,,,,,,,9950\n")).unwrap();
        let (out, n) = tabulate_levels(&lv, 9, &its, &geo, &persons, false).unwrap();
        assert_eq!((n, out[0].counts.iter().sum::<u32>()), (1, 0));
        std::fs::write(
            &persons,
            format!("{head}\n30,1,01,001,000001,0001,1010,,,,,,,,9950\n30,1,01,001,000001,0001,1010,0007,,,,,,,9950\n"),
        )
        .unwrap();
        let e = tabulate_levels(&lv, 9, &its, &geo, &persons, false).err().unwrap();
        assert!(e.to_string().contains("line 3") && e.to_string().contains("unknown race code '0007'"), "{e}");
    }
}
