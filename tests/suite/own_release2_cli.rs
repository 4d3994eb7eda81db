//! Issue 32 ("Your own release, first-class"), items 2–6: `describe`, `calibrate --write`, the built-in
//! data files (any working directory, `--data`, `--allocation NAME`), "did you mean" suggestions and
//! `plot` of a user's own allocation.

use crate::common::{bin, cli, csv_rows, dhc, ok, parse_json as json, refused, repo, OWN};
use std::path::Path;
use std::time::Duration;

fn ok_in(dir: &Path, args: &[&str]) -> String {
    let out = bin().current_dir(dir).args(args).timeout(Duration::from_secs(300)).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn field<'a>(rows: &'a [Vec<String>], row: usize, col: &str) -> &'a str {
    let i = rows[0].iter().position(|c| c == col).unwrap_or_else(|| panic!("no column {col} in {:?}", rows[0]));
    &rows[row][i]
}

fn own_file(dir: &Path) -> String {
    let p = dir.join("own.toml");
    std::fs::write(&p, OWN).unwrap();
    p.display().to_string()
}

/// `describe`: per query ρ and σ² = 1/(2ρ) as exact fractions (hand-computed: A = 1/2 · (1/4, 3/4) =
/// 1/8, 3/8 → σ² = 4, 4/3; B = 1/10, 1/5 → 5, 5/2; C = 1/5 / 3 = 1/15 → 15/2), level totals, the total
/// ρ = 1/2 + 3/10 + 1/5 = 1, and the same rows in every format.
#[test]
fn describe_lists_every_query_with_exact_budgets_and_variances() {
    let dir = tempfile::tempdir().unwrap();
    let f = own_file(dir.path());
    let rows = csv_rows(&ok(&["describe", "--allocation", &f, "--format", "csv"]));
    assert_eq!(
        rows[0],
        ["level", "query", "queries", "rho", "rho_decimal", "sigma2", "sigma2_decimal", "sensitivity", "neighbors", "shifts_per_query"]
    );
    let want = [
        ("A", "1", "1/8", "4"),
        ("A", "2", "3/8", "4/3"),
        ("A", "(level total)", "1/2", ""),
        ("B", "1", "1/10", "5"),
        ("B", "2", "1/5", "5/2"),
        ("B", "(level total)", "3/10", ""),
        ("C", "1", "1/15", "15/2"),
        ("C", "2", "1/15", "15/2"),
        ("C", "3", "1/15", "15/2"),
        ("C", "(level total)", "1/5", ""),
        ("(all levels)", "(total)", "1", ""),
    ];
    assert_eq!(rows.len(), want.len() + 1);
    for (i, (l, q, rho, s2)) in want.iter().enumerate() {
        let r = i + 1;
        assert_eq!(
            (field(&rows, r, "level"), field(&rows, r, "query"), field(&rows, r, "rho"), field(&rows, r, "sigma2")),
            (*l, *q, *rho, *s2),
            "row {r}"
        );
        assert_eq!(field(&rows, r, "sensitivity"), "1");
        assert_eq!(field(&rows, r, "neighbors"), "add-remove");
    }
    assert_eq!(field(&rows, 2, "sigma2_decimal"), "1.3333333333333333");
    assert_eq!(field(&rows, 7, "rho_decimal"), "0.066666666666666667");
    assert_eq!(field(&rows, 11, "queries"), "7");
    let j = json(&ok(&["describe", "--allocation", &f, "--format", "json"]));
    assert_eq!(j.as_array().unwrap().len(), want.len());
    assert_eq!(j[1]["sigma2"], "4/3");
    let t = ok(&["describe", "--allocation", &f]);
    assert_eq!(t.lines().count(), want.len() + 1);
    assert!(t.lines().nth(2).unwrap().contains("4/3"), "{t}");
}

