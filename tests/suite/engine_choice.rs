//! Today's engine choice, recorded (#52): for a grid of compositions × queries × options, which engine
//! `auto` picks (or a forced `--method` runs), and which cells are refused. `tests/data/engine_choice.csv`
//! is the record, read here and compared cell by cell, so that moving the choice into one planner shows
//! every cell whose engine changed. It records behaviour, not values (the values are checked against
//! independent references elsewhere).
//!
//! Re-record after an intended change: `TIGHTDP_BLESS=1 cargo test --release --test tests engine_choice --
//! --include-ignored` rewrites the file (cells that took over a quarter of a second go to the heavy tier), and the
//! diff is reviewed like code.

use crate::common::cli;
use std::path::PathBuf;

fn table() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine_choice.csv")
}

/// (status, methods): `ok` with the `method` column of every output row joined by `;`, or `refused` with
/// the refusal's first words (up to the first colon or 40 characters).
fn observe(args: &str) -> (String, String) {
    let mut v: Vec<&str> = args.split_whitespace().collect();
    v.extend(["--format", "csv"]);
    let out = cli(&v);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let head: String = err.trim_start_matches("error: ").chars().take(40).collect();
        let head = head.split(':').next().unwrap_or("").trim().to_string();
        return (format!("exit-{}", out.status.code().unwrap_or(-1)), head);
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let rows = crate::common::csv_rows(&text);
    let col = rows[0].iter().position(|c| c == "method").unwrap_or_else(|| panic!("{args}: no method column"));
    let methods: Vec<String> = rows[1..].iter().map(|r| r[col].clone()).collect();
    ("ok".into(), methods.join(";"))
}

fn check(heavy: bool) {
    let bless = std::env::var_os("TIGHTDP_BLESS").is_some();
    // one writer: the heavy test re-records every cell (both tests writing the file at once, each reading
    // it while the other wrote, once mangled a cell's arguments)
    if bless && !heavy {
        return;
    }
    let mut rd = csv::Reader::from_path(table()).unwrap();
    let mut w = csv::WriterBuilder::new().from_writer(vec![]);
    w.write_record(["tier", "args", "status", "method"]).unwrap();
    let mut diffs = Vec::new();
    let mut checked = 0;
    for rec in rd.records() {
        let rec = rec.unwrap();
        let (tier, args, status, method) = (&rec[0], &rec[1], &rec[2], &rec[3]);
        if tier == "heavy" && !heavy && !bless {
            continue;
        }
        let t = std::time::Instant::now();
        let (s, m) = observe(args);
        checked += 1;
        if bless {
            // the tier is only a scheduling note: a cell over a quarter of a second runs in the heavy tier
            let tier = if t.elapsed().as_secs_f64() > 0.25 { "heavy" } else { "default" };
            w.write_record([tier, args, &s, &m]).unwrap();
        } else if (s.as_str(), m.as_str()) != (status, method) {
            diffs.push(format!("{args}: recorded {status} {method}, now {s} {m}"));
        }
    }
    if bless {
        std::fs::write(table(), w.into_inner().unwrap()).unwrap();
        return;
    }
    assert!(checked >= if heavy { 200 } else { 150 }, "only {checked} cells checked");
    assert!(diffs.is_empty(), "the engine choice changed in {} cells:\n{}", diffs.len(), diffs.join("\n"));
}

#[test]
fn the_engine_choice_is_the_recorded_one() {
    check(false);
}

#[test]
#[ignore = "heavy: the recorded cells that take seconds each (continuous laws on the pld grid, wide mixtures)"]
fn the_engine_choice_is_the_recorded_one_in_every_cell() {
    check(true);
}
