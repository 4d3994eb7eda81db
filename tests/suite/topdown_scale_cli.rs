//! CLI tests of TopDown post-processing state by state (issue 37, scale): the US and the states
//! first, then each state's subtree on its own (`estimation/by_state.rs`). The by-state route must
//! give the whole-tree route's estimates byte for byte, on the plain DHC spine, on the production
//! AIAN spine with multipass, structural zeros, group-quarters bounds and group invariants, and on a
//! pure-DP bypassed (restructured) spine; and refuse bad measurements as the whole-tree route does.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn td() -> Command {
    Command::cargo_bin("tightdp").unwrap()
}

fn refused(c: &mut Command, msg: &str) {
    let a = c.assert().code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(e.starts_with("error: ") && e.trim_end().lines().count() == 1 && e.contains(msg), "{e}");
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

const LEVELS: &str = "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block";

fn alloc(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations").join(name)
}

/// gen-geography then measure (10-cell histogram unless `measure` says otherwise).
fn run_dir(dir: &Path, geo_args: &[&str], allocation: &str, measure: &[&str]) -> PathBuf {
    let geo = dir.join("g.csv");
    td().args(["topdown", "gen-geography"]).args(geo_args).arg("--out").arg(&geo).assert().success();
    let run = dir.join("run");
    td().args(["topdown", "measure", "--synth-seed", "1", "--seed", "1"])
        .args(measure)
        .arg("--geography")
        .arg(&geo)
        .arg("--allocation")
        .arg(alloc(allocation))
        .arg("--out")
        .arg(&run)
        .assert()
        .success();
    run
}

/// Post-process `run` with `--by-state WHEN` plus `args`; returns (estimates bytes, report).
fn postprocess(run: &Path, out: &Path, when: &str, args: &[&str]) -> (Vec<u8>, serde_json::Value) {
    let a = td()
        .args(["topdown", "postprocess", "--prec", "53", "--format", "json", "--by-state", when, "--run"])
        .arg(run)
        .arg("--out")
        .arg(out)
        .args(args)
        .assert()
        .success();
    (std::fs::read(out).unwrap(), json(&a.get_output().stdout))
}

/// Both routes on `run`: the same bytes, the same parents solved and copied, the route reported.
fn same_both_ways(run: &Path, dir: &Path, args: &[&str]) -> Vec<u8> {
    let (whole, rw) = postprocess(run, &dir.join("whole.csv"), "never", args);
    let (split, rs) = postprocess(run, &dir.join("split.csv"), "always", args);
    assert!(rw["by_state"].as_str().unwrap() == "no", "{rw}");
    assert!(rs["by_state"].as_str().unwrap().starts_with("yes"), "{rs}");
    for k in ["parents_solved", "parents_copied", "rows", "geounits", "blocks"] {
        assert_eq!(rw[k], rs[k], "{k}");
    }
    assert!(whole.len() > 1000);
    assert!(whole == split, "the by-state estimates differ from the whole-tree estimates");
    no_parts_left(dir);
    whole
}

/// The temporary state files (`.OUT.partsPID`) are gone.
fn no_parts_left(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!left.iter().any(|n| n.contains(".parts") || n.contains(".tmp")), "{left:?}");
}

#[test]
fn by_state_gives_the_whole_tree_estimates_on_the_dhc_spine() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(
        dir.path(),
        &["--levels", LEVELS, "--fanout", "1,4,2-3,1-2,1-3,2-3,2-3,2-5", "--ose", "", "--seed", "7"],
        "dhc-2022-08-25.toml",
        &["--schema", "hhgq=5,votingage=2"],
    );
    let est = same_both_ways(&run, dir.path(), &[]);
    // four states, each with its own subtree in the output
    let text = String::from_utf8(est).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("State,")).count(), 4 * 10);
    // auto keeps small runs on the whole-tree route
    let a = td()
        .args(["topdown", "postprocess", "--prec", "53", "--format", "json", "--run"])
        .arg(&run)
        .arg("--out")
        .arg(dir.path().join("auto.csv"))
        .assert()
        .success();
    assert_eq!(json(&a.get_output().stdout)["by_state"], "no");
    assert_eq!(std::fs::read(dir.path().join("auto.csv")).unwrap(), text.as_bytes());
}

