//! Streaming access to a delimited extract as it comes from the publisher: a CSV file with a header row
//! (NHGIS, data.census.gov) or the JSON array of arrays the Census Data API returns (first row = header).
//!
//! Only the columns a reader asks for are decoded, field by field (NHGIS files may carry Latin-1 names in
//! columns nobody reads; a 421,545-row block file is never held in memory as strings). Every error names
//! the file and, for data, the line (CSV: the physical line; JSON: the row, header = 1).

use crate::error::{Error, ErrorKind, Fallible};
use crate::{err, fallible};
use std::path::Path;

/// The file's layout, chosen from its first non-blank byte: `[` is a Census API JSON array, anything
/// else CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileLayout {
    Csv,
    Json,
}

pub fn layout_of(path: &Path) -> Fallible<FileLayout> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))?;
    let mut buf = [0u8; 512];
    let n = f.read(&mut buf).map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))?;
    let s = strip_bom(&buf[..n]);
    match s.iter().find(|b| !b.is_ascii_whitespace()) {
        None => fallible!(Input, "'{}': empty file", path.display()),
        Some(b'[') => Ok(FileLayout::Json),
        Some(_) => Ok(FileLayout::Csv),
    }
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(b)
}

/// The header of a file (column names, BOM and surrounding whitespace removed).
pub fn header(path: &Path) -> Fallible<Vec<String>> {
    match layout_of(path)? {
        FileLayout::Csv => {
            let mut rd = csv_reader(path)?;
            let h = rd.byte_headers().map_err(|e| Error::from(e).context(format_args!("'{}'", path.display())))?.clone();
            Ok(h.iter().map(|f| clean(&String::from_utf8_lossy(f))).collect())
        }
        FileLayout::Json => {
            let rows = json_rows(path)?;
            rows.first().map(|r| r.iter().map(|v| clean(v)).collect()).ok_or_else(|| err!(Input, "'{}': empty JSON array", path.display()))
        }
    }
}

fn clean(s: &str) -> String {
    s.trim_start_matches('\u{feff}').trim().to_string()
}

fn csv_reader(path: &Path) -> Fallible<csv::Reader<std::fs::File>> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_path(path)
        .map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))
}

fn json_rows(path: &Path) -> Fallible<Vec<Vec<String>>> {
    let text = std::fs::read(path).map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_slice(strip_bom(&text))
        .map_err(|e| err!(Input, "{}", crate::record::one_line(&format!("'{}': not a Census API JSON array: {e}", path.display()))))?;
    let arr = v.as_array().ok_or_else(|| err!(Input, "'{}': not a Census API JSON array", path.display()))?;
    let mut out = Vec::with_capacity(arr.len());
    for (i, row) in arr.iter().enumerate() {
        let r = row.as_array().ok_or_else(|| err!(Input, "'{}' row {}: not an array", path.display(), i + 1))?;
        out.push(
            r.iter()
                .map(|x| match x {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                })
                .collect(),
        );
    }
    Ok(out)
}

/// Position of a column by exact name, or (with `ci`) case-insensitively.
pub fn find(header: &[String], name: &str, ci: bool) -> Option<usize> {
    header.iter().position(|h| if ci { h.eq_ignore_ascii_case(name) } else { h == name })
}

/// Visit the data rows, giving `row` the line number and the fields at `cols` (in that order). A field
/// that is not UTF-8 is an error only when a reader asks for it.
pub fn visit(path: &Path, cols: &[usize], row: &mut dyn FnMut(usize, &[&str]) -> Fallible<()>) -> Fallible<()> {
    match layout_of(path)? {
        FileLayout::Csv => {
            let mut rd = csv_reader(path)?;
            let mut rec = csv::ByteRecord::new();
            loop {
                let more = rd.read_byte_record(&mut rec).map_err(|e| {
                    let kind = if e.is_io_error() { ErrorKind::Io } else { ErrorKind::Input };
                    Error::new(kind, format!("'{}': {}", path.display(), csv_error(&e)))
                })?;
                if !more {
                    break;
                }
                let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
                let mut fields: Vec<&str> = Vec::with_capacity(cols.len());
                for &c in cols {
                    let b = rec.get(c).unwrap_or(b"");
                    let s = std::str::from_utf8(b)
                        .map_err(|_| err!(Input, "'{}' line {line}: column {} is not text", path.display(), c + 1))?;
                    fields.push(s.trim());
                }
                row(line, &fields)?;
            }
            Ok(())
        }
        FileLayout::Json => {
            let rows = json_rows(path)?;
            let width = rows.first().map(|r| r.len()).unwrap_or(0);
            for (i, r) in rows.iter().enumerate().skip(1) {
                if r.len() != width {
                    return fallible!(Input, "'{}' row {}: {} fields, the header has {width}", path.display(), i + 1, r.len());
                }
                let fields: Vec<&str> = cols.iter().map(|&c| r.get(c).map(|s| s.trim()).unwrap_or("")).collect();
                row(i + 1, &fields)?;
            }
            Ok(())
        }
    }
}

fn csv_error(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths { pos, expected_len, len } => {
            let line = pos.as_ref().map(|p| p.line()).unwrap_or(0);
            format!("line {line}: {len} fields, the header has {expected_len}")
        }
        _ => e.to_string(),
    }
}

/// A non-negative integer count ("1234"; a trailing ".0" from a spreadsheet export is accepted).
pub fn parse_count(s: &str) -> Option<u64> {
    let t = s.strip_suffix(".0").unwrap_or(s);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || t.len() > 15 {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_json_give_the_same_rows() {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("a.csv");
        std::fs::write(&c, "\u{feff}GEO_ID,NAME,X\n0400000US01,Alabama,12\n0400000US02,Alaska,7\n").unwrap();
        let j = dir.path().join("a.json");
        std::fs::write(&j, r#"[["GEO_ID","NAME","X"],["0400000US01","Alabama","12"],["0400000US02","Alaska",7]]"#).unwrap();
        for p in [&c, &j] {
            let h = header(p).unwrap();
            assert_eq!(h, vec!["GEO_ID", "NAME", "X"]);
            let mut got = Vec::new();
            visit(p, &[2, 0], &mut |line, f| {
                got.push((line, f[0].to_string(), f[1].to_string()));
                Ok(())
            })
            .unwrap();
            assert_eq!(got, vec![(2, "12".into(), "0400000US01".into()), (3, "7".into(), "0400000US02".into())]);
        }
    }

    #[test]
    fn ragged_rows_and_bad_json_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("a.csv");
        std::fs::write(&c, "A,B\n1,2\n3\n").unwrap();
        let e = visit(&c, &[0], &mut |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let j = dir.path().join("a.json");
        std::fs::write(&j, "[[\"A\"],[1,2]]").unwrap();
        assert!(visit(&j, &[0], &mut |_, _| Ok(())).unwrap_err().to_string().contains("row 2"));
        std::fs::write(&j, "[not json").unwrap();
        assert!(header(&j).unwrap_err().to_string().contains("not a Census API JSON array"));
    }

    #[test]
    fn counts_parse_strictly() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("421545"), Some(421545));
        assert_eq!(parse_count("12.0"), Some(12));
        for bad in ["", "-1", "1.5", "1e3", "abc", "1,234", "99999999999999999999"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }
}
