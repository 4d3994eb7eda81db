//! American Community Survey 5-year extracts: educational attainment and median earnings by geography —
//! the data of [SSW24, §3.4.2] (Figure 9), references (27) "Educational
//! attainment" and (45).
//!
//! The paper regresses median earnings on the share with a bachelor's degree or higher and noises "the six
//! education-level categories in the ACS 5-year estimates: less than 9th grade, 9th to 12th grade (no
//! diploma), high school graduate (including equivalency), some college (no degree), associate's degree,
//! and bachelor's degree or higher". Those are the population-25-and-over rows of the subject table
//! **S1501 "Educational Attainment"** (reference 27 is that table's title), which also holds the median
//! earnings of the population 25 years and over with earnings — one table gives x and y. So S1501 is the
//! primary layout (2015+ variable numbering, Census Data API `acs/acs5/subject`):
//!
//! | category | S1501 variables |
//! |---|---|
//! | less than 9th grade | `S1501_C01_007E` |
//! | 9th to 12th grade, no diploma | `S1501_C01_008E` |
//! | high school graduate (includes equivalency) | `S1501_C01_009E` |
//! | some college, no degree | `S1501_C01_010E` |
//! | associate's degree | `S1501_C01_011E` |
//! | bachelor's degree or higher | `S1501_C01_012E` (bachelor's) + `S1501_C01_013E` (graduate or professional) |
//! | median earnings, population 25+ with earnings (dollars) | `S1501_C01_059E` |
//!
//! The detailed tables give the same six categories (accepted as a second layout): **B15003**
//! (educational attainment for the population 25 years and over, 24 cells) summed as 002–012, 013–016,
//! 017–018, 019–020, 021, 022–025, with **B20004_001E** (median earnings, population 25+ with earnings;
//! B20004 is the detailed table behind S1501's earnings rows). B20017 (median earnings by sex by work
//! experience, population 16+) has another universe and is not used.
//!
//! Files: the Census Data API's JSON array (`[["NAME","GEO_ID",…],…]`) or a data.census.gov CSV
//! (`ACSST5Y2020.S1501-Data.csv`: a code header row, then an optional label row, then data). The level of
//! each row comes from `GEO_ID` (its first three characters are the summary level: 040 state, 310
//! metropolitan/micropolitan statistical area, 050 county, 140 tract, 060 county subdivision, 160 place,
//! 860 ZCTA), or, without `GEO_ID`, from the API's geography columns (`state`, `county`, `tract`, …).
//! Annotated estimates (negative sentinels such as -666666666, and "-", "N", "(X)") mark an area as
//! missing; top/bottom-coded medians ("250,000+", "2,500-") are read at their bound.

use crate::data::table;
use crate::error::Fallible;
use crate::{err, fallible};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The seven levels of the paper's Figure 9, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AcsGeo {
    State,
    Metro,
    County,
    Tract,
    CountySubdivision,
    Place,
    Zcta,
}

impl AcsGeo {
    pub const ALL: [AcsGeo; 7] =
        [AcsGeo::State, AcsGeo::Metro, AcsGeo::County, AcsGeo::Tract, AcsGeo::CountySubdivision, AcsGeo::Place, AcsGeo::Zcta];

