//! A result record (ordered string fields) rendered as an aligned table, CSV with a header, or JSON.

use std::io::Write;
use std::path::Path;

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
                serde_json::to_string_pretty(&serde_json::Value::Object(m)).unwrap() + "\n"
            }
        }
    }
}

/// Several records with the same keys as one CSV table (header from the first record).
pub fn render_csv(rows: &[Record]) -> String {
    let mut w = csv::Writer::from_writer(vec![]);
    if let Some(first) = rows.first() {
        w.write_record(first.fields.iter().map(|(k, _)| k.as_str())).unwrap();
    }
    for r in rows {
        w.write_record(r.fields.iter().map(|(_, v)| v.as_str())).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
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
    serde_json::to_string_pretty(&arr).unwrap() + "\n"
}

/// Several records as an aligned text table.
pub fn render_table_rows(rows: &[Record]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    let keys: Vec<&str> = first.fields.iter().map(|(k, _)| k.as_str()).collect();
    let mut widths: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    for r in rows {
        for (i, (_, v)) in r.fields.iter().enumerate() {
            widths[i] = widths[i].max(v.len());
        }
    }
    let mut s = String::new();
    let line = |cells: Vec<&str>| -> String {
        cells.iter().enumerate().map(|(i, c)| format!("{:<w$}", c, w = widths[i])).collect::<Vec<_>>().join("  ").trim_end().to_string()
            + "\n"
    };
    s += &line(keys.clone());
    for r in rows {
        s += &line(r.fields.iter().map(|(_, v)| v.as_str()).collect());
    }
    s
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
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        }
    }
    let tmp = path.with_extension(format!("{}.tmp{}", path.extension().and_then(|e| e.to_str()).unwrap_or(""), std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp).map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
        f.write_all(contents).map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}
