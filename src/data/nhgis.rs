//! NHGIS CSV extracts of the 2010 Census Summary File 1 (NHGIS dataset `2010_SF1a`, NHGIS ID `ds172`) and
//! of the NHGIS Privacy-Protected 2010 Census Demonstration Data (PPDD) — the data of
//! [SSW24, §3.2] (Figure 6) and §3.4.1 (Figure 8), reference (26).
//!
//! Column names (NHGIS conventions; sources: the NHGIS codebook of a `ds172` block extract shipped with
//! ipumsr 0.5.2, `nhgis0024_ds172_2010_block_codebook.txt`, "Context Fields: GISJOIN, YEAR, REGIONA,
//! DIVISIONA, STATE, STATEA, COUNTY, COUNTYA, COUSUBA, PLACEA, TRACTA, BLKGRPA, BLOCKA, …"; and NHGIS's
//! own PPDD production code, github.com/vanriper-ipums/ppmf-tabs, `r_docs/6_compute_dummy_vars.r` and
//! `data/headers/header_nhgis_race7.csv`):
//!
//! * `GISJOIN` (PPDD: `gisjoin`): "G" + state FIPS (2) + "0" + county (3) + "0" + tract (6) + block
//!   group (1) / block (4); its length gives the level: state 4, county 8, tract 14, block group 15,
//!   block 18 characters.
//! * SF1 table P1 "Total population" = NHGIS table `H7V`: `H7V001`.
//! * SF1 table P3 "Race" (7 categories) = NHGIS `H7X`: `H7X001` Total, `H7X002`–`H7X008` White, Black,
//!   AI/AN, Asian, NH/PI, Some Other Race alone, Two or More Races.
//! * SF1 table P8 "Race" (71 cells) = NHGIS `H72`: `H72001` Total, `H72002` Population of one race,
//!   `H72003`–`H72008` the six races alone, `H72009` Two or More Races (then the 62 multi-race cells).
//!   These first nine cells are the paper's "nine racial queries" (§3.4.1; Figure 8's labels
//!   "Population of one race: American Indian and Alaska Native alone" are P8's).
//! * PPDD files carry each code twice, `<code>_sf` (the 2010 Summary File value) and `<code>_dp` (the
//!   privacy-protected value). The true counts y₂₀₁₀ of the paper's footnote 9 are the `_sf` columns.
//!
//! A file may hold several levels (rows are grouped by their GISJOIN); an optional second,
//! descriptive header row ("GIS Join Match Code", …) is skipped.

use crate::data::table;
use crate::error::Fallible;
use crate::{err, fallible};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Geographic level of a 2010 NHGIS unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Geo {
    State,
    County,
    Tract,
    BlockGroup,
    Block,
}

impl Geo {
    /// Level of a 2010 GISJOIN code by its length (NHGIS: "G" + FIPS codes, each followed by "0" up to
    /// the county).
    pub fn of_gisjoin(g: &str) -> Option<Geo> {
        if !g.starts_with('G') || !g[1..].bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        match g.len() {
            4 => Some(Geo::State),
            8 => Some(Geo::County),
            14 => Some(Geo::Tract),
            15 => Some(Geo::BlockGroup),
            18 => Some(Geo::Block),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Geo::State => "state",
            Geo::County => "county",
            Geo::Tract => "tract",
            Geo::BlockGroup => "block group",
            Geo::Block => "block",
        }
    }

    pub fn parse(s: &str) -> Fallible<Geo> {
        let k: String = s.chars().filter(|c| c.is_ascii_alphanumeric()).flat_map(|c| c.to_lowercase()).collect();
        match k.as_str() {
            "state" => Ok(Geo::State),
            "county" => Ok(Geo::County),
            "tract" => Ok(Geo::Tract),
            "blockgroup" | "blkgrp" | "blckgrp" => Ok(Geo::BlockGroup),
            "block" => Ok(Geo::Block),
            _ => fallible!(Input, "unknown NHGIS level '{s}' (state, county, tract, block group, block)"),
        }
    }

    /// The level of the 2022-08-25 DHC allocation ([SSW24, Table 1]) whose noise
    /// the paper's Figure 6 applies at this level. Tract → "Tract Subset" (the tract-level spine units; the
    /// printed tract MSE reduction 15.45% is the Monte Carlo estimate of 15.33%, Tract Subset's variance
    /// reduction, not of Tract Subset Group's 16.62%); block group → "Optimized Block Group".
    pub fn table1_level(self) -> &'static str {
        match self {
            Geo::State => "State",
            Geo::County => "County",
            Geo::Tract => "Tract Subset",
            Geo::BlockGroup => "Optimized Block Group",
            Geo::Block => "Block",
        }
    }
}

