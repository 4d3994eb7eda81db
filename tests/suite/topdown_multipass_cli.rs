//! CLI tests of TopDown's estimation as the Bureau runs it (issue 37): query passes, structural zeros,
//! group-quarters bounds and the state totals of the AIAN spine. The values each pass fixes are
//! checked exactly in `estimation::multipass::tests`; here the command line end to end.

use assert_cmd::Command;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn td() -> Command {
    Command::cargo_bin("tightdp").unwrap()
}

fn refused(c: &mut Command, msg: &str) {
    let a = c.assert().code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(e.starts_with("error: ") && e.trim_end().lines().count() == 1 && e.contains(msg), "{e}");
}

const LEVELS: &str = "US,State,County,PEPG,Tract Subset Group,Tract Subset,Optimized Block Group,Block";

fn alloc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations/dhc-2022-08-25.toml")
}

/// An AIAN-spine geography with the redistricting categories, measured with the structural zero and
/// group-quarters units (10-cell histogram, hhgq 5 × votingage 2).
fn run_dir(dir: &Path, extra: &[&str]) -> PathBuf {
    let geo = dir.join("g.csv");
    td().args(["topdown", "gen-geography", "--levels", LEVELS, "--fanout", "3,2-3,1-3,1-2,1-3,2-3,2-6", "--ose-preset", "redistricting"])
        .args(["--aian-branch", "--seed", "5", "--out"])
        .arg(&geo)
        .assert()
        .success();
    let run = dir.join("run");
    td().args(["topdown", "measure", "--synth-seed", "1", "--seed", "1", "--schema", "hhgq=5,votingage=2"])
        .args(["--structural-zeros", "hhgq=3&votingage=0", "--gq-units"])
        .args(extra)
        .arg("--geography")
        .arg(&geo)
        .arg("--allocation")
        .arg(alloc())
        .arg("--out")
        .arg(&run)
        .assert()
        .success();
    run
}

/// estimates.csv as (geounit → cells) and (geounit → parent).
fn estimates(p: &Path) -> (HashMap<String, Vec<i64>>, HashMap<String, String>) {
    let mut cells: HashMap<String, Vec<i64>> = HashMap::new();
    let mut parent = HashMap::new();
    for l in std::fs::read_to_string(p).unwrap().lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let v = cells.entry(f[1].to_string()).or_default();
        assert_eq!(v.len(), f[3].parse::<usize>().unwrap());
        v.push(f[4].parse().unwrap());
        parent.insert(f[1].to_string(), f[2].to_string());
    }
    (cells, parent)
}

fn postprocess(run: &Path, out: &Path, args: &[&str]) {
    td().args(["topdown", "postprocess", "--prec", "53", "--run"]).arg(run).arg("--out").arg(out).args(args).assert().success();
}

#[test]
fn one_pass_spelled_out_is_the_default_single_pass() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(dir.path(), &[]);
    let (a, b, c) = (dir.path().join("a.csv"), dir.path().join("b.csv"), dir.path().join("c.csv"));
    postprocess(&run, &a, &[]);
    postprocess(&run, &b, &["--passes", "*"]);
    let all = "total, hhgq, votingage, hispanic, cenrace, votingage * hispanic, votingage * cenrace, hispanic * cenrace, votingage * hispanic * cenrace, detailed";
    postprocess(&run, &c, &["--passes", all, "--rounder-passes", "detailed"]);
    let a = std::fs::read(&a).unwrap();
    assert_eq!(a, std::fs::read(&b).unwrap());
    assert_eq!(a, std::fs::read(&c).unwrap());
}

