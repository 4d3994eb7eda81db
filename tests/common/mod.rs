//! Helpers shared by the CLI tests (each test file includes this module with `mod common;`): run the
//! binary, read its CSV output, check a refusal.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

pub fn bin() -> Command {
    Command::cargo_bin("tightdp").unwrap()
}

/// Run in `dir`; the command must succeed; its stdout.
pub fn run_in(dir: &Path, args: &[&str]) -> String {
    let out = bin().current_dir(dir).args(args).timeout(Duration::from_secs(300)).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// CSV output as rows of (column, value) pairs.
pub fn rows(s: &str) -> Vec<Vec<(String, String)>> {
    let mut r = csv::Reader::from_reader(s.as_bytes());
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records().map(|x| h.iter().cloned().zip(x.unwrap().iter().map(String::from)).collect()).collect()
}

/// The first row of a command's `--format csv` output (run in the current directory).
pub fn csv_row(args: &[&str]) -> Vec<(String, String)> {
    let mut a = args.to_vec();
    a.extend(["--format", "csv"]);
    rows(&run_in(Path::new("."), &a)).remove(0)
}

pub fn get<'a>(row: &'a [(String, String)], k: &str) -> &'a str {
    &row.iter().find(|(h, _)| h == k).unwrap_or_else(|| panic!("no column {k} in {row:?}")).1
}

/// Exit 2, nothing on stdout, one `error: ` line on stderr mentioning every needle.
pub fn refused(args: &[&str], needles: &[&str]) -> String {
    let out = bin().args(args).timeout(Duration::from_secs(60)).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?} should be refused: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} should mention {n:?}");
    }
    err
}

/// One rule for "no digit certified" in every command (#57): exit 0, the certified enclosure printed
/// with `digits` 0, and a note saying so that mentions every needle. Returns the CSV row.
pub fn zero_digits(args: &[&str], needles: &[&str]) -> Vec<(String, String)> {
    let row = csv_row(args);
    assert_eq!(get(&row, "digits"), "0", "{args:?}: {row:?}");
    let note = get(&row, "note");
    assert!(note.starts_with("0 digits certified"), "{args:?}: {note}");
    for n in needles {
        assert!(note.contains(n), "{args:?}: {note:?} should mention {n:?}");
    }
    row
}

/// The bracket [`what`_lo, `what`_hi] of a CSV row holds `reference` (a decimal; 256-bit floats of the
/// printed 40-digit ends).
pub fn holds(row: &[(String, String)], what: &str, reference: &str) {
    let (lo, hi) = (get(row, &format!("{what}_lo")), get(row, &format!("{what}_hi")));
    let (r, l, h) = (float(reference), float(lo), float(hi));
    assert!(l <= r && r <= h, "{what}: [{lo}, {hi}] does not hold {reference}");
}

/// The bracket [`what`_lo, `what`_hi] meets the interval a decimal `reference` rounded to its printed
/// digits stands for (± half a unit in its last place): for references printed to fewer digits than the
/// bracket resolves.
pub fn holds_rounded(row: &[(String, String)], what: &str, reference: &str) {
    let (lo, hi) = (get(row, &format!("{what}_lo")), get(row, &format!("{what}_hi")));
    let places = reference.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    let half = rug::Float::with_val(256, rug::Float::i_pow_u(10, places.unsigned_abs())).recip() / 2u32;
    let r = float(reference);
    let (l, h) = (float(lo), float(hi));
    let (rl, rh) = (rug::Float::with_val(256, &r - &half), rug::Float::with_val(256, &r + &half));
    assert!(l <= rh && rl <= h, "{what}: [{lo}, {hi}] misses {reference} (± half its last digit)");
}

/// The compositions of the two Census products without a common lattice of the losses
/// (data/deployments/census-{phsafe-sdhc,safetab-h-ddhcb}.toml).
pub const PHSAFE: &[&str] = &[
    "dgauss:sigma2=500000/2619,n=10",
    "dgauss:sigma2=500000/1061,n=4",
    "dgauss:sigma2=250000/11,n=9",
    "dgauss:sigma2=250000/70811,n=3",
    "dgauss:sigma2=500000/16371,n=7",
    "dgauss:sigma2=15625/20718,n=1",
    "dgauss:sigma2=50000/663,n=3",
    "dgauss:sigma2=50000/117,n=3",
    "dgauss:sigma2=100000/27,n=6",
];
pub const SAFETAB_H: &[&str] = &["dgauss:sigma2=900000/1383,n=90", "dgauss:sigma2=5625/2401,n=36", "dgauss:sigma2=4500000/142869,n=72"];

/// The JSON that `tightdp <cmd> --mech M… --format json <extra>` prints, the command asserted to succeed.
pub fn json_of(cmd: &str, mechs: &[&str], extra: &[&str]) -> serde_json::Value {
    let out = bin()
        .arg(cmd)
        .args(mechs.iter().flat_map(|m| ["--mech", m]))
        .args(["--format", "json"])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// (lo, hi, digits, method) of the bracket `key` that `tightdp <cmd> --mech M… --format json <extra>`
/// prints (the first row of a list; digits "exact", a point, as u32::MAX).
pub fn json_bracket(cmd: &str, mechs: &[&str], key: &str, extra: &[&str]) -> (rug::Float, rug::Float, u32, String) {
    let j = json_of(cmd, mechs, extra);
    let j = if j.is_array() { j[0].clone() } else { j };
    let digits = match j["digits"].as_str().unwrap() {
        "exact" => u32::MAX,
        d => d.parse().unwrap(),
    };
    let end = |side: &str| float(j[format!("{key}_{side}")].as_str().unwrap());
    (end("lo"), end("hi"), digits, j["method"].as_str().unwrap().to_string())
}

/// The bracket [lo, hi] holds a reference quoted to 40 digits (which may round past a narrow bracket by
/// 1e-39: 1e-38 of slack).
pub fn holds_quoted(lo: &rug::Float, hi: &rug::Float, reference: &str) {
    let r = float(reference);
    let tol = float("1e-38");
    assert!(rug::Float::with_val(256, lo - &tol) <= r && r <= rug::Float::with_val(256, hi + &tol), "{reference} outside [{lo}, {hi}]");
}

/// A decimal string as a 256-bit float (exactly for the 40-digit ends the CLI prints).
pub fn float(s: &str) -> rug::Float {
    rug::Float::with_val(256, rug::Float::parse(s).unwrap())
}

/// A release of the user's own: unequal shares in A (query_shares), absolute query budgets in B
/// (query_rho), equal queries in C. Per query ρ (hand-computed): A 1/8, 3/8; B 1/10, 1/5; C 1/15 each;
/// σ² = 1/(2ρ): 4, 4/3, 5, 5/2, 15/2 ×3; total ρ 1.
pub const OWN: &str = r#"name = "own release"
rho = "1"
[[level]]
name = "A"
share = "0.5"
query_shares = ["1/4", "3/4"]
[[level]]
name = "B"
query_rho = ["1/10", "1/5"]
[[level]]
name = "C"
share = "0.2"
queries = 3
"#;

/// Every `.rs` file under `dir`, recursively, sorted: the source walk of the structure tests
/// (`layering.rs`, `engines_behind_accountant.rs`, `unique_type_names.rs`).
pub fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The names in `dir` (top level only), sorted.
pub fn entry_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}