/// The DHC 2022-08-25 US level: 10 queries of ρ = 3.65 · 0.02 / 10 = 73/10000, σ² = 5000/73 (the paper's
/// 68.49), selected by the built-in name; the 2020 redistricting file is `replace`: σ² = 1/ρ, two shifts.
#[test]
fn describe_builtin_allocations_by_name() {
    let rows = csv_rows(&ok(&["describe", "--allocation", "dhc-2022-08-25", "--format", "csv"]));
    assert_eq!((field(&rows, 1, "level"), field(&rows, 1, "rho"), field(&rows, 1, "sigma2")), ("US", "73/10000", "5000/73"));
    assert_eq!(field(&rows, 1, "sigma2_decimal"), "68.493150684931507");
    assert_eq!((field(&rows, 11, "query"), field(&rows, 11, "rho")), ("(level total)", "73/1000"));
    let last = rows.len() - 1;
    assert_eq!(field(&rows, last, "rho"), "73/20", "total ρ = 3.65");
    let rows = csv_rows(&ok(&["describe", "--allocation", "redistricting-2020.toml", "--format", "csv"]));
    let (rho, s2) = (field(&rows, 1, "rho"), field(&rows, 1, "sigma2"));
    let (n, d) = rho.split_once('/').unwrap();
    assert_eq!(s2, format!("{d}/{n}"), "replace: σ² = 1/ρ");
    assert_eq!((field(&rows, 1, "neighbors"), field(&rows, 1, "shifts_per_query")), ("replace", "2"));
}

#[test]
fn describe_refuses_bad_input() {
    refused(&["describe", "--allocation", "no-such-allocation"], &["no-such-allocation", "built-in allocations: dhc-2022-08-25"]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, "[[level]]\nname = \"A\"\nquery_rho = [\"-1\"]\n").unwrap();
    refused(&["describe", "--allocation", p.to_str().unwrap()], &["query_rho[0] must be positive"]);
}