/// The race table read from an extract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceTable {
    /// SF1 P8 (NHGIS H72), the first nine cells.
    P8,
    /// SF1 P3 (NHGIS H7X), eight cells.
    P3,
    /// SF1 P1 (NHGIS H7V), total population only.
    P1,
}

impl RaceTable {
    pub fn parse(s: &str) -> Fallible<Option<RaceTable>> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(None),
            "p8" | "h72" => Ok(Some(RaceTable::P8)),
            "p3" | "h7x" => Ok(Some(RaceTable::P3)),
            "p1" | "h7v" => Ok(Some(RaceTable::P1)),
            _ => fallible!(Input, "unknown table '{s}' (auto, p8, p3, p1)"),
        }
    }

    pub fn codes(self) -> &'static [&'static str] {
        match self {
            RaceTable::P8 => &["H72001", "H72002", "H72003", "H72004", "H72005", "H72006", "H72007", "H72008", "H72009"],
            RaceTable::P3 => &["H7X001", "H7X002", "H7X003", "H7X004", "H7X005", "H7X006", "H7X007", "H7X008"],
            RaceTable::P1 => &["H7V001"],
        }
    }

    /// Short labels in words (Figure 8's abbreviations AI/AN, NH/PI).
    pub fn labels(self) -> &'static [&'static str] {
        match self {
            RaceTable::P8 => &["Total", "One race", "White", "Black", "AI/AN", "Asian", "NH/PI", "Other race", "Two or more"],
            RaceTable::P3 => &["Total", "White", "Black", "AI/AN", "Asian", "NH/PI", "Other race", "Two or more"],
            RaceTable::P1 => &["Total"],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RaceTable::P8 => "P8, NHGIS H72001-H72009",
            RaceTable::P3 => "P3, NHGIS H7X001-H7X008",
            RaceTable::P1 => "P1, NHGIS H7V001",
        }
    }

    pub fn cells(self) -> usize {
        self.codes().len()
    }
}

/// The true counts of one level: `counts[u * cells + j]` is cell j of unit u.
#[derive(Clone, Debug)]
pub struct NhgisLevel {
    pub geo: Geo,
    pub table: RaceTable,
    pub units: usize,
    pub counts: Vec<u32>,
    /// two-digit state FIPS codes present
    pub states: Vec<String>,
    pub files: Vec<PathBuf>,
}

impl NhgisLevel {
    pub fn cells(&self) -> usize {
        self.table.cells()
    }
    pub fn cell(&self, u: usize, j: usize) -> u32 {
        self.counts[u * self.table.cells() + j]
    }
}

/// Where a table's codes sit in a header: plain NHGIS (`H72001`) or PPDD (`H72001_sf`).
fn locate(header: &[String], t: RaceTable) -> Fallible<Option<Vec<usize>>> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for c in t.codes() {
        let pos = table::find(header, c, true).or_else(|| table::find(header, &format!("{c}_sf"), true));
        match pos {
            Some(p) => found.push(p),
            None => missing.push(*c),
        }
    }
    if missing.is_empty() {
        Ok(Some(found))
    } else if found.is_empty() {
        Ok(None)
    } else {
        fallible!(Input, "no column '{}' (table {} is incomplete)", missing[0], t.name())
    }
}

/// Whether a header is an NHGIS 2010 SF1 / PPDD extract with a race or population table (used when
/// scanning a directory of downloads).
pub fn looks_like(header: &[String]) -> bool {
    table::find(header, "GISJOIN", true).is_some()
        && [RaceTable::P8, RaceTable::P3, RaceTable::P1].iter().any(|&t| matches!(locate(header, t), Ok(Some(_))))
}