    /// Census summary level code (first three characters of GEO_ID).
    pub fn summary_level(self) -> &'static str {
        match self {
            AcsGeo::State => "040",
            AcsGeo::Metro => "310",
            AcsGeo::County => "050",
            AcsGeo::Tract => "140",
            AcsGeo::CountySubdivision => "060",
            AcsGeo::Place => "160",
            AcsGeo::Zcta => "860",
        }
    }

    pub fn of_geo_id(g: &str) -> Option<AcsGeo> {
        if !g.contains("US") {
            return None;
        }
        AcsGeo::ALL.iter().copied().find(|a| g.starts_with(a.summary_level()))
    }

    /// The Census Data API's geography column for the level (`for=` clause).
    pub fn api_column(self) -> &'static str {
        match self {
            AcsGeo::State => "state",
            AcsGeo::Metro => "metropolitan statistical area/micropolitan statistical area",
            AcsGeo::County => "county",
            AcsGeo::Tract => "tract",
            AcsGeo::CountySubdivision => "county subdivision",
            AcsGeo::Place => "place",
            AcsGeo::Zcta => "zip code tabulation area",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AcsGeo::State => "state",
            AcsGeo::Metro => "metro/micro area",
            AcsGeo::County => "county",
            AcsGeo::Tract => "tract",
            AcsGeo::CountySubdivision => "county subdivision",
            AcsGeo::Place => "place",
            AcsGeo::Zcta => "ZCTA",
        }
    }

    pub fn parse(s: &str) -> Fallible<AcsGeo> {
        let k: String = s.chars().filter(|c| c.is_ascii_alphanumeric()).flat_map(|c| c.to_lowercase()).collect();
        match k.as_str() {
            "state" => Ok(AcsGeo::State),
            "metro" | "metromicro" | "metromicroarea" | "msa" | "cbsa" => Ok(AcsGeo::Metro),
            "county" => Ok(AcsGeo::County),
            "tract" => Ok(AcsGeo::Tract),
            "countysubdivision" | "cousub" => Ok(AcsGeo::CountySubdivision),
            "place" => Ok(AcsGeo::Place),
            "zcta" | "zip" => Ok(AcsGeo::Zcta),
            _ => fallible!(Input, "unknown ACS level '{s}' (state, metro, county, tract, county-subdivision, place, zcta)"),
        }
    }

    /// The Table 1 level ([SSW24]) whose σ² Figure 9 applies here — the paper
    /// says only "noise variances follow the configuration specified in Table 1", so this is our choice:
    /// the spine level closest in kind and size. State, county → themselves; tract, ZCTA (tract-sized,
    /// off-spine) → Tract Subset; county subdivision and place → PEPG (population estimates primitive
    /// geography: the county × place/MCD pieces); metro/micro area (unions of counties) → County.
    pub fn table1_level(self) -> &'static str {
        match self {
            AcsGeo::State => "State",
            AcsGeo::Metro => "County",
            AcsGeo::County => "County",
            AcsGeo::Tract => "Tract Subset",
            AcsGeo::CountySubdivision => "PEPG",
            AcsGeo::Place => "PEPG",
            AcsGeo::Zcta => "Tract Subset",
        }
    }
}