/// `--allocation NAME` selects a built-in allocation in every command when no file of that name exists:
/// the same output as the file, from a directory without data/; and a built-in selected by name is the
/// Bureau's (its zCDP column is the Bureau's accounting).
#[test]
fn allocation_by_builtin_name_equals_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let by_file = ok(&["epsilon", "--allocation", &dhc(), "--level", "State", "--delta", "1e-10", "--format", "csv"]);
    let by_name =
        ok_in(dir.path(), &["epsilon", "--allocation", "dhc-2022-08-25", "--level", "State", "--delta", "1e-10", "--format", "csv"]);
    assert_eq!(by_file.replace(&dhc(), "dhc-2022-08-25"), by_name);
    let by_file = ok(&["attack", "--allocation", &dhc(), "--level", "US", "--fpr", "0.01"]);
    let by_name = ok_in(dir.path(), &["attack", "--allocation", "dhc-2022-08-25.toml", "--level", "US", "--fpr", "0.01"]);
    assert_eq!(by_file, by_name);
    assert!(by_name.contains("Bureau"), "{by_name}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}

fn float(s: &str) -> rug::Float {
    rug::Float::with_val(256, rug::Float::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")))
}

fn rational(s: &str) -> rug::Rational {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// `calibrate --write`: the written allocation loads in every command and certifies to the target — per
/// level, the exact ε of the written level at the calibration's δ is at most the level's target ε (and
/// within 1e-9 of it: the bracket is 1e-12 wide), and every written σ² is the published σ² times a
/// factor inside the certified bracket [factor_lo, factor_hi].
#[test]
fn calibrate_write_certifies_to_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let f = own_file(dir.path());
    let w = dir.path().join("out/calibrated.toml");
    let ws = w.to_str().unwrap();
    let table = csv_rows(&ok(&["calibrate", "--allocation", &f, "--delta", "1e-6", "--write", ws, "--format", "csv"]));
    let before = csv_rows(&ok(&["describe", "--allocation", &f, "--format", "csv"]));
    let after = csv_rows(&ok(&["describe", "--allocation", ws, "--format", "csv"]));
    assert_eq!(before.len(), after.len());
    for (i, level) in ["A", "B", "C"].iter().enumerate() {
        let r = i + 1;
        assert_eq!(field(&table, r, "level"), *level);
        let target = float(field(&table, r, "target_epsilon"));
        let eps = csv_rows(&ok(&["epsilon", "--allocation", ws, "--level", level, "--delta", "1e-6", "--format", "csv"]));
        let (lo, hi) = (float(field(&eps, 1, "epsilon_lo")), float(field(&eps, 1, "epsilon_hi")));
        assert!(hi <= target, "level {level}: ε ≤ {hi} above the target {target}");
        assert!(lo >= target.clone() * (1.0 - 1e-9), "level {level}: ε ≥ {lo} far below the target {target}");
        let (flo, fhi) = (float(field(&table, r, "factor_lo")), float(field(&table, r, "factor_hi")));
        for row in 1..before.len() {
            if field(&before, row, "level") != *level || field(&before, row, "sigma2").is_empty() {
                continue;
            }
            let ratio = rug::Float::with_val(256, rational(field(&after, row, "sigma2")) / rational(field(&before, row, "sigma2")));
            assert!(flo <= ratio && ratio <= fhi, "level {level} row {row}: factor {ratio} outside [{flo}, {fhi}]");
        }
    }
    let text = std::fs::read_to_string(&w).unwrap();
    assert!(text.starts_with("# Calibrated by tightdp calibrate"), "{text}");
    assert!(text.contains("name = \"own release (calibrated)\""), "{text}");
    // no temporary file is left beside it
    assert_eq!(std::fs::read_dir(w.parent().unwrap()).unwrap().count(), 1);
}

/// `calibrate --uniform --write`: one factor on every query; the overall ε of the written file at δ is at
/// most the overall target.
#[test]
fn calibrate_uniform_write_certifies_the_overall_target() {
    let dir = tempfile::tempdir().unwrap();
    let f = own_file(dir.path());
    let w = dir.path().join("u.toml");
    let ws = w.to_str().unwrap();
    let table = csv_rows(&ok(&["calibrate", "--allocation", &f, "--delta", "1e-6", "--uniform", "--write", ws, "--format", "csv"]));
    let target = float(field(&table, 1, "target_epsilon"));
    let eps = csv_rows(&ok(&["epsilon", "--allocation", ws, "--overall", "--delta", "1e-6", "--format", "csv"]));
    let (lo, hi) = (float(field(&eps, 1, "epsilon_lo")), float(field(&eps, 1, "epsilon_hi")));
    assert!(hi <= target, "ε ≤ {hi} above the target {target}");
    assert!(lo >= target.clone() * (1.0 - 1e-9), "ε ≥ {lo} far below the target {target}");
    // the same factor on every query: the written ρ of every query is the original ρ divided by it
    let before = csv_rows(&ok(&["describe", "--allocation", &f, "--format", "csv"]));
    let after = csv_rows(&ok(&["describe", "--allocation", ws, "--format", "csv"]));
    let ratio = |r: usize| rational(field(&before, r, "rho")) / rational(field(&after, r, "rho"));
    for r in 2..before.len() {
        assert_eq!(ratio(r), ratio(1), "row {r}");
    }
    let (flo, fhi) = (float(field(&table, 1, "factor_lo")), float(field(&table, 1, "factor_hi")));
    let c = rug::Float::with_val(256, ratio(1));
    assert!(flo <= c && c <= fhi, "{c} outside [{flo}, {fhi}]");
}

/// `--write` never replaces its input, refuses a directory and an attack target, and writes nothing when
/// the calibration is refused.
#[test]
fn calibrate_write_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let f = own_file(dir.path());
    refused(&["calibrate", "--allocation", &f, "--delta", "1e-6", "--write", &f], &["--write", "input --allocation file"]);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), OWN);
    let d = dir.path().to_str().unwrap();
    refused(&["calibrate", "--allocation", &f, "--delta", "1e-6", "--write", d], &["--write", "directory"]);
    let w = dir.path().join("w.toml");
    let ws = w.to_str().unwrap();
    refused(&["calibrate", "--allocation", &f, "--target-advantage", "0.1", "--write", ws], &["--write", "--target-advantage"]);
    refused(&["calibrate", "--allocation", &f, "--delta", "2", "--write", ws], &["delta"]);
    assert!(!w.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "only the input file");
}

/// clap's "did you mean" tips were dropped by the one-line rewrite of its errors (they follow a blank
/// line): a misspelt flag, subcommand or value now names the close match, still on one line, exit 2.
#[test]
fn misspellings_get_a_suggestion_on_one_line() {
    refused(&["epsilon", "--sigma2", "5", "--n", "1", "--delat", "1e-6"], &["'--delat'", "a similar argument exists: '--delta'"]);
    refused(&["epsilom", "--sigma2", "5"], &["'epsilom'", "a similar subcommand exists: 'epsilon'"]);
    refused(&["describe", "--allocation", "x", "--format", "tabel"], &["'tabel'", "a similar value exists: 'table'"]);
    // a message without a tip keeps its form
    let e = refused(&["calibrate", "--allocation", "x", "--target-tpr", "0.1"], &["--at-fpr"]);
    assert_eq!(e.trim_end(), "error: the following required arguments were not provided: --at-fpr <F> (see --help)");
}

