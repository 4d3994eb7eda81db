//! A result record (ordered string fields) rendered as an aligned table, CSV with a header, or JSON; a
//! command's rows are typed structs made records by [`row`] (`record/row.rs`).

mod row;

pub use row::{columns, row};

use crate::error::Fallible;
use crate::{err, fallible};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// Ordered (key, value) pairs; all values are strings (numbers as exact decimal text).
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub fields: Vec<(String, String)>,
}

impl Record {
    pub fn new() -> Self {
        Record::default()
    }

    pub fn push(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.fields.push((k.to_string(), v.into()));
        self
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.fields.iter().find(|(a, _)| a == k).map(|(_, b)| b.as_str())
    }

    pub fn render(&self, f: Format) -> String {
        match f {
            Format::Table => {
                let w = self.fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
                self.fields.iter().map(|(k, v)| format!("{k:<w$}  {v}\n")).collect()
            }
            Format::Csv => render_csv(std::slice::from_ref(self)),
            Format::Json => {
                let mut m = serde_json::Map::new();
                for (k, v) in &self.fields {
                    m.insert(k.clone(), serde_json::Value::String(v.clone()));
                }
                serde_json::to_string_pretty(&serde_json::Value::Object(m)).expect("invariant: a JSON object of strings") + "\n"
            }
        }
    }
}

impl Record {
    /// The record with exactly these columns, in this order: an empty value where a field does not apply.
    /// A field of the record outside `cols` is an internal error (a command's columns are fixed).
    pub fn with_columns<S: AsRef<str>>(&self, cols: &[S]) -> Fallible<Record> {
        if let Some((k, _)) = self.fields.iter().find(|(k, _)| !cols.iter().any(|c| c.as_ref() == k)) {
            return fallible!(Internal, "field '{k}' outside the command's columns");
        }
        Ok(Record { fields: cols.iter().map(|c| (c.as_ref().to_string(), self.get(c.as_ref()).unwrap_or("").to_string())).collect() })
    }
}

/// The keys of several records, in order of first appearance (the union of their fields).
pub fn union_keys(rows: &[Record]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for r in rows {
        for (k, _) in &r.fields {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    keys
}

/// Several records as one CSV table: one header (the union of the records' keys, in order of first
/// appearance) and one row per record, an empty cell where a record lacks a field.
pub fn render_csv(rows: &[Record]) -> String {
    let keys = union_keys(rows);
    let mut w = csv::Writer::from_writer(vec![]);
    if !rows.is_empty() {
        w.write_record(&keys).expect("invariant: in-memory CSV");
    }
    for r in rows {
        w.write_record(keys.iter().map(|k| r.get(k).unwrap_or(""))).expect("invariant: in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("invariant: in-memory CSV")).expect("invariant: CSV of UTF-8 fields")
}

/// Several records as a JSON array.
pub fn render_json_rows(rows: &[Record]) -> String {
    let arr: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut m = serde_json::Map::new();
            for (k, v) in &r.fields {
                m.insert(k.clone(), serde_json::Value::String(v.clone()));
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::to_string_pretty(&arr).expect("invariant: a JSON array of strings") + "\n"
}

/// Several records as an aligned text table (columns: the union of the records' keys).
pub fn render_table_rows(rows: &[Record]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let keys = union_keys(rows);
    let cells: Vec<Vec<&str>> = rows.iter().map(|r| keys.iter().map(|k| r.get(k).unwrap_or("")).collect()).collect();
    let mut widths: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    for r in &cells {
        for (i, v) in r.iter().enumerate() {
            widths[i] = widths[i].max(v.len());
        }
    }
    let mut s = String::new();
    let line = |cells: Vec<&str>| -> String {
        cells.iter().enumerate().map(|(i, c)| format!("{:<w$}", c, w = widths[i])).collect::<Vec<_>>().join("  ").trim_end().to_string()
            + "\n"
    };
    s += &line(keys.iter().map(|k| k.as_str()).collect());
    for r in cells {
        s += &line(r);
    }
    s
}

/// Several key-value records as blocks of aligned `key  value` lines separated by a blank line (one record:
/// exactly [`Record::render`] in table format).
pub fn render_blocks(rows: &[Record]) -> String {
    rows.iter().map(|r| r.render(Format::Table)).collect::<Vec<_>>().join("\n")
}

pub fn render_rows(rows: &[Record], f: Format) -> String {
    match f {
        Format::Table => render_table_rows(rows),
        Format::Csv => render_csv(rows),
        Format::Json => render_json_rows(rows),
    }
}

/// A message on one line: line breaks (e.g. inside a quoted key of a parser's error) escaped as `\n`.
pub fn one_line(s: &str) -> String {
    s.trim_end().replace('\r', "\\r").replace('\n', "\\n")
}

/// Write a file atomically: to a temporary sibling, then rename (nothing half-written on failure).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Fallible<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| err!(Io, "cannot create '{}': {e}", dir.display()))?;
        }
    }
    let tmp = path.with_extension(format!("{}.tmp{}", path.extension().and_then(|e| e.to_str()).unwrap_or(""), std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(contents).and_then(|_| f.sync_all()));
    // a failed write (a full disk) or rename leaves nothing behind: the temporary file goes too
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return fallible!(Io, "cannot write '{}': {e}", path.display());
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err!(Io, "cannot write '{}': {e}", path.display())
    })
}

/// Several files written all or nothing into `dir`: every one first to a temporary file (removed, with a
/// `dir` this call created, if any write fails), then each renamed into place.
pub fn write_all_atomic(dir: &Path, files: &[(&str, &[u8])]) -> Fallible<()> {
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|e| err!(Io, "cannot create '{}': {e}", dir.display()))?;
    let pid = std::process::id();
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let undo = |staged: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
        if created {
            let _ = std::fs::remove_dir(dir);
        }
    };
    for (name, contents) in files {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp{pid}"));
        let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(contents).and_then(|_| f.sync_all()));
        staged.push((tmp, path.clone()));
        if let Err(e) = written {
            undo(&staged);
            return fallible!(Io, "cannot write '{}': {e}", path.display());
        }
    }
    for (i, (tmp, path)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            undo(&staged[i..]);
            return fallible!(Io, "cannot write '{}': {e}", path.display());
        }
    }
    Ok(())
}

/// Quote a CSV field when it needs it.
pub fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        std::borrow::Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Stream a file through a temporary sibling and rename it into place: a failure leaves nothing.
pub fn write_streamed<T>(path: &Path, f: impl FnOnce(&mut dyn Write) -> Fallible<T>) -> Fallible<T> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| err!(Io, "cannot create '{}': {e}", dir.display()))?;
        }
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let res = (|| {
        let mut file = std::fs::File::create(&tmp).map_err(|e| err!(Io, "cannot write '{}': {e}", tmp.display()))?;
        let v = f(&mut file)?;
        file.flush().map_err(|e| err!(Io, "cannot write '{}': {e}", tmp.display()))?;
        Ok(v)
    })();
    match res {
        Ok(v) => {
            std::fs::rename(&tmp, path).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                err!(Io, "cannot write '{}': {e}", path.display())
            })?;
            Ok(v)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