/// Read NHGIS extracts. `want`: the table to read (None: the richest table present in every file, P8 then
/// P3 then P1); `state`: keep only units of this state (two-digit FIPS). Units are grouped by level.
pub fn read(paths: &[PathBuf], want: Option<RaceTable>, state: Option<&str>) -> Fallible<Vec<NhgisLevel>> {
    if paths.is_empty() {
        return fallible!(Input, "no NHGIS file given");
    }
    if let Some(s) = state {
        if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return fallible!(Input, "state must be a two-digit FIPS code, got '{s}'");
        }
    }
    let headers: Vec<Vec<String>> = paths.iter().map(|p| table::header(p)).collect::<Result<_, _>>()?;
    // the table: requested, or the richest one every file has
    let table = match want {
        Some(t) => t,
        None => richest_table(paths, &headers)?,
    };
    let cells = table.cells();
    let mut by_geo: BTreeMap<Geo, NhgisLevel> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (path, h) in paths.iter().zip(&headers) {
        let gj = table::find(h, "GISJOIN", true)
            .ok_or_else(|| err!(Input, "'{}': no column 'GISJOIN': not an NHGIS 2010 SF1 (ds172) extract", path.display()))?;
        let cols = locate(h, table)
            .map_err(|e| e.context(format!("'{}'", path.display())))?
            .ok_or_else(|| err!(Input, "'{}': no column '{}' (table {})", path.display(), table.codes()[0], table.name()))?;
        let statea = table::find(h, "STATEA", false);
        let mut want_cols = vec![gj];
        want_cols.extend(&cols);
        if let Some(s) = statea {
            want_cols.push(s);
        }
        let mut first = true;
        let mut vals = vec![0u32; cells];
        table::visit(path, &want_cols, &mut |line, f| {
            let g = f[0];
            if first {
                first = false;
                if g.eq_ignore_ascii_case("GIS Join Match Code") {
                    return Ok(()); // NHGIS's optional descriptive header row
                }
            }
            let geo = Geo::of_gisjoin(g).ok_or_else(|| {
                err!(Input, "'{}' line {line}: GISJOIN '{g}' is not a 2010 state, county, tract, block group or block code", path.display())
            })?;
            let st = &g[1..3];
            if let Some(si) = statea.map(|_| f[f.len() - 1]) {
                if !si.is_empty() && si != st {
                    return fallible!(Input, "'{}' line {line}: STATEA '{si}' does not match GISJOIN '{g}'", path.display());
                }
            }
            if let Some(s) = state {
                if st != s {
                    return Ok(());
                }
            }
            for j in 0..cells {
                let v = f[1 + j];
                let c = table::parse_count(v).filter(|&c| c <= u32::MAX as u64).ok_or_else(|| {
                    err!(Input, "'{}' line {line}: {} = '{v}' is not a non-negative integer count", path.display(), table.codes()[j])
                })?;
                vals[j] = c as u32;
            }
            if !seen.insert(g.to_string()) {
                return fallible!(Input, "'{}' line {line}: duplicate GISJOIN '{g}'", path.display());
            }
            let lv = by_geo.entry(geo).or_insert_with(|| NhgisLevel {
                geo,
                table,
                units: 0,
                counts: Vec::new(),
                states: Vec::new(),
                files: Vec::new(),
            });
            lv.units += 1;
            lv.counts.extend_from_slice(&vals);
            if !lv.states.iter().any(|x| x == st) {
                lv.states.push(st.to_string());
            }
            if !lv.files.iter().any(|x| x == path) {
                lv.files.push(path.clone());
            }
            Ok(())
        })?;
    }
    if by_geo.is_empty() {
        return Err(match state {
            Some(s) => err!(Input, "no units of state {s} in the NHGIS files"),
            None => err!(Input, "the NHGIS files hold no units"),
        });
    }
    Ok(by_geo.into_values().collect())
}

/// The richest race table every file has (P8, then P3, then P1); none: the first file that lacks them all,
/// named with what it lacks.
fn richest_table(paths: &[PathBuf], headers: &[Vec<String>]) -> Fallible<RaceTable> {
    for t in [RaceTable::P8, RaceTable::P3, RaceTable::P1] {
        let mut all = true;
        for (p, h) in paths.iter().zip(headers) {
            match locate(h, t).map_err(|e| e.context(format!("'{}'", p.display())))? {
                Some(_) => {}
                None => all = false,
            }
        }
        if all {
            return Ok(t);
        }
    }
    // name the first file that lacks every table
    let (p, h) = paths.iter().zip(headers).find(|(_, h)| !looks_like(h)).unwrap_or((&paths[0], &headers[0]));
    let what = if table::find(h, "GISJOIN", true).is_none() {
        "no column 'GISJOIN'".to_string()
    } else {
        "no column 'H72001' (P8), 'H7X001' (P3) or 'H7V001' (P1)".to_string()
    };
    fallible!(Input, "'{}': {what}: not an NHGIS 2010 SF1 (ds172) extract", p.display())
}