/// Files under `dir`, relative, sorted (recursively).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `verify` and `reproduce --quick` from a scratch directory (no data/ there): the built-in data is the
/// default, the numbers are the reproduce job's (results/), `verify` writes nothing without --out, and
/// neither leaves anything outside --out (reproduce's lock file beside --out aside) — in the working
/// directory or the temporary directory where the built-in data is unpacked for the run. The default tier
/// verifies the first rows of the published values there (the full `verify`, 4 CPU-s, runs in process in
/// `cli::verify_has_no_unexplained_rows_and_rejects_malformed_files`, which checks its file is results/'s);
/// the heavy tier the whole list from the scratch directory too.
#[test]
fn verify_and_reproduce_work_from_any_directory() {
    from_any_directory(false);
}

#[test]
#[ignore = "heavy: the whole verify from a scratch directory against results/verification.csv (4 CPU-s)"]
fn verify_and_reproduce_work_from_any_directory_in_full() {
    from_any_directory(true);
}

fn from_any_directory(full: bool) {
    let scratch = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| -> String {
        let out =
            bin().current_dir(scratch.path()).env("TMPDIR", tmp.path()).args(args).timeout(Duration::from_secs(600)).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let v = std::fs::read_to_string(repo().join("results/verification.csv")).unwrap();
    if full {
        assert_eq!(run(&["verify", "--format", "csv"]), v);
        assert!(tree(scratch.path()).is_empty(), "verify wrote {:?}", tree(scratch.path()));
    }
    // --out writes what is printed, and nothing else: on the first rows of the published values (the file
    // sits outside the working directory); they are results/' rows
    let few = tempfile::tempdir().unwrap();
    let published = std::fs::read_to_string(repo().join("data/published.csv")).unwrap();
    let head: String = published.lines().take(4).map(|l| format!("{l}\n")).collect();
    let few_csv = few.path().join("published.csv");
    std::fs::write(&few_csv, head).unwrap();
    let some = run(&["verify", "--format", "csv", "--published", few_csv.to_str().unwrap(), "--out", "v"]);
    assert_eq!(tree(scratch.path()), ["v", "v/verification.csv"]);
    assert_eq!(std::fs::read_to_string(scratch.path().join("v/verification.csv")).unwrap(), some);
    assert_eq!(some.lines().count(), 4, "{some}");
    assert!(some.lines().all(|l| v.lines().any(|w| w == l)), "{some}");
    run(&["reproduce", "--quick", "--out", "q"]);
    let written: Vec<String> = tree(scratch.path()).into_iter().filter(|p| !p.starts_with('v')).collect();
    assert_eq!(written, [".q.lock", "q", "q/.tightdp-complete", "q/geolevel-epsilons.csv", "q/table1-calibration.csv"]);
    for f in ["geolevel-epsilons.csv", "table1-calibration.csv"] {
        assert_eq!(std::fs::read(scratch.path().join("q").join(f)).unwrap(), std::fs::read(repo().join("results").join(f)).unwrap(), "{f}");
    }
    assert!(tree(tmp.path()).is_empty(), "left in the temporary directory: {:?}", tree(tmp.path()));
}

/// `--data DIR` replaces the built-in data: a directory whose published.csv holds two rows verifies two
/// rows; a missing directory is refused naming --data; `--out` and the old `--no-write` contradict.
#[test]
fn data_flag_overrides_the_builtin_data() {
    let d = tempfile::tempdir().unwrap();
    let alloc = d.path().join("allocations");
    std::fs::create_dir(&alloc).unwrap();
    for e in std::fs::read_dir(repo().join("data/allocations")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, alloc.join(p.file_name().unwrap())).unwrap();
    }
    let published = std::fs::read_to_string(repo().join("data/published.csv")).unwrap();
    let mut rd = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(published.as_bytes());
    let mut w = csv::Writer::from_writer(vec![]);
    for r in rd.records().take(3) {
        w.write_record(&r.unwrap()).unwrap();
    }
    std::fs::write(d.path().join("published.csv"), w.into_inner().unwrap()).unwrap();
    let ds = d.path().to_str().unwrap();
    let rows = csv_rows(&ok(&["verify", "--data", ds, "--format", "csv"]));
    assert_eq!(rows.len(), 3, "{rows:?}");
    refused(&["verify", "--data", "/no/such/dir"], &["--data", "/no/such/dir"]);
    refused(&["reproduce", "--quick", "--data", "/no/such/dir", "--out", ds], &["--data", "/no/such/dir"]);
    refused(&["verify", "--out", ds, "--no-write"], &["--out", "--no-write"]);
}