#[test]
fn by_state_gives_the_whole_tree_estimates_with_production_passes_on_the_aian_spine() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(
        dir.path(),
        &["--levels", LEVELS, "--fanout", "3,2-3,1-3,1-2,1-3,2-3,2-6", "--ose-preset", "redistricting", "--aian-branch", "--seed", "5"],
        "dhc-2022-08-25.toml",
        &["--schema", "hhgq=5,votingage=2", "--structural-zeros", "hhgq=3&votingage=0", "--gq-units"],
    );
    let (_, rep) = postprocess(&run, &dir.path().join("whole.csv"), "never", &["--passes", "production"]);
    assert!(rep["group_invariants"].as_str().unwrap().parse::<usize>().unwrap() > 0, "{rep}");
    std::fs::remove_file(dir.path().join("whole.csv")).unwrap();
    same_both_ways(&run, dir.path(), &["--passes", "production"]);
}

#[test]
fn by_state_gives_the_whole_tree_estimates_on_a_pure_dp_bypassed_spine() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(
        dir.path(),
        &["--fanout", "3,1-3,2-4,1-3,1-6", "--ose-preset", "redistricting", "--seed", "3"],
        "redistricting-2020.toml",
        &["--bypass", "pure-dp", "--schema", "hhgq=2,votingage=2"],
    );
    assert!(std::fs::read_to_string(run.join("geography.csv")).unwrap().contains('~'));
    same_both_ways(&run, dir.path(), &[]);
}

#[test]
fn by_state_refuses_bad_measurements_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(
        dir.path(),
        &["--levels", LEVELS, "--fanout", "1,2,2,1,1-2,2,2,2-3", "--ose", "", "--seed", "7"],
        "dhc-2022-08-25.toml",
        &["--schema", "hhgq=5,votingage=2"],
    );
    let m = run.join("measurements.csv");
    let good = std::fs::read_to_string(&m).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let out = dir.path().join("est.csv");
    let pp = |msg: &str| {
        refused(td().args(["topdown", "postprocess", "--by-state", "always", "--run"]).arg(&run).arg("--out").arg(&out), msg);
        assert!(!out.exists());
        no_parts_left(dir.path());
    };
    // a block's row given twice instead of another block's
    let last = lines.len() - 1;
    let mut dup = lines.clone();
    dup[last] = lines[last - 1];
    std::fs::write(&m, dup.join("\n") + "\n").unwrap();
    pp("duplicate measurement");
    // a row missing
    std::fs::write(&m, lines[..last].join("\n") + "\n").unwrap();
    pp("rows but the manifest says");
    // a value that is not an integer, in a block's row
    let mut bad = lines.clone();
    let b = bad[last].rsplitn(3, ',').collect::<Vec<_>>();
    let fixed = format!("{},1.5,{}", b[2], b[0]);
    bad[last] = &fixed;
    std::fs::write(&m, bad.join("\n") + "\n").unwrap();
    pp("is not an integer");
    // no geolevel below the states (US, Block: the blocks are the root's children)
    std::fs::write(&m, good).unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let toml = dir2.path().join("a.toml");
    std::fs::write(&toml, "name = \"two levels\"\nrho = \"1\"\nneighbors = \"replace\"\n[[level]]\nname = \"US\"\nshare = \"1/2\"\nqueries = 1\n[[level]]\nname = \"Block\"\nshare = \"1/2\"\nqueries = 1\n").unwrap();
    let flat = run_dir(dir2.path(), &["--levels", "US,Block", "--fanout", "1,3", "--ose", "", "--seed", "7"], toml.to_str().unwrap(), &[]);
    refused(
        td().args(["topdown", "postprocess", "--by-state", "always", "--run"]).arg(&flat).arg("--out").arg(dir2.path().join("e.csv")),
        "a geolevel below the states",
    );
}
