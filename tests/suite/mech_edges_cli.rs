//! Edges of the mechanism and TopDown commands (issue 32): contradictory or invalid inputs are refused
//! with one line and exit 2, writing nothing; a run's own inputs are never overwritten; a user's file
//! in a run directory is not deleted by a re-run; generated geographies are readable by the next
//! command.

use crate::common::{bin, cli};
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// Exit 2, one `error: ` line on stderr, nothing on stdout; returns the line.
fn refused(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(2), "stdout: {} stderr: {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.starts_with("error: "), "{e}");
    e
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    v.sort();
    v
}

// ---------------------------------------------------------------- safetab-p configuration

#[test]
fn safetab_p_config_with_an_unknown_key_is_refused_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let geo = t.path().join("geo");
    bin()
        .args(["synth", "--out", geo.to_str().unwrap(), "--states", "1", "--counties", "1", "--tracts", "1", "--blocks", "2"])
        .args(["--persons", "50"])
        .assert()
        .success();
    let good = std::fs::read_to_string(repo("data/safetab/config.toml")).unwrap();
    for (what, text) in [
        ("top-level typo", good.replacen("gamma = \"0.1\"", "gama = \"0.1\"\ngamma = \"0.1\"", 1)),
        ("level key", good.replacen("iterations = \"detailed\"", "iterations = \"detailed\"\nsigma2 = \"3\"", 1)),
    ] {
        let cfg = t.path().join("config.toml");
        std::fs::write(&cfg, text).unwrap();
        let out = t.path().join("release");
        let e = refused(
            bin()
                .args(["safetab-p", "--persons", geo.join("persons.csv").to_str().unwrap()])
                .args(["--geography", geo.join("geography.txt").to_str().unwrap(), "--config", cfg.to_str().unwrap()])
                .args(["--iterations", repo("data/safetab/iterations.txt").to_str().unwrap()])
                .args(["--race-codes", repo("data/safetab/race-codes.txt").to_str().unwrap()])
                .args(["--out", out.to_str().unwrap(), "--seed", "1"]),
        );
        assert!(e.contains("unknown field") && e.contains("line "), "{what}: {e}");
        assert!(!out.exists(), "{what}: a release was written");
    }
}

// ---------------------------------------------------------------- certify MANIFEST

/// A small SafeTab-style manifest (discrete Laplace, fast to certify) with its budget consistent.
fn manifest() -> serde_json::Value {
    serde_json::json!({
        "mechanism": "test",
        "for_release": false,
        "seed": 1,
        "neighbors": "add-remove",
        "composition": "sequential",
        "levels": [{
            "name": "USA-detailed",
            "budget": "eps=4/3",
            "degree": 2,
            "structures": [{
                "kind": "two-stage-adaptive",
                "groups": 3,
                "stages": [
                    {"query": "stage1-total", "distribution": "discrete-laplace", "scale": "6", "sensitivity": 1},
                    {"query": "stage2-cells", "distribution": "discrete-laplace", "scale": "2", "sensitivity": 1, "adaptive_on": "stage1-total"}
                ]
            }]
        }]
    })
}

#[test]
fn certify_manifest_refuses_contradictions() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("m.json");
    std::fs::write(&p, manifest().to_string()).unwrap();
    bin().args(["certify", p.to_str().unwrap(), "--delta", "1e-9"]).assert().success();
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit, &str); 4] = [
        ("scale and sigma2", |m| m["levels"][0]["structures"][0]["stages"][0]["sigma2"] = "3".into(), "not sigma2"),
        ("bogus budget", |m| m["levels"][0]["budget"] = "bogus".into(), "budget must be"),
        ("dangling adaptive_on", |m| m["levels"][0]["structures"][0]["stages"][1]["adaptive_on"] = "stage0".into(), "adaptive_on"),
        (
            "adaptive on a later stage",
            |m| m["levels"][0]["structures"][0]["stages"][0]["adaptive_on"] = "stage2-cells".into(),
            "adaptive_on",
        ),
    ];
    for (what, edit, msg) in cases {
        let mut m = manifest();
        edit(&mut m);
        std::fs::write(&p, m.to_string()).unwrap();
        let e = refused(bin().args(["certify", p.to_str().unwrap(), "--delta", "1e-9"]));
        assert!(e.contains(msg) && e.contains("m.json"), "{what}: {e}");
    }
}