/// The files of `dir` (not recursive) whose header is an NHGIS extract.
pub fn find_in(dir: &Path) -> Vec<PathBuf> {
    crate::data::files_in(dir).into_iter().filter(|p| table::header(p).map(|h| looks_like(&h)).unwrap_or(false)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn levels_from_gisjoin_lengths() {
        assert_eq!(Geo::of_gisjoin("G420"), Some(Geo::State));
        assert_eq!(Geo::of_gisjoin("G4200010"), Some(Geo::County));
        assert_eq!(Geo::of_gisjoin("G4200010030100"), Some(Geo::Tract));
        assert_eq!(Geo::of_gisjoin("G42000100301001"), Some(Geo::BlockGroup));
        assert_eq!(Geo::of_gisjoin("G42000100301001001"), Some(Geo::Block));
        assert_eq!(Geo::of_gisjoin("G42000"), None);
        assert_eq!(Geo::of_gisjoin("4200010"), None);
        assert_eq!(Geo::of_gisjoin("G42x0010"), None);
    }

    #[test]
    fn reads_plain_and_ppdd_layouts_and_skips_descriptive_row() {
        let d = tempfile::tempdir().unwrap();
        let plain = write(
            d.path(),
            "a.csv",
            "GISJOIN,YEAR,STATE,STATEA,COUNTYA,H7V001,H7X001,H7X002,H7X003,H7X004,H7X005,H7X006,H7X007,H7X008\n\
             GIS Join Match Code,Data File Year,State Name,State Code,County Code,Total,Total,White alone,Black,AIAN,Asian,NHPI,Other,Two\n\
             G4200010,2010,Pennsylvania,42,001,10,10,5,1,0,2,0,1,1\n\
             G4200030,2010,Pennsylvania,42,003,7,7,7,0,0,0,0,0,0\n",
        );
        let ppdd = write(
            d.path(),
            "b.csv",
            "gisjoin,name_sf,H7X001_sf,H7X001_dp,H7X002_sf,H7X003_sf,H7X004_sf,H7X005_sf,H7X006_sf,H7X007_sf,H7X008_sf\n\
             G420,Pennsylvania,17,18,12,1,0,2,0,1,1\n",
        );
        let lv = read(&[plain.clone(), ppdd], None, None).unwrap();
        assert_eq!(lv.len(), 2);
        assert_eq!(lv[0].geo, Geo::State);
        assert_eq!(lv[0].table, RaceTable::P3);
        assert_eq!(lv[0].counts, vec![17, 12, 1, 0, 2, 0, 1, 1]);
        assert_eq!(lv[1].geo, Geo::County);
        assert_eq!(lv[1].units, 2);
        assert_eq!(lv[1].cell(1, 1), 7);
        // P1 on request; a state filter that matches nothing is an error
        let p1 = read(std::slice::from_ref(&plain), Some(RaceTable::P1), None).unwrap();
        assert_eq!(p1[0].counts, vec![10, 7]);
        assert!(read(&[plain], None, Some("01")).unwrap_err().to_string().contains("no units of state 01"));
    }

    #[test]
    fn wrong_layouts_name_the_missing_column() {
        let d = tempfile::tempdir().unwrap();
        let acs = write(d.path(), "acs.csv", "GEO_ID,NAME,S1501_C01_006E\n0400000US42,Pennsylvania,100\n");
        let e = read(&[acs], None, None).unwrap_err();
        assert!(e.to_string().contains("no column 'GISJOIN'"), "{e}");
        let part = write(d.path(), "p.csv", "GISJOIN,H72001,H72002,H72003\nG420,1,1,1\n");
        let e = read(&[part], None, None).unwrap_err();
        assert!(e.to_string().contains("no column 'H72004'"), "{e}");
        let bad = write(d.path(), "b.csv", "GISJOIN,H7V001\nG420,12\nG4200010,-3\n");
        let e = read(std::slice::from_ref(&bad), None, None).unwrap_err();
        assert!(e.to_string().contains("line 3") && e.to_string().contains("H7V001"), "{e}");
        let dup = write(d.path(), "d.csv", "GISJOIN,H7V001\nG420,12\nG420,12\n");
        assert!(read(&[dup], None, None).unwrap_err().to_string().contains("duplicate GISJOIN"));
        let place = write(d.path(), "pl.csv", "GISJOIN,H7V001\nG4202000,12\nG420200000,1\n");
        assert!(read(&[place], None, None).unwrap_err().to_string().contains("line 3"));
        let mism = write(d.path(), "m.csv", "GISJOIN,STATEA,H7V001\nG420,36,12\n");
        assert!(read(&[mism], None, None).unwrap_err().to_string().contains("STATEA"));
    }
}