/// `plot`: the user's own figures (PNG + SVG + CSV) and calibration table, all or nothing. The plotted
/// exact ε at δ = 1e-10 is `epsilon`'s, the Bun–Steinke curve is ρ + 2√(ρ ln 1/δ) (level A: ρ = 1/2), and
/// calibration.csv is `calibrate --delta 1e-10`'s table.
#[test]
fn plot_writes_the_users_figures_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = own_file(dir.path());
    let log = ok_in(dir.path(), &["plot", "--allocation", &f, "--out", "figs"]);
    let mut want: Vec<String> = ["epsilon-delta", "tradeoff", "attack-risk"]
        .iter()
        .flat_map(|s| ["csv", "png", "svg"].map(|e| format!("figs/{s}.{e}")))
        .chain(["figs/calibration.csv".to_string(), "figs/.tightdp-complete".to_string(), "figs".to_string()])
        .collect();
    want.sort();
    let got: Vec<String> = tree(dir.path()).into_iter().filter(|p| p.starts_with("figs")).collect();
    assert_eq!(got, want);
    assert_eq!(log.lines().count(), 10, "{log}");
    for s in ["epsilon-delta", "tradeoff", "attack-risk"] {
        let png = std::fs::read(dir.path().join(format!("figs/{s}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{s}");
        assert!(std::fs::read_to_string(dir.path().join(format!("figs/{s}.svg"))).unwrap().contains("<svg"), "{s}");
    }
    let rows = csv_rows(&std::fs::read_to_string(dir.path().join("figs/epsilon-delta.csv")).unwrap());
    let at = |series: &str| -> f64 {
        let r = rows
            .iter()
            .find(|r| r[0] == "A" && r[1].starts_with(series) && (r[2].parse::<f64>().unwrap() / 1e-10 - 1.0).abs() < 1e-9)
            .unwrap_or_else(|| panic!("no {series} point at δ = 1e-10"));
        r[3].parse().unwrap()
    };
    let eps = csv_rows(&ok(&["epsilon", "--allocation", &f, "--level", "A", "--delta", "1e-10", "--format", "csv"]));
    let exact: f64 = field(&eps, 1, "epsilon_lo").parse().unwrap();
    assert!((at("exact") / exact - 1.0).abs() < 1e-9, "{} vs {exact}", at("exact"));
    let bs = 0.5 + 2.0 * (0.5 * 1e10f64.ln()).sqrt();
    assert!((at("zCDP, Bun") / bs - 1.0).abs() < 1e-9, "{} vs {bs}", at("zCDP, Bun"));
    assert!(at("exact") < at("zCDP, Canonne") && at("zCDP, Canonne") < at("zCDP, Bun"));
    let cal = ok(&["calibrate", "--allocation", &f, "--delta", "1e-10", "--format", "csv"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("figs/calibration.csv")).unwrap(), cal);
    // a bad allocation writes nothing; a directory that is not a plot run is not replaced
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[[level]]\nname = \"A\"\nquery_rho = [\"0\"]\n").unwrap();
    let out2 = dir.path().join("figs2");
    refused(&["plot", "--allocation", bad.to_str().unwrap(), "--out", out2.to_str().unwrap()], &["query_rho[0] must be positive"]);
    assert!(!out2.exists());
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("keep.txt"), "x").unwrap();
    let out = cli(["plot", "--allocation", &f, "--out", mine.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(mine.join("keep.txt")).unwrap(), "x");
}