// ---------------------------------------------------------------- TopDown runs

const ALLOC: &str = r#"
name = "three levels"
rho = "1"
neighbors = "add-remove"
[[level]]
name = "US"
share = "0.3"
queries = 2
[[level]]
name = "State"
share = "0.5"
queries = 2
[[level]]
name = "Block"
share = "0.2"
queries = 2
"#;

/// A measured run (three geolevels, 8 blocks) in `dir/run`; returns (run, allocation, geography).
fn measured(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let geo = dir.join("g.csv");
    bin()
        .args(["topdown", "gen-geography", "--levels", "US,State,Block", "--fanout", "2,4", "--out", geo.to_str().unwrap()])
        .assert()
        .success();
    let alloc = dir.join("a.toml");
    std::fs::write(&alloc, ALLOC).unwrap();
    let run = dir.join("run");
    measure(&geo, &alloc, &run).assert().success();
    (run, alloc, geo)
}

fn measure(geo: &Path, alloc: &Path, run: &Path) -> Command {
    let mut c = bin();
    c.args(["topdown", "measure", "--geography", geo.to_str().unwrap(), "--allocation", alloc.to_str().unwrap()]).args([
        "--synth-seed",
        "1",
        "--seed",
        "2",
        "--out-dir",
        run.to_str().unwrap(),
    ]);
    c
}

fn postprocess(run: &Path, out: &Path) -> Command {
    let mut c = bin();
    c.args(["topdown", "postprocess", "--run", run.to_str().unwrap(), "--out", out.to_str().unwrap(), "--prec", "53"]);
    c
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn topdown_certify_refuses_a_manifest_with_a_geolevel_removed() {
    let t = tempfile::tempdir().unwrap();
    let (run, _, _) = measured(t.path());
    let text = std::fs::read_to_string(run.join("manifest.json")).unwrap();
    bin()
        .args(["topdown", "certify", "--manifest", run.join("manifest.json").to_str().unwrap(), "--delta", "1e-10", "--prec", "53"])
        .assert()
        .success();
    for drop in [0usize, 1, 2] {
        let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
        m["levels"].as_array_mut().unwrap().remove(drop);
        let p = t.path().join(format!("m{drop}.json"));
        std::fs::write(&p, m.to_string()).unwrap();
        for args in [vec!["topdown", "certify", "--manifest", p.to_str().unwrap()], vec!["certify", p.to_str().unwrap()]] {
            let e = refused(bin().args(&args).args(["--delta", "1e-10", "--prec", "53"]));
            assert!(e.contains("geolevel") || e.contains("beta"), "level {drop}: {e}");
            assert!(!e.contains("zCDP conversions"), "{e}");
        }
    }
}

#[test]
fn topdown_postprocess_reads_only_complete_runs_measure_wrote() {
    let t = tempfile::tempdir().unwrap();
    let (run, _, _) = measured(t.path());
    let out = t.path().join("est.csv");
    postprocess(&run, &out).assert().success();
    std::fs::remove_file(&out).unwrap();
    // no completion marker
    let r1 = t.path().join("r1");
    copy_dir(&run, &r1);
    std::fs::remove_file(r1.join(".tightdp-complete")).unwrap();
    assert!(refused(&mut postprocess(&r1, &out)).contains("not a completed"));
    // values measure never writes: a fraction, an exponent, a huge integer
    let meas = std::fs::read_to_string(run.join("measurements.csv")).unwrap();
    let line2 = meas.lines().nth(1).unwrap().to_string();
    let f: Vec<&str> = line2.split(',').collect();
    for bad in ["1.5", "1e23", "100000000000000000"] {
        let r = t.path().join(format!("r-{bad}"));
        copy_dir(&run, &r);
        let edited = format!("{},{},{},{},{bad},{}", f[0], f[1], f[2], f[3], f[5]);
        std::fs::write(r.join("measurements.csv"), meas.replacen(&line2, &edited, 1)).unwrap();
        let e = refused(&mut postprocess(&r, &out));
        assert!(e.contains("measurements line 2"), "{bad}: {e}");
    }
    assert!(!out.exists());
}

#[test]
fn topdown_postprocess_refuses_invariants_that_overflow() {
    let t = tempfile::tempdir().unwrap();
    let (run, _, _) = measured(t.path());
    let inv = std::fs::read_to_string(run.join("invariants.csv")).unwrap();
    // two state totals of 5e18 add up past i64::MAX; the US total is i64::MAX
    let mut lines: Vec<String> = vec!["level,geounit,total".into()];
    for l in inv.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let t = if f[0] == "US" { i64::MAX.to_string() } else { "5000000000000000000".into() };
        lines.push(format!("{},{},{t}", f[0], f[1]));
    }
    std::fs::write(run.join("invariants.csv"), lines.join("\n") + "\n").unwrap();
    let out = t.path().join("est.csv");
    let e = refused(&mut postprocess(&run, &out));
    assert!(e.contains("invariants line") && !e.contains("internal error"), "{e}");
}