#[test]
fn constraints_hold_in_every_geounit_for_every_ordering() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(dir.path(), &[]);
    // the invariants: US total and the states' totals (ose:State: the sum of a state's two parts)
    let inv: Vec<(String, String, i64)> = std::fs::read_to_string(run.join("invariants.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    assert!(inv.iter().any(|(l, _, _)| l == "ose:State"), "{inv:?}");
    // facilities per block and hhgq type
    let mut units: HashMap<(String, usize), i64> = HashMap::new();
    for l in std::fs::read_to_string(run.join("units.csv")).unwrap().lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        units.insert((f[0].to_string(), f[1].parse().unwrap()), f[2].parse().unwrap());
    }
    let blocks: Vec<String> = std::fs::read_to_string(run.join("geography.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    for (k, passes) in ["*", "production", "total | hhgq | *"].iter().enumerate() {
        let out = dir.path().join(format!("e{k}.csv"));
        postprocess(&run, &out, &["--passes", passes]);
        let (est, parent) = estimates(&out);
        // structural zero: cell 6 (hhgq 3, votingage 0) everywhere
        assert!(est.values().all(|v| v[6] == 0), "{passes}");
        // children add up to their parent
        let mut sum: HashMap<&str, Vec<i64>> = HashMap::new();
        for (u, v) in &est {
            if let Some(p) = parent.get(u).filter(|p| !p.is_empty()) {
                let s = sum.entry(p.as_str()).or_insert(vec![0; 10]);
                for i in 0..10 {
                    s[i] += v[i];
                }
            }
        }
        for (p, s) in sum {
            assert_eq!(&est[p], &s, "{passes}: {p}");
        }
        // invariants: the US total, each state's parts together
        for (l, id, t) in &inv {
            let got: i64 = if l == "US" {
                est[id].iter().sum()
            } else {
                est.iter()
                    .filter(|(u, _)| parent.get(*u).is_some_and(|p| p == "US") && u.split('~').next() == Some(id.as_str()))
                    .map(|(_, v)| v.iter().sum::<i64>())
                    .sum()
            };
            assert_eq!(got, *t, "{passes}: {l} {id}");
        }
        // group-quarters bounds at the blocks: at least one person per facility of a group
        // quarters type, nobody of a type without a facility (cells 2t, 2t + 1)
        for b in &blocks {
            for t in 0..5 {
                let n = units.get(&(b.clone(), t)).copied().unwrap_or(0);
                let persons = est[b][2 * t] + est[b][2 * t + 1];
                assert!(persons <= n * 99_999 && (t == 0 || persons >= n), "{passes}: block {b}, type {t}: {persons} persons, {n} units");
            }
        }
    }
}

#[test]
fn exact_measurements_come_back_through_every_pass() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(dir.path(), &["--no-noise"]);
    // the blocks' detailed measurements are their exact counts
    let mut truth: HashMap<String, Vec<i64>> = HashMap::new();
    for l in std::fs::read_to_string(run.join("measurements.csv")).unwrap().lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        if f[0] == "Block" && f[2] == "detailed" {
            let v = truth.entry(f[1].to_string()).or_insert(vec![0; 10]);
            v[f[3].parse::<usize>().unwrap()] = f[4].parse().unwrap();
        }
    }
    assert!(truth.len() > 100);
    for passes in ["production", "total | hhgq | *"] {
        let out = dir.path().join("e.csv");
        postprocess(&run, &out, &["--passes", passes]);
        let (est, _) = estimates(&out);
        for (b, v) in &truth {
            assert_eq!(&est[b], v, "{passes}: block {b}");
        }
    }
}

#[test]
fn bad_passes_and_constraints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_dir(dir.path(), &[]);
    let out = dir.path().join("e.csv");
    let pp = |args: &[&str]| {
        let mut c = td();
        c.args(["topdown", "postprocess", "--run"]).arg(&run).arg("--out").arg(&out).args(args.iter());
        c
    };
    refused(&mut pp(&["--passes", "total || *"]), "empty pass");
    refused(&mut pp(&["--passes", "total | total"]), "twice");
    refused(&mut pp(&["--passes", "total | age"]), "unknown query");
    refused(&mut pp(&["--rounder-passes", "total | *"]), "no *");
    refused(&mut pp(&["--structural-zeros", "hhgq=7"]), "outside the schema");
    assert!(!out.exists());
    // a units.csv that does not match the run
    let units = run.join("units.csv");
    let text = std::fs::read_to_string(&units).unwrap();
    std::fs::write(&units, text.replacen("block,hhgq,units\n", "block,hhgq,units\nnowhere,1,2\n", 1)).unwrap();
    refused(&mut pp(&[]), "nowhere");
    std::fs::write(&units, text.replacen("block,hhgq,units\n", "block,hhgq,units\n1111111,9,2\n", 1)).unwrap();
    refused(&mut pp(&[]), "hhgq 9");
    // measure: nurse-nva needs the PL94 hhgq codes; a person file with a minor in a nursing facility
    let geo = dir.path().join("g.csv");
    refused(
        td().args(["topdown", "measure", "--synth-seed", "1", "--schema", "small", "--structural-zeros", "nurse-nva", "--geography"])
            .arg(&geo)
            .arg("--allocation")
            .arg(alloc())
            .arg("--out")
            .arg(dir.path().join("r2")),
        "nurse-nva",
    );
    let persons = dir.path().join("p.csv");
    let block = std::fs::read_to_string(&geo).unwrap().lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    std::fs::write(&persons, format!("block,hhgq,votingage,hispanic,cenrace\n{block},3,0,0,0\n{block},0,1,0,0\n")).unwrap();
    refused(
        td().args(["topdown", "measure", "--schema", "hhgq=5,votingage=2", "--structural-zeros", "hhgq=3&votingage=0", "--persons"])
            .arg(&persons)
            .arg("--geography")
            .arg(&geo)
            .arg("--allocation")
            .arg(alloc())
            .arg("--out")
            .arg(dir.path().join("r3")),
        "1 persons in cells that are structural zeros",
    );
}