/// Which ACS tables the file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    S1501,
    B15003B20004,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::S1501 => "S1501",
            Layout::B15003B20004 => "B15003 + B20004",
        }
    }

    /// The variables summed into each of the six categories, and the median earnings variable.
    fn columns(self) -> ([Vec<String>; 6], &'static str) {
        match self {
            Layout::S1501 => {
                let v = |k: u32| format!("S1501_C01_{k:03}E");
                ([vec![v(7)], vec![v(8)], vec![v(9)], vec![v(10)], vec![v(11)], vec![v(12), v(13)]], "S1501_C01_059E")
            }
            Layout::B15003B20004 => {
                let r = |a: u32, b: u32| (a..=b).map(|k| format!("B15003_{k:03}E")).collect::<Vec<_>>();
                ([r(2, 12), r(13, 16), r(17, 18), r(19, 20), r(21, 21), r(22, 25)], "B20004_001E")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AcsArea {
    /// population 25+ in the six categories
    pub counts: [u64; 6],
    /// median earnings of the population 25+ with earnings, dollars
    pub earnings: f64,
}

#[derive(Clone, Debug)]
pub struct AcsLevel {
    pub geo: AcsGeo,
    pub layout: Layout,
    /// areas usable for the regression (earnings and counts present, population 25+ > 0)
    pub areas: Vec<AcsArea>,
    /// areas dropped: annotated (missing) median earnings or counts
    pub missing: usize,
    /// areas dropped: no population 25 years and over
    pub zero_population: usize,
    /// medians read at a top/bottom-coding bound ("250,000+", "2,500-")
    pub coded: usize,
    pub files: Vec<PathBuf>,
}

fn layout_of(header: &[String]) -> Fallible<Option<Layout>> {
    for l in [Layout::S1501, Layout::B15003B20004] {
        let (cats, earn) = l.columns();
        let all: Vec<&str> = cats.iter().flatten().map(|s| s.as_str()).chain(std::iter::once(earn)).collect();
        let missing: Vec<&&str> = all.iter().filter(|c| table::find(header, c, false).is_none()).collect();
        if missing.is_empty() {
            return Ok(Some(l));
        }
        if missing.len() < all.len() {
            return fallible!(Input, "no column '{}' (ACS table {} is incomplete)", missing[0], l.name());
        }
    }
    Ok(None)
}

/// Whether a header is an ACS educational-attainment/earnings extract in a supported layout.
pub fn looks_like(header: &[String]) -> bool {
    matches!(layout_of(header), Ok(Some(_)))
}

/// An annotated (missing) estimate: the API's negative sentinels and data.census.gov's symbols.
fn is_annotation(s: &str) -> bool {
    matches!(s, "" | "-" | "N" | "(X)" | "null" | "**" | "***" | "*****") || s.parse::<f64>().map(|v| v <= -1e8).unwrap_or(false)
}

/// A median in dollars: plain ("52341", "52341.0"), or top/bottom-coded ("250,000+", "2,500-").
fn parse_median(s: &str) -> Result<Option<(f64, bool)>, ()> {
    if is_annotation(s) {
        return Ok(None);
    }
    let (body, coded) = match s.strip_suffix('+').or_else(|| s.strip_suffix('-')) {
        Some(b) => (b, true),
        None => (s, false),
    };
    let t: String = body.chars().filter(|&c| c != ',').collect();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some((v, coded))),
        _ => Err(()),
    }
}

/// Read ACS extracts (S1501, or B15003 with B20004_001E), grouped by level in Figure 9's order.
pub fn read(paths: &[PathBuf]) -> Fallible<Vec<AcsLevel>> {
    if paths.is_empty() {
        return fallible!(Input, "no ACS file given");
    }
    let mut by_geo: BTreeMap<AcsGeo, AcsLevel> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for path in paths {
        let h = table::header(path)?;
        let layout = layout_of(&h).map_err(|e| e.context(format!("'{}'", path.display())))?.ok_or_else(|| {
            err!(
                Input,
                "'{}': no column 'S1501_C01_007E' (S1501) or 'B15003_002E' (B15003): not an ACS educational attainment extract",
                path.display()
            )
        })?;
        let (cats, earn) = layout.columns();
        let FileColumns { geo_id, api_geo, cols, spans, earn_i, key_i } = file_columns(path, &h, &cats, earn)?;
        let mut first = true;
        table::visit(path, &cols, &mut |line, f| {
            let key: Vec<&str> = f[key_i..].to_vec();
            if first {
                first = false;
                if geo_id.is_some() && (key[0] == "Geography" || key[0] == "id") {
                    return Ok(()); // data.census.gov's label row
                }
            }
            let geo = match api_geo {
                Some(g) => g,
                None => AcsGeo::of_geo_id(key[0]).ok_or_else(|| {
                    err!(
                        Input,
                        "'{}' line {line}: GEO_ID '{}' is not a state, metro/micro area, county, tract, county subdivision, place or ZCTA",
                        path.display(),
                        key[0]
                    )
                })?,
            };
            let k = format!("{}|{}", geo.summary_level(), key.join(","));
            if !seen.insert(k) {
                return fallible!(Input, "'{}' line {line}: duplicate area '{}'", path.display(), key.join(","));
            }
            let lv = by_geo.entry(geo).or_insert_with(|| AcsLevel {
                geo,
                layout,
                areas: Vec::new(),
                missing: 0,
                zero_population: 0,
                coded: 0,
                files: Vec::new(),
            });
            if lv.layout != layout {
                return fallible!(Input, "'{}': {} mixes {} and {} files", path.display(), geo.name(), lv.layout.name(), layout.name());
            }
            if !lv.files.iter().any(|x| x == path) {
                lv.files.push(path.clone());
            }
            let mut counts = [0u64; 6];
            let mut missing = false;
            for (j, &(a, b)) in spans.iter().enumerate() {
                for (off, v) in f[a..b].iter().enumerate() {
                    if is_annotation(v) {
                        missing = true;
                        continue;
                    }
                    let c = table::parse_count(v).ok_or_else(|| {
                        err!(Input, "'{}' line {line}: {} = '{v}' is not a non-negative integer count", path.display(), cats[j][off])
                    })?;
                    counts[j] += c;
                }
            }
            let med = parse_median(f[earn_i])
                .map_err(|_| err!(Input, "'{}' line {line}: {earn} = '{}' is not a median in dollars", path.display(), f[earn_i]))?;
            match (missing, med) {
                (false, Some((e, coded))) => {
                    if counts.iter().sum::<u64>() == 0 {
                        lv.zero_population += 1;
                    } else {
                        lv.coded += coded as usize;
                        lv.areas.push(AcsArea { counts, earnings: e });
                    }
                }
                _ => lv.missing += 1,
            }
            Ok(())
        })?;
    }
    if by_geo.is_empty() {
        return fallible!(Input, "the ACS files hold no areas");
    }
    Ok(by_geo.into_values().collect())
}

/// Where one ACS file keeps what `read` takes: GEO_ID (or, without it, the Census API geography column
/// that decides the file's level), and the columns read per line — the categories' (`spans` into
/// `cols`), the median earnings' (`earn_i`), then the key columns from `key_i` on.
struct FileColumns {
    geo_id: Option<usize>,
    api_geo: Option<AcsGeo>,
    cols: Vec<usize>,
    spans: Vec<(usize, usize)>,
    earn_i: usize,
    key_i: usize,
}

fn file_columns(path: &Path, h: &[String], cats: &[Vec<String>], earn: &str) -> Fallible<FileColumns> {
    let geo_id = table::find(h, "GEO_ID", true);
    // without GEO_ID: the most specific API geography column present decides the level of the file
    let api_geo = if geo_id.is_none() {
        let order = [AcsGeo::Tract, AcsGeo::CountySubdivision, AcsGeo::Place, AcsGeo::Zcta, AcsGeo::Metro, AcsGeo::County, AcsGeo::State];
        let g = order.iter().copied().find(|g| table::find(h, g.api_column(), true).is_some()).ok_or_else(|| {
            err!(Input, "'{}': no column 'GEO_ID' (nor the Census API's geography columns 'state', 'county', …)", path.display())
        })?;
        Some(g)
    } else {
        None
    };
    // key columns for duplicates: GEO_ID, or every API geography column present
    let key_cols: Vec<usize> = match geo_id {
        Some(i) => vec![i],
        None => AcsGeo::ALL.iter().filter_map(|g| table::find(h, g.api_column(), true)).collect(),
    };
    let mut cols: Vec<usize> = Vec::new();
    let mut spans = Vec::new();
    for c in cats {
        let start = cols.len();
        for name in c {
            cols.push(table::find(h, name, false).expect("invariant: the columns were found when the categories were made"));
        }
        spans.push((start, cols.len()));
    }
    let earn_i = cols.len();
    cols.push(table::find(h, earn, false).expect("invariant: the columns were found when the categories were made"));
    let key_i = cols.len();
    cols.extend(&key_cols);
    Ok(FileColumns { geo_id, api_geo, cols, spans, earn_i, key_i })
}

/// The files of `dir` (not recursive) whose header is an ACS extract in a supported layout.
pub fn find_in(dir: &Path) -> Vec<PathBuf> {
    crate::data::files_in(dir).into_iter().filter(|p| table::header(p).map(|h| looks_like(&h)).unwrap_or(false)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s1501_header() -> String {
        let mut h = vec!["GEO_ID".to_string(), "NAME".to_string()];
        for k in 1..=64 {
            h.push(format!("S1501_C01_{k:03}E"));
            h.push(format!("S1501_C01_{k:03}M"));
        }
        h.join(",")
    }

    fn s1501_row(geo: &str, c: [u64; 7], earn: &str) -> String {
        let mut v = vec![geo.to_string(), "\"Somewhere, ZZ\"".to_string()];
        for k in 1..=64u32 {
            let e = match k {
                7..=13 => c[(k - 7) as usize].to_string(),
                59 => earn.to_string(),
                _ => "0".to_string(),
            };
            v.push(e);
            v.push("11".into());
        }
        v.join(",")
    }

    #[test]
    fn s1501_csv_with_label_row_and_annotations() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("ACSST5Y2020.S1501-Data.csv");
        let mut label = vec!["Geography".to_string(), "Geographic Area Name".to_string()];
        for _ in 0..128 {
            label.push("\"Estimate!!Total!!x\"".into());
        }
        let body = [
            s1501_header(),
            label.join(","),
            s1501_row("0500000US42001", [1, 2, 3, 4, 5, 6, 7], "41234"),
            s1501_row("0500000US42003", [1, 1, 1, 1, 1, 1, 1], "\"250,000+\""),
            s1501_row("0500000US42005", [1, 1, 1, 1, 1, 1, 1], "-"),
            s1501_row("0500000US42007", [0, 0, 0, 0, 0, 0, 0], "30000"),
            s1501_row("0400000US42", [10, 20, 30, 40, 50, 60, 70], "45000"),
        ]
        .join("\n");
        std::fs::write(&p, body).unwrap();
        let lv = read(&[p]).unwrap();
        assert_eq!(lv.len(), 2);
        assert_eq!(lv[0].geo, AcsGeo::State);
        assert_eq!(lv[0].areas[0], AcsArea { counts: [10, 20, 30, 40, 50, 130], earnings: 45000.0 });
        let c = &lv[1];
        assert_eq!(c.geo, AcsGeo::County);
        assert_eq!(c.layout, Layout::S1501);
        assert_eq!(c.areas.len(), 2);
        assert_eq!(c.areas[0].counts, [1, 2, 3, 4, 5, 13]);
        assert_eq!(c.areas[1].earnings, 250000.0);
        assert_eq!((c.missing, c.zero_population, c.coded), (1, 1, 1));
    }

    #[test]
    fn api_json_detailed_tables_without_geo_id() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("b.json");
        let mut h: Vec<String> = vec!["NAME".into()];
        h.extend((1..=25).map(|k| format!("B15003_{k:03}E")));
        h.push("B20004_001E".into());
        h.extend(["state".to_string(), "county".to_string()]);
        let mut r: Vec<String> = vec!["X County, Y".into()];
        r.push("325".into());
        r.extend((2..=25).map(|k| k.to_string()));
        r.push("38000".into());
        r.extend(["42".to_string(), "001".to_string()]);
        let mut r2 = r.clone();
        r2[26] = "-666666666".into();
        r2[28] = "003".into();
        std::fs::write(&p, serde_json::to_string(&vec![h, r, r2]).unwrap()).unwrap();
        let lv = read(&[p]).unwrap();
        assert_eq!(lv.len(), 1);
        assert_eq!(lv[0].geo, AcsGeo::County);
        assert_eq!(lv[0].layout, Layout::B15003B20004);
        // 2..=12 → 77; 13..=16 → 58; 17+18 → 35; 19+20 → 39; 21; 22..=25 → 94
        assert_eq!(lv[0].areas[0].counts, [77, 58, 35, 39, 21, 94]);
        assert_eq!(lv[0].missing, 1);
    }

    #[test]
    fn wrong_layouts_and_bad_values_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.csv");
        std::fs::write(&p, "GISJOIN,H7V001\nG420,1\n").unwrap();
        assert!(read(std::slice::from_ref(&p)).unwrap_err().to_string().contains("no column 'S1501_C01_007E'"));
        std::fs::write(&p, "GEO_ID,S1501_C01_007E,S1501_C01_008E\n0400000US42,1,2\n").unwrap();
        assert!(read(std::slice::from_ref(&p)).unwrap_err().to_string().contains("no column 'S1501_C01_009E'"));
        std::fs::write(&p, [s1501_header(), s1501_row("0400000US42", [1, 1, 1, 1, 1, 1, 1], "abc")].join("\n")).unwrap();
        let e = read(std::slice::from_ref(&p)).unwrap_err();
        assert!(e.to_string().contains("line 2") && e.to_string().contains("S1501_C01_059E"), "{e}");
        std::fs::write(&p, [s1501_header(), s1501_row("9700000US42", [1, 1, 1, 1, 1, 1, 1], "1")].join("\n")).unwrap();
        assert!(read(std::slice::from_ref(&p)).unwrap_err().to_string().contains("GEO_ID '9700000US42'"));
        std::fs::write(
            &p,
            [s1501_header(), s1501_row("0400000US42", [1, 1, 1, 1, 1, 1, 1], "1"), s1501_row("0400000US42", [1; 7], "2")].join("\n"),
        )
        .unwrap();
        assert!(read(&[p]).unwrap_err().to_string().contains("duplicate area"));
    }
}