#[test]
fn topdown_postprocess_never_overwrites_the_runs_inputs() {
    let t = tempfile::tempdir().unwrap();
    let (run, _, _) = measured(t.path());
    let before: Vec<Vec<u8>> = ["measurements.csv", "manifest.json", "geography.csv", "invariants.csv", ".tightdp-complete"]
        .iter()
        .map(|f| std::fs::read(run.join(f)).unwrap())
        .collect();
    for f in ["measurements.csv", "manifest.json", "geography.csv", "invariants.csv", ".tightdp-complete"] {
        let e = refused(&mut postprocess(&run, &run.join(f)));
        assert!(e.contains("the run's own"), "{f}: {e}");
        // the same file by another path
        let other = run.join("..").join("run").join(f);
        refused(&mut postprocess(&run, &other));
    }
    let after: Vec<Vec<u8>> = ["measurements.csv", "manifest.json", "geography.csv", "invariants.csv", ".tightdp-complete"]
        .iter()
        .map(|f| std::fs::read(run.join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    // the README's --out run/estimates.csv is fine
    postprocess(&run, &run.join("estimates.csv")).assert().success();
}

#[test]
fn re_measuring_into_a_run_keeps_the_users_estimates_unless_forced() {
    let t = tempfile::tempdir().unwrap();
    let (run, alloc, geo) = measured(t.path());
    postprocess(&run, &run.join("estimates.csv")).assert().success();
    let est = std::fs::read(run.join("estimates.csv")).unwrap();
    let e = refused(&mut measure(&geo, &alloc, &run));
    assert!(e.contains("estimates.csv") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read(run.join("estimates.csv")).unwrap(), est);
    assert!(run.join(".tightdp-complete").is_file());
    // --force replaces the directory whole; a plain re-run of a run without foreign files is fine
    measure(&geo, &alloc, &run).arg("--force").assert().success();
    assert!(!run.join("estimates.csv").exists());
    measure(&geo, &alloc, &run).assert().success();
    assert_eq!(names(t.path()).iter().filter(|n| n.starts_with(".run.tmp") || n.starts_with(".run.old")).count(), 0);
}

#[test]
fn gen_geography_refuses_what_the_reader_refuses() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("g.csv");
    for (levels, fanout, ose, msg) in [
        ("US,US", "2", "", "twice"),
        ("US,State,us", "2,2", "", "twice"),
        ("US,State,Block", "2,2", "place:0.3,place:0.2", "twice"),
        ("US,State,Block", "2,2", "place:0.3,Place :0.2", "twice"),
    ] {
        let e = refused(bin().args([
            "topdown",
            "gen-geography",
            "--levels",
            levels,
            "--fanout",
            fanout,
            "--ose",
            ose,
            "--out",
            out.to_str().unwrap(),
        ]));
        assert!(e.contains(msg), "{levels} {ose}: {e}");
        assert!(!out.exists());
    }
    // a header with a repeated off-spine category is refused by the reader too
    std::fs::write(&out, "Block,US,ose:place,ose:place\nb1,US,p1,\n").unwrap();
    let e = refused(bin().args(["topdown", "spine", "--geography", out.to_str().unwrap()]));
    assert!(e.contains("ose:place"), "{e}");
}

// ---------------------------------------------------------------- risk

#[test]
fn risk_figures_write_all_or_nothing() {
    let t = tempfile::tempdir().unwrap();
    // a destination in the way (a directory named like one of the figures): nothing is written
    let out = t.path().join("figs");
    std::fs::create_dir_all(out.join("kr-figure5.svg").join("x")).unwrap();
    let e = refused(bin().args(["risk", "figures", "--out", out.to_str().unwrap()]));
    assert!(e.contains("kr-figure5.svg"), "{e}");
    assert_eq!(names(&out), ["kr-figure5.svg"]);
    // a failure after everything is staged: nothing is written either, and no staging is left
    let out2 = t.path().join("figs2");
    refused(bin().args(["risk", "figures", "--out", out2.to_str().unwrap()]).env("TIGHTDP_INJECT_FAULT", "before-commit"));
    assert!(names(&out2).is_empty(), "{:?}", names(&out2));
    // a stale staging directory of a killed run is removed; a good run writes the whole set
    std::fs::create_dir_all(out2.join(".tightdp-risk-figures.tmp-1")).unwrap();
    bin().args(["risk", "figures", "--out", out2.to_str().unwrap()]).assert().success();
    let n = names(&out2);
    assert!(n.iter().all(|f| !f.starts_with('.')), "{n:?}");
    for stem in ["kr-figure1", "kr-figure12-right"] {
        for ext in ["csv", "png", "svg"] {
            assert!(n.contains(&format!("{stem}.{ext}")), "{stem}.{ext} missing: {n:?}");
        }
    }
}

#[test]
fn risk_single_level_without_allocation_is_refused() {
    let e = refused(bin().args(["risk", "single", "--p", "0.5", "--level", "Block"]));
    assert!(e.contains("--allocation"), "{e}");
}

// ---------------------------------------------------------------- all or nothing: safetab

#[test]
fn safetab_removes_the_staging_directories_of_killed_runs() {
    let t = tempfile::tempdir().unwrap();
    let geo = t.path().join("geo");
    bin()
        .args(["synth", "--out", geo.to_str().unwrap(), "--states", "1", "--counties", "1", "--tracts", "1", "--blocks", "2"])
        .args(["--persons", "50"])
        .assert()
        .success();
    // what a run killed while staging (.tmp-) or right after the exchange (.old- / .tmp- holding the old run) leaves
    for stale in [".rel.tmp-4242", ".rel.old-4243"] {
        std::fs::create_dir_all(t.path().join(stale)).unwrap();
        std::fs::write(t.path().join(stale).join("t1.txt"), "partial").unwrap();
    }
    let out = t.path().join("rel");
    let run = || {
        let mut c = bin();
        c.args(["safetab", "--persons", geo.join("persons.csv").to_str().unwrap()])
            .args(["--geography", geo.join("geography.txt").to_str().unwrap()])
            .args(["--config", repo("data/safetab/safetab-geometric.toml").to_str().unwrap()])
            .args(["--iterations", repo("data/safetab/iterations-re.txt").to_str().unwrap()])
            .args(["--race-codes", repo("data/safetab/race-codes.txt").to_str().unwrap()])
            .args(["--out", out.to_str().unwrap(), "--seed", "1"]);
        c
    };
    run().assert().success();
    run().assert().success();
    let n: Vec<String> = names(t.path()).into_iter().filter(|n| !n.ends_with(".lock")).collect();
    assert_eq!(n, ["geo", "rel"]);
    assert_eq!(names(&out), [".tightdp-complete", "manifest.json", "moe.csv", "t1.txt", "t2.txt"]);
}

// ---------------------------------------------------------------- certify MANIFEST: size

/// A manifest of `levels` levels with `structures` structures each; structure k has k+1 discrete
/// Gaussian stages of σ² = 10(k+1) (every structure spends the level's ρ = 1/20).
fn big_manifest(levels: usize, structures: usize) -> serde_json::Value {
    let lv: Vec<serde_json::Value> = (0..levels)
        .map(|i| {
            let st: Vec<serde_json::Value> = (0..structures)
                .map(|k| {
                    let stages: Vec<serde_json::Value> = (0..=k)
                        .map(|j| serde_json::json!({"query": format!("q{j}"), "distribution": "discrete-gaussian", "sigma2": (10 * (k + 1)).to_string(), "sensitivity": 1}))
                        .collect();
                    serde_json::json!({"kind": format!("k{k}"), "groups": 1, "stages": stages})
                })
                .collect();
            serde_json::json!({"name": format!("L{i}"), "budget": "rho=1/20", "degree": 1, "structures": st})
        })
        .collect();
    serde_json::json!({"mechanism": "t", "for_release": false, "neighbors": "add-remove", "composition": "sequential", "levels": lv})
}

#[test]
fn certify_manifest_refuses_or_answers_large_manifests_quickly() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("big.json");
    // 500 structures: one composition each (the old code ran for minutes and hundreds of MB); refused
    // by counting the structures, before any composition (the message names the count and the limit)
    std::fs::write(&p, big_manifest(2, 500).to_string()).unwrap();
    crate::common::refused(&["certify", p.to_str().unwrap(), "--delta", "1e-9"], &["500 structures", "at most 8"]);
    // 2,000 levels of identical structures: answered
    std::fs::write(&p, big_manifest(2000, 2).to_string()).unwrap();
    let o = cli(["certify", p.to_str().unwrap(), "--delta", "1e-9", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // ρ = 2000 levels × 1/20 = 100 whichever structure
    assert_eq!(v[0]["zcdp_rho"], "100.000000000000", "{v}");
}

// ---------------------------------------------------------------- safetab from any directory

#[test]
fn safetab_and_safetab_p_run_from_a_scratch_directory_with_built_in_specs() {
    let t = tempfile::tempdir().unwrap();
    let cwd = t.path();
    bin()
        .current_dir(cwd)
        .args(["synth", "--out", "geo", "--states", "1", "--counties", "1", "--tracts", "1", "--blocks", "2", "--persons", "60"])
        .assert()
        .success();
    let common = ["--persons", "geo/persons.csv", "--geography", "geo/geography.txt", "--seed", "3"];
    // no data/ here: the built-in copies of data/safetab/ are used
    bin().current_dir(cwd).arg("safetab").args(common).args(["--out", "st"]).assert().success();
    bin().current_dir(cwd).arg("safetab-p").args(common).args(["--out", "stp"]).assert().success();
    // the same release as with the repository's files named explicitly
    bin()
        .current_dir(cwd)
        .arg("safetab")
        .args(common)
        .args(["--out", "st2", "--config", repo("data/safetab/safetab-geometric.toml").to_str().unwrap()])
        .args(["--iterations", repo("data/safetab/iterations-re.txt").to_str().unwrap()])
        .args(["--race-codes", repo("data/safetab/race-codes.txt").to_str().unwrap()])
        .assert()
        .success();
    for f in ["t1.txt", "t2.txt", "moe.csv", "manifest.json"] {
        assert_eq!(std::fs::read(cwd.join("st").join(f)).unwrap(), std::fs::read(cwd.join("st2").join(f)).unwrap(), "{f}");
    }
    // --data DIR takes DIR/safetab/NAME (here a configuration with a level removed: a different manifest)
    let data = cwd.join("mydata");
    std::fs::create_dir_all(data.join("safetab")).unwrap();
    for f in ["iterations-re.txt", "race-codes.txt"] {
        std::fs::copy(repo("data/safetab").join(f), data.join("safetab").join(f)).unwrap();
    }
    let cfg = std::fs::read_to_string(repo("data/safetab/safetab-geometric.toml")).unwrap();
    let cut = cfg.rfind("[[level]]").unwrap();
    std::fs::write(data.join("safetab/safetab-geometric.toml"), &cfg[..cut]).unwrap();
    bin().current_dir(cwd).arg("safetab").args(common).args(["--out", "st3", "--data", "mydata"]).assert().success();
    let levels = |d: &str| -> usize {
        let m: serde_json::Value = serde_json::from_slice(&std::fs::read(cwd.join(d).join("manifest.json")).unwrap()).unwrap();
        m["levels"].as_array().unwrap().len()
    };
    assert_eq!(levels("st3") + 1, levels("st"));
    // an explicit path wins over --data; a missing --data file is named in the error
    bin()
        .current_dir(cwd)
        .arg("safetab")
        .args(common)
        .args(["--out", "st4", "--data", "mydata", "--config"])
        .arg(repo("data/safetab/safetab-geometric.toml"))
        .assert()
        .success();
    assert_eq!(levels("st4"), levels("st"));
    let e = refused(bin().current_dir(cwd).arg("safetab-p").args(common).args(["--out", "stp2", "--data", "mydata"]));
    assert!(e.contains("mydata/safetab/config.toml"), "{e}");
}
