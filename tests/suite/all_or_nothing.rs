//! Releases are all or nothing (robustness issue §5): `synth`, `safetab-p`, `topdown measure` and
//! `reproduce` write into a staging directory and swap it into place at the end. Tested here with the
//! failures a user meets: --out is a file, --out is someone else's non-empty directory, a write fails
//! after the files are staged (injected), a second run holds the lock, and a run killed midway.

use crate::common::{bin, cli};
use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn synth_args(out: &Path, persons: u64) -> Vec<String> {
    ["synth", "--out", out.to_str().unwrap(), "--states", "2", "--counties", "2", "--tracts", "3", "--blocks", "2", "--persons"]
        .iter()
        .map(|s| s.to_string())
        .chain([persons.to_string()])
        .collect()
}

fn safetab_p(geo_dir: &Path, out: &Path) -> Command {
    let mut c = bin();
    c.args(["safetab-p", "--persons", geo_dir.join("persons.csv").to_str().unwrap()])
        .args(["--geography", geo_dir.join("geography.txt").to_str().unwrap()])
        .args(["--config", repo("data/safetab/config.toml").to_str().unwrap()])
        .args(["--iterations", repo("data/safetab/iterations.txt").to_str().unwrap()])
        .args(["--race-codes", repo("data/safetab/race-codes.txt").to_str().unwrap()])
        .args(["--out", out.to_str().unwrap(), "--seed", "3"]);
    c
}

fn one_line_exit_2(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    e
}

/// Names in `dir` other than lock files (a staging directory left behind would show here).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.ends_with(".lock"))
        .collect()
}

#[test]
fn out_that_is_a_file_or_a_foreign_directory_is_refused_untouched() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("file");
    std::fs::write(&file, "mine").unwrap();
    let o = cli(synth_args(&file, 100));
    assert!(one_line_exit_2(&o).contains("not a directory"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    // a directory with someone's files, and a target path (persons.csv) that is a directory
    let foreign = t.path().join("foreign");
    std::fs::create_dir_all(foreign.join("persons.csv")).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep").unwrap();
    let o = cli(synth_args(&foreign, 100));
    assert!(one_line_exit_2(&o).contains("--force"));
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "keep");
    assert!(foreign.join("persons.csv").is_dir());
    // with --force the directory is replaced whole: the new run, nothing of the old
    let mut args = synth_args(&foreign, 100);
    args.push("--force".into());
    bin().args(&args).assert().success();
    assert!(foreign.join("persons.csv").is_file() && !foreign.join("notes.txt").exists());
    assert_eq!(leftovers(t.path()).len(), 2, "{:?}", leftovers(t.path()));
}

#[test]
fn a_failure_after_staging_releases_nothing_and_keeps_the_previous_run() {
    let t = tempfile::tempdir().unwrap();
    let geo = t.path().join("geo");
    bin().args(synth_args(&geo, 2000)).assert().success();
    let out = t.path().join("release");
    // first release, then a failing second one: the first stays, byte for byte
    safetab_p(&geo, &out).assert().success();
    let t1 = std::fs::read(out.join("t1.txt")).unwrap();
    let o = safetab_p(&geo, &out).env("TIGHTDP_INJECT_FAULT", "before-commit").output().unwrap();
    assert!(one_line_exit_2(&o).contains("injected"));
    assert_eq!(std::fs::read(out.join("t1.txt")).unwrap(), t1);
    assert!(out.join(".tightdp-complete").is_file());
    // a failing first release leaves no directory at all, and no staging directory
    let fresh = t.path().join("fresh");
    let o = safetab_p(&geo, &fresh).env("TIGHTDP_INJECT_FAULT", "before-commit").output().unwrap();
    one_line_exit_2(&o);
    assert!(!fresh.exists());
    let mut names = leftovers(t.path());
    names.sort();
    assert_eq!(names, ["geo", "release"]);
    // the same for reproduce --quick and topdown measure
    let rq = t.path().join("rq");
    let o = bin()
        .args(["reproduce", "--quick", "--out", rq.to_str().unwrap(), "--data", repo("data").to_str().unwrap()])
        .env("TIGHTDP_INJECT_FAULT", "before-commit")
        .output()
        .unwrap();
    one_line_exit_2(&o);
    assert!(!rq.exists());
    let geo_csv = t.path().join("g.csv");
    bin()
        .args(["topdown", "gen-geography", "--levels", "US,State,County,Block", "--fanout", "2,2,3", "--out", geo_csv.to_str().unwrap()])
        .assert()
        .success();
    let run = t.path().join("run");
    let o = bin()
        .args(["topdown", "measure", "--geography", geo_csv.to_str().unwrap(), "--synth-seed", "1", "--seed", "1"])
        .args(["--allocation", repo("data/allocations/dhc-2022-08-25.toml").to_str().unwrap(), "--out-dir", run.to_str().unwrap()])
        .env("TIGHTDP_INJECT_FAULT", "before-commit")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!run.exists());
}

#[test]
fn a_killed_run_leaves_the_previous_release_or_nothing() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("persons");
    // a run big enough to be killed midway (~1 s)
    let args = synth_args(&out, 3_000_000);
    let exe = assert_cmd::cargo::cargo_bin("tightdp");
    let mut child = std::process::Command::new(&exe).args(&args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    // whatever the moment of the kill: no partial directory is visible
    if out.exists() {
        assert!(out.join(".tightdp-complete").is_file(), "a visible --out must be a completed run");
        assert!(out.join("persons.csv").is_file() && out.join("geography.txt").is_file());
    }
    // the next run cleans the killed run's staging directory and releases
    bin().args(synth_args(&out, 1000)).assert().success();
    let mut names = leftovers(t.path());
    names.sort();
    assert_eq!(names, ["persons"]);
    let lines = std::fs::read_to_string(out.join("persons.csv")).unwrap().lines().count();
    assert_eq!(lines, 1001);
}

#[test]
fn concurrent_runs_into_one_out_are_excluded() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("persons");
    let exe = assert_cmd::cargo::cargo_bin("tightdp");
    let mut first =
        std::process::Command::new(&exe).args(synth_args(&out, 3_000_000)).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    let o = cli(synth_args(&out, 100));
    let first_done = first.try_wait().unwrap().is_some();
    if !first_done {
        // the second run found the first one's lock
        assert!(one_line_exit_2(&o).contains("another tightdp run"));
    }
    assert!(first.wait().unwrap().success());
    assert!(out.join(".tightdp-complete").is_file());
}
