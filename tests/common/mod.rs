//! Helpers shared by the integration tests (`crate::common`): run the command line — in this process
//! ([`cli`], for values, columns and messages) or as a process ([`bin`], for what only a process shows:
//! exit codes through `main`, the panic hook, signals, another working directory or environment) — read
//! its CSV and JSON output, check a refusal; the fixtures the modules share.
#![allow(dead_code)]

use assert_cmd::Command;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Output};
use std::time::Duration;

/// The binary, as a process (assert_cmd).
pub fn bin() -> Command {
    Command::cargo_bin("tightdp").unwrap()
}

/// The command line run in this process (`tightdp::execute`), as the process would have ended: exit
/// status, stdout and the error line on stderr.
pub fn cli<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut v: Vec<OsString> = vec!["tightdp".into()];
    v.extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
    let o = tightdp::execute(v);
    Output { status: ExitStatus::from_raw((o.code & 0xff) << 8), stdout: o.stdout.into_bytes(), stderr: o.stderr.into_bytes() }
}

/// Run in `dir` (in this process when it is the current directory); the command must succeed; its stdout.
pub fn run_in(dir: &Path, args: &[&str]) -> String {
    let out = if dir == Path::new(".") {
        cli(args)
    } else {
        bin().current_dir(dir).args(args).timeout(Duration::from_secs(300)).output().unwrap()
    };
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Run in this process; the command must succeed; its stdout.
pub fn ok(args: &[&str]) -> String {
    run_in(Path::new("."), args)
}

/// Cases of a random-input test: `base` × the test multiplier (`TIGHTDP_TEST_MULTIPLIER`, 1 by default, 10
/// in the heavy tier); for proptest, `PROPTEST_CASES` when set.
pub fn proptest_cases(base: u32) -> u32 {
    match std::env::var("PROPTEST_CASES").ok().and_then(|v| v.trim().parse::<u32>().ok()) {
        Some(n) => n,
        None => u32::try_from(tightdp::test_cases(base as u64)).unwrap_or(u32::MAX),
    }
}

/// (exit status, stdout, stderr) of a command run in this process.
pub fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = cli(args);
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A JSON text.
pub fn parse_json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// CSV text as rows of cells, the header row first.
pub fn csv_rows(s: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).from_reader(s.as_bytes());
    r.records().map(|x| x.unwrap().iter().map(|c| c.to_string()).collect()).collect()
}

/// JSON output of a command (in this process, asserted to succeed).
pub fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"))
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
    let out = cli(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?} should be refused: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(!err.contains("internal error"), "{args:?}: {err}");
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
    let mut a = vec![cmd];
    a.extend(mechs.iter().flat_map(|m| ["--mech", m]));
    a.extend(["--format", "json"]);
    a.extend(extra);
    json(&a)
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

/// The CSV row of the query `args` after checking that its `what` bracket (`{what}_lo`, `{what}_hi`) lies
/// inside the pld grid's at the step `grid` (the same arguments with `--grid G`: an independent method, the
/// grid discretises the law's distribution functions). The row is returned for the caller's own checks.
pub fn inside_the_grids_bracket(args: &[&str], what: &str, grid: &str) -> Vec<(String, String)> {
    let row = csv_row(args);
    let mut on_grid = args.to_vec();
    on_grid.extend(["--grid", grid]);
    let on_grid = csv_row(&on_grid);
    let ends = |r: &[(String, String)]| (float(get(r, &format!("{what}_lo"))), float(get(r, &format!("{what}_hi"))));
    let ((lo, hi), (glo, ghi)) = (ends(&row), ends(&on_grid));
    assert!(glo <= lo && hi <= ghi, "{args:?}: [{lo}, {hi}] outside the grid's [{glo}, {ghi}] at h = {grid}");
    row
}

/// A decimal string as a 256-bit float (exactly for the 40-digit ends the CLI prints).
pub fn float(s: &str) -> rug::Float {
    rug::Float::with_val(256, rug::Float::parse(s).unwrap())
}

/// The repository's root (the package's manifest directory).
pub fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The DHC 2022-08-25 allocation file's path (the paper's Table 3), absolute.
pub fn dhc() -> String {
    repo().join("data/allocations/dhc-2022-08-25.toml").display().to_string()
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

/// `text` with comments, string and character literals blanked (replaced by spaces, newlines kept), so
/// that braces and keywords are only those of the code.
pub fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r' && (next == Some('"') || next == Some('#')) && (i == 0 || !is_ident(c[i - 1])) {
            // raw string r"…" / r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' {
            // a character literal ('x', '\n', '\u{..}') or a lifetime ('a): only the former is blanked
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &c[i..=e] {
                        blank(&mut out, ch);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

pub fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The code of a source file without comments and literals and without its `#[cfg(test)]` tail (test
/// modules sit last): what the structure tests (`layering`, `engines_behind_accountant`) scan.
pub fn code(text: &str) -> String {
    let body = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    code_only(body)
}
