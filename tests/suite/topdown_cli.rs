//! CLI tests of `tightdp topdown …` (issue 8): certification through two code paths, bad input,
//! reproducible measurements, accuracy closed forms vs simulation.

use assert_cmd::Command;
use std::path::Path;

fn td() -> Command {
    Command::cargo_bin("tightdp").unwrap()
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

fn gen_geo(dir: &Path, name: &str, levels: &str, fanout: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    td().args(["topdown", "gen-geography", "--levels", levels, "--fanout", fanout, "--seed", "4", "--out"]).arg(&p).assert().success();
    p
}

const SUB: &str = r#"
name = "DHC 2022-08-25, three-level sub-allocation"
rho = "3.65"
neighbors = "add-remove"
[[level]]
name = "US"
share = "0.3"
queries = 10
[[level]]
name = "State"
share = "0.5"
queries = 10
[[level]]
name = "Block"
share = "0.2"
queries = 10
"#;

const SUB4: &str = r#"
name = "four levels"
rho = "2.56"
neighbors = "replace"
[[level]]
name = "US"
share = "1/4"
query_shares = ["1/2", "1/4", "1/4"]
query_names = ["total", "hhinstlevels", "votingage * hispanic"]
[[level]]
name = "State"
share = "1/4"
queries = 10
[[level]]
name = "County"
share = "1/4"
queries = 10
[[level]]
name = "Block"
share = "1/4"
query_shares = ["1/10", "9/10"]
query_names = ["total", "detailed"]
"#;

/// The manifest's exact ε(δ) equals `epsilon --overall` on the same allocation (compose_groups on
/// all_mechanisms), for both neighbour relations.
#[test]
fn certify_equals_allocation_composition() {
    let dir = tempfile::tempdir().unwrap();
    let geo = gen_geo(dir.path(), "g.csv", "US,State,Block", "2,2-3");
    let alloc = dir.path().join("a.toml");
    for nb in ["add-remove", "replace"] {
        std::fs::write(&alloc, SUB.replace("add-remove", nb)).unwrap();
        let out = dir.path().join(nb);
        td().args(["topdown", "measure", "--synth-seed", "1", "--seed", "2", "--bypass", "none", "--geography"])
            .arg(&geo)
            .arg("--allocation")
            .arg(&alloc)
            .arg("--out-dir")
            .arg(&out)
            .assert()
            .success();
        let a = td()
            .args(["topdown", "certify", "--delta", "1e-10", "--prec", "128", "--format", "json", "--manifest"])
            .arg(out.join("manifest.json"))
            .assert()
            .success();
        let b = td()
            .args(["epsilon", "--overall", "--delta", "1e-10", "--prec", "128", "--format", "json", "--allocation"])
            .arg(&alloc)
            .assert()
            .success();
        let (a, b) = (json(&a.get_output().stdout), json(&b.get_output().stdout));
        assert_eq!(a["epsilon_lo"], b["epsilon_lo"], "{nb}");
        assert_eq!(a["epsilon_hi"], b["epsilon_hi"], "{nb}");
        assert_eq!(a["neighbors"], nb);
    }
}

#[test]
fn measurements_are_reproducible_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let geo = gen_geo(dir.path(), "g.csv", "US,State,County,Block", "2,1-3,1-4");
    let persons = dir.path().join("p.csv");
    td().args(["topdown", "persons", "--seed", "3", "--geography"]).arg(&geo).arg("--out").arg(&persons).assert().success();
    let alloc = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations/redistricting-2020.toml");
    let mut csvs = Vec::new();
    for k in 0..2 {
        let out = dir.path().join(format!("m{k}"));
        // redistricting has 6 geolevels; this geography 4 → error first
        let a = td()
            .args(["topdown", "measure", "--seed", "5", "--geography"])
            .arg(&geo)
            .arg("--allocation")
            .arg(&alloc)
            .arg("--persons")
            .arg(&persons)
            .arg("--out-dir")
            .arg(&out)
            .assert()
            .code(2);
        assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("geolevels"));
        assert!(!out.exists());
        let sub = dir.path().join("sub.toml");
        std::fs::write(&sub, SUB4).unwrap();
        td().args(["topdown", "measure", "--seed", "5", "--geography"])
            .arg(&geo)
            .arg("--allocation")
            .arg(&sub)
            .arg("--persons")
            .arg(&persons)
            .arg("--out-dir")
            .arg(&out)
            .assert()
            .success();
        csvs.push(std::fs::read_to_string(out.join("measurements.csv")).unwrap());
        let m = json(&std::fs::read(out.join("manifest.json")).unwrap());
        let rows = m["rows"].as_u64().unwrap();
        assert_eq!(csvs[k].lines().count() as u64, rows + 1);
        // every row's noise id names an entry whose level matches
        for p in m["paths"].as_array().unwrap() {
            assert_eq!(p["gamma_sum"], "1");
        }
    }
    assert_eq!(csvs[0], csvs[1]);
}

#[test]
fn bad_input_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good_geo = gen_geo(d, "g.csv", "US,State,Block", "2,2-3");
    let alloc = d.join("a.toml");
    std::fs::write(&alloc, SUB).unwrap();
    let bad_geo = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let unknown = bad_geo("unknown.csv", "Block,US,State\nb1,US,S1\nb2,US,\n");
    let cycle = bad_geo("cycle.csv", "Block,US,State\nb1,US,S1\nS1,US,b1\n");
    let bad_alloc = d.join("bad.toml");
    std::fs::write(&bad_alloc, SUB.replace("\"0.2\"", "\"0.1\"")).unwrap();
    let neg = d.join("neg.csv");
    let first_block = std::fs::read_to_string(&good_geo).unwrap().lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    std::fs::write(&neg, format!("block,hhgq,votingage,hispanic,cenrace,count\n{first_block},0,0,0,0,-1\n")).unwrap();
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["--geography".into(), unknown.into(), "--allocation".into(), alloc.clone().into(), "--synth-seed".into(), "1".into()],
            "unknown parent",
        ),
        (
            vec!["--geography".into(), cycle.into(), "--allocation".into(), alloc.clone().into(), "--synth-seed".into(), "1".into()],
            "two geolevels",
        ),
        (
            vec!["--geography".into(), good_geo.clone().into(), "--allocation".into(), bad_alloc.into(), "--synth-seed".into(), "1".into()],
            "sum to",
        ),
        (
            vec![
                "--geography".into(),
                good_geo.clone().into(),
                "--allocation".into(),
                alloc.clone().into(),
                "--persons".into(),
                neg.into(),
            ],
            "count -1 is negative",
        ),
    ];
    for (k, (args, want)) in cases.into_iter().enumerate() {
        let out = d.join(format!("out{k}"));
        let a = td().args(["topdown", "measure"]).args(args).arg("--out-dir").arg(&out).assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err:?} should mention {want:?}");
        assert!(a.get_output().stdout.is_empty());
        assert!(!out.exists(), "nothing written");
    }
    // a cycle within one row, a tampered manifest
    let selfloop = bad_geo("self.csv", "Block,US,State\nb1,US,US\n");
    let a = td().args(["topdown", "spine", "--geography"]).arg(&selfloop).assert().code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("cycle"));
    let out = d.join("ok");
    td().args(["topdown", "measure", "--synth-seed", "1", "--geography"])
        .arg(&good_geo)
        .arg("--allocation")
        .arg(&alloc)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    let man = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    // `certify` (the general command) accepts a TopDown manifest and gives topdown certify's bracket
    let general =
        td().args(["certify", "--delta", "1e-10", "--prec", "53", "--format", "json"]).arg(out.join("manifest.json")).assert().success();
    let special = td()
        .args(["topdown", "certify", "--delta", "1e-10", "--prec", "53", "--format", "json", "--manifest"])
        .arg(out.join("manifest.json"))
        .assert()
        .success();
    assert_eq!(general.get_output().stdout, special.get_output().stdout);
    let tampered = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&man).unwrap();
        edit(&mut v);
        let f = d.join("tampered.json");
        std::fs::write(&f, v.to_string()).unwrap();
        let a = td().args(["topdown", "certify", "--delta", "1e-10", "--manifest"]).arg(&f).assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err} should say {want:?}");
    };
    tampered(&|v| v["noise"][0]["sigma2"] = serde_json::Value::String("1".into()), "does not match");
    // the Block level's noise removed from every path, the recorded share sums left at 1
    let n_entries = v_len(&man);
    let last_level = |v: &serde_json::Value| v["noise"][n_entries - 1]["level"].as_str().unwrap().to_string();
    tampered(
        &|v| {
            let lvl = last_level(v);
            let ids: Vec<u64> = v["noise"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["level"].as_str() == Some(&lvl))
                .map(|e| e["id"].as_u64().unwrap())
                .collect();
            for p in v["paths"].as_array_mut().unwrap() {
                let kept: Vec<serde_json::Value> =
                    p["noise_ids"].as_array().unwrap().iter().filter(|i| !ids.contains(&i.as_u64().unwrap())).cloned().collect();
                p["noise_ids"] = serde_json::Value::Array(kept);
            }
        },
        "noise missing from the manifest",
    );
    tampered(&|v| v["rho"] = serde_json::Value::String("nan".into()), "manifest rho");
}

fn v_len(man: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(man).unwrap();
    v["noise"].as_array().unwrap().len()
}

#[test]
fn accuracy_closed_form_agrees_with_simulation() {
    let geo = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/topdown/dhc-small.csv");
    let a = td().args(["topdown", "accuracy", "--trials", "300", "--format", "json", "--geography"]).arg(&geo).assert().success();
    let rows = json(&a.get_output().stdout);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2 * (8 + 2));
    for r in rows {
        let z: f64 = r["z"].as_str().unwrap().parse().unwrap();
        assert!(z.abs() < 4.0, "{r}");
    }
    // reduced noise has smaller MSE than the Bureau's at every geolevel
    for k in 0..10 {
        let b: f64 = rows[k]["mse_closed_form"].as_str().unwrap().parse().unwrap();
        let r: f64 = rows[10 + k]["mse_closed_form"].as_str().unwrap().parse().unwrap();
        assert!(r < b, "{} {}", rows[k], rows[10 + k]);
    }
}

// ---- issue 18: TopDown post-processing ----

/// Parse `level,geounit,parent,cell,count` into (geounit → (level, parent, cells)).
fn read_estimates(path: &Path) -> std::collections::BTreeMap<String, (String, String, Vec<i64>)> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    assert_eq!(rdr.headers().unwrap().iter().collect::<Vec<_>>(), ["level", "geounit", "parent", "cell", "count"]);
    let mut out: std::collections::BTreeMap<String, (String, String, Vec<i64>)> = Default::default();
    for r in rdr.records() {
        let r = r.unwrap();
        let cell: usize = r[3].parse().unwrap();
        let count: i64 = r[4].parse().unwrap_or_else(|_| panic!("count '{}' is not an integer", &r[4]));
        let e = out.entry(r[1].to_string()).or_insert_with(|| (r[0].to_string(), r[2].to_string(), Vec::new()));
        assert_eq!(e.2.len(), cell, "cells in order");
        e.2.push(count);
    }
    out
}

/// The output contract, checked from the files alone: non-negative integers, every parent's cell equal
/// to the sum of its children's, the invariants of invariants.csv exact.
fn check_contract(est: &std::collections::BTreeMap<String, (String, String, Vec<i64>)>, invariants: &Path) -> usize {
    let mut sums: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    for (_, (_, parent, cells)) in est.iter() {
        assert!(cells.iter().all(|&v| v >= 0));
        if !parent.is_empty() {
            let s = sums.entry(parent.clone()).or_insert_with(|| vec![0; cells.len()]);
            for (a, b) in s.iter_mut().zip(cells) {
                *a += b;
            }
        }
    }
    for (p, s) in &sums {
        assert_eq!(&est[p].2, s, "parent {p} is not the sum of its children");
    }
    let roots = est.values().filter(|v| v.1.is_empty()).count();
    assert_eq!(roots, 1);
    let mut n = 0;
    let mut rdr = csv::Reader::from_path(invariants).unwrap();
    for r in rdr.records() {
        let r = r.unwrap();
        let t: i64 = r[2].parse().unwrap();
        assert_eq!(est[&r[1]].2.iter().sum::<i64>(), t, "invariant of {}", &r[1]);
        assert_eq!(est[&r[1]].0, r[0].to_string());
        n += 1;
    }
    n
}

fn measure_run(dir: &Path, geo: &Path, alloc: &Path, persons: &Path, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.join(format!("run{}", extra.join("")));
    td().args(["topdown", "measure", "--seed", "9", "--schema", "small", "--geography"])
        .arg(geo)
        .arg("--allocation")
        .arg(alloc)
        .arg("--persons")
        .arg(persons)
        .args(extra)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    out
}

#[test]
fn postprocess_output_contract_and_zero_noise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let geo = gen_geo(d, "g.csv", "US,State,County,Block", "2,1-3,1-4");
    let persons = d.join("p.csv");
    td().args(["topdown", "persons", "--seed", "3", "--mean", "8", "--geography"]).arg(&geo).arg("--out").arg(&persons).assert().success();
    let alloc = d.join("a.toml");
    std::fs::write(&alloc, SUB4).unwrap();
    // noisy run: the contract, and the certified epsilon next to the statement that it is unchanged
    let run = measure_run(d, &geo, &alloc, &persons, &[]);
    let out = d.join("est.csv");
    let a = td().args(["topdown", "postprocess", "--format", "json", "--run"]).arg(&run).arg("--out").arg(&out).assert().success();
    let j = json(&a.get_output().stdout);
    assert!(j["privacy"].as_str().unwrap().starts_with("unchanged by post-processing"), "{j}");
    let c = td()
        .args(["topdown", "certify", "--delta", "1e-10", "--prec", "53", "--format", "json", "--manifest"])
        .arg(run.join("manifest.json"))
        .assert()
        .success();
    assert_eq!(j["epsilon_hi"].as_str().unwrap()[..14], json(&c.get_output().stdout)["epsilon_hi"].as_str().unwrap()[..14]);
    let est = read_estimates(&out);
    let levels: std::collections::BTreeSet<&str> = est.values().map(|v| v.0.as_str()).collect();
    assert_eq!(levels.len(), 4);
    let n_inv = check_contract(&est, &run.join("invariants.csv"));
    assert!(n_inv >= 3, "US and the states are invariant");
    // zero noise: the output is the input (block histograms from the person file, summed up the tree),
    // given queries that determine each histogram (every level measures `detailed`)
    let alloc_det = d.join("a-detailed.toml");
    let det = SUB4.replace(
        "query_shares = [\"1/2\", \"1/4\", \"1/4\"]\nquery_names = [\"total\", \"hhinstlevels\", \"votingage * hispanic\"]",
        "queries = 10",
    );
    assert_ne!(det, SUB4);
    std::fs::write(&alloc_det, det).unwrap();
    let run0 = measure_run(d, &geo, &alloc_det, &persons, &["--no-noise"]);
    let m = json(&std::fs::read(run0.join("manifest.json")).unwrap());
    assert_eq!(m["noise_free"], true);
    let a = td().args(["topdown", "certify", "--delta", "1e-10", "--manifest"]).arg(run0.join("manifest.json")).assert().code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("not private"));
    let out0 = d.join("est0.csv");
    let a = td().args(["topdown", "postprocess", "--run"]).arg(&run0).arg("--out").arg(&out0).assert().success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).contains("NOT CERTIFIED"));
    let est0 = read_estimates(&out0);
    check_contract(&est0, &run0.join("invariants.csv"));
    let mut truth: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    let mut rdr = csv::Reader::from_path(&persons).unwrap();
    for r in rdr.records() {
        let r = r.unwrap();
        let v: Vec<usize> = (1..5).map(|i| r[i].parse().unwrap()).collect();
        let cell = ((v[0] * 2 + v[1]) * 2 + v[2]) * 4 + v[3]; // small schema: 3·2·2·4, row-major
        truth.entry(r[0].to_string()).or_insert_with(|| vec![0; 48])[cell] += 1;
    }
    let mut rdr = csv::Reader::from_path(&geo).unwrap();
    for r in rdr.records() {
        let r = r.unwrap();
        let b = truth.get(&r[0]).cloned().unwrap_or_else(|| vec![0; 48]);
        truth.insert(r[0].to_string(), b.clone());
        // ancestor columns US, State, County (the ose: columns follow)
        for anc in 1..4 {
            let e = truth.entry(r[anc].to_string()).or_insert_with(|| vec![0; 48]);
            for (x, y) in e.iter_mut().zip(&b) {
                *x += y;
            }
        }
    }
    assert_eq!(est0.len(), truth.len());
    for (g, (_, _, cells)) in &est0 {
        assert_eq!(cells, &truth[g], "geounit {g}");
    }
}

#[test]
fn postprocess_bad_input_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let geo = gen_geo(d, "g.csv", "US,State,Block", "2,2-3");
    let alloc = d.join("a.toml");
    std::fs::write(&alloc, SUB).unwrap();
    let good = d.join("good");
    td().args(["topdown", "measure", "--synth-seed", "1", "--seed", "1", "--geography"])
        .arg(&geo)
        .arg("--allocation")
        .arg(&alloc)
        .arg("--out-dir")
        .arg(&good)
        .assert()
        .success();
    let copy = |name: &str| -> std::path::PathBuf {
        let p = d.join(name);
        std::fs::create_dir_all(&p).unwrap();
        for f in ["manifest.json", "measurements.csv", "geography.csv", "invariants.csv", ".tightdp-complete"] {
            std::fs::copy(good.join(f), p.join(f)).unwrap();
        }
        p
    };
    let edit = |p: &Path, f: &str, g: &dyn Fn(String) -> String| {
        let s = std::fs::read_to_string(p.join(f)).unwrap();
        std::fs::write(p.join(f), g(s)).unwrap();
    };
    let mut cases: Vec<(std::path::PathBuf, &str)> = Vec::new();
    // a measurement value that is NaN
    let p = copy("nan");
    edit(&p, "measurements.csv", &|s| {
        let mut l: Vec<String> = s.lines().map(String::from).collect();
        let mut f: Vec<String> = l[5].split(',').map(String::from).collect();
        f[4] = "NaN".into();
        l[5] = f.join(",");
        l.join("\n") + "\n"
    });
    cases.push((p, "is not an integer"));
    // a measurement row missing (the manifest says more rows)
    let p = copy("missing-row");
    edit(&p, "measurements.csv", &|s| {
        let mut l: Vec<&str> = s.lines().collect();
        l.remove(3);
        l.join("\n") + "\n"
    });
    cases.push((p, "rows but the manifest says"));
    // a measurement row missing, the manifest's row count adjusted to match
    let p = copy("missing-row2");
    edit(&p, "measurements.csv", &|s| {
        let mut l: Vec<&str> = s.lines().collect();
        l.remove(3);
        l.join("\n") + "\n"
    });
    edit(&p, "manifest.json", &|s| {
        let mut v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v["rows"] = serde_json::json!(v["rows"].as_u64().unwrap() - 1);
        v.to_string()
    });
    cases.push((p, "missing some of its measurements"));
    // the manifest's row count does not match
    let p = copy("rows");
    edit(&p, "manifest.json", &|s| {
        let mut v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v["rows"] = serde_json::json!(v["rows"].as_u64().unwrap() + 1);
        v.to_string()
    });
    cases.push((p, "rows but the manifest says"));
    // a geolevel missing from the manifest
    let p = copy("levels");
    edit(&p, "manifest.json", &|s| {
        let mut v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v["levels"].as_array_mut().unwrap().remove(1);
        v.to_string()
    });
    cases.push((p, "geolevels in the manifest"));
    // a noise id that belongs to another geolevel
    let p = copy("noise-id");
    edit(&p, "measurements.csv", &|s| {
        let mut l: Vec<String> = s.lines().map(String::from).collect();
        let last = l.len() - 1;
        let mut f: Vec<String> = l[last].split(',').map(String::from).collect();
        f[5] = "0".into();
        l[last] = f.join(",");
        l.join("\n") + "\n"
    });
    cases.push((p, "noise entry 0"));
    // invariants that do not add up
    let p = copy("inv");
    edit(&p, "invariants.csv", &|s| {
        let mut l: Vec<String> = s.lines().map(String::from).collect();
        let mut f: Vec<String> = l[1].split(',').map(String::from).collect();
        f[2] = (f[2].parse::<i64>().unwrap() + 1).to_string();
        l[1] = f.join(",");
        l.join("\n") + "\n"
    });
    cases.push((p, "add up to"));
    // no invariants file, no run directory
    let p = copy("noinv");
    std::fs::remove_file(p.join("invariants.csv")).unwrap();
    cases.push((p, "cannot read invariants"));
    cases.push((d.join("nowhere"), "does not exist"));
    for (p, want) in cases {
        let outdir = d.join(format!("out-{}", p.file_name().unwrap().to_string_lossy()));
        std::fs::create_dir_all(&outdir).unwrap();
        let out = outdir.join("est.csv");
        let a = td().args(["topdown", "postprocess", "--run"]).arg(&p).arg("--out").arg(&out).assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{}: {err:?} should mention {want:?}", p.display());
        assert!(a.get_output().stdout.is_empty());
        assert_eq!(std::fs::read_dir(&outdir).unwrap().count(), 0, "nothing written for {}", p.display());
    }
}

/// Split a console line like a shell would for the README's commands (double quotes group words).
fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for ch in line.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The TopDown console block of docs/mechanisms.md runs exactly as written (in a scratch directory holding
/// `data/`).
#[test]
fn readme_topdown_example_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("docs/mechanisms.md")).unwrap();
    let sec = readme.split("## TopDown noisy measurements").nth(1).expect("docs/mechanisms.md has the TopDown section");
    let block = sec.split("```console").nth(1).unwrap().split("```").next().unwrap();
    let cmds: Vec<Vec<String>> = block.lines().filter_map(|l| l.strip_prefix("$ ")).map(shell_words).collect();
    assert!(cmds.len() >= 4, "{cmds:?}");
    assert!(cmds.iter().any(|c| c.get(2).map(String::as_str) == Some("postprocess")));
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("data"), dir.path().join("data")).unwrap();
    for c in &cmds {
        assert_eq!(c[0], "tightdp");
        let a = td().args(&c[1..]).current_dir(dir.path()).assert();
        let o = a.get_output();
        assert!(o.status.success(), "`{}` failed: {}", c.join(" "), String::from_utf8_lossy(&o.stderr));
    }
    let post = cmds.iter().find(|c| c[2] == "postprocess").unwrap();
    let out = post.iter().position(|w| w == "--out").map(|i| dir.path().join(&post[i + 1])).unwrap();
    let run = post.iter().position(|w| w == "--run").map(|i| dir.path().join(&post[i + 1])).unwrap();
    check_contract(&read_estimates(&out), &run.join("invariants.csv"));
}

#[test]
fn spine_algorithm2_reports_distances_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    let geo = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/topdown/redistricting-small.csv");
    let out = dir.path().join("alg2.csv");
    let a = td()
        .args(["topdown", "spine", "--alg2", "--fanout-cutoff", "2", "--format", "json", "--geography"])
        .arg(&geo)
        .arg("--alg2-out")
        .arg(&out)
        .assert()
        .success();
    let rows = json(&a.get_output().stdout);
    let rows = rows.as_array().unwrap();
    let names: Vec<&str> = rows.iter().filter(|r| r["kind"] == "geolevel").map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["US", "State", "County", "Tract Group", "Tract", "Optimized Block Group", "Block"]);
    for r in rows.iter().filter(|r| r["kind"] == "off-spine") {
        let after: f64 = r["osed_mean"].as_str().unwrap().parse().unwrap();
        let before: f64 = r["osed_mean_before"].as_str().unwrap().parse().unwrap();
        assert!(after >= 1.0 && before >= 1.0, "{r}");
    }
    // the redefined geography is a valid geography file with the same blocks
    let a = td().args(["topdown", "spine", "--format", "json", "--geography"]).arg(&out).assert().success();
    let rows2 = json(&a.get_output().stdout);
    let blocks = |v: &serde_json::Value| v.as_array().unwrap().iter().find(|r| r["name"] == "Block").unwrap()["units"].clone();
    assert_eq!(blocks(&rows2), serde_json::json!("128"));
    // no county level: one line, exit 2
    let a = td().args(["topdown", "spine", "--alg2", "--county-level", "Nowhere", "--geography"]).arg(&geo).assert().code(2);
    assert_eq!(String::from_utf8_lossy(&a.get_output().stderr).trim_end().lines().count(), 1);
}

#[test]
fn postprocess_accuracy_simulation() {
    let geo = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/topdown/dhc-small.csv");
    let a = td()
        .args([
            "topdown",
            "accuracy",
            "--postprocess",
            "--noise",
            "bureau,reduced,uniform",
            "--trials",
            "6",
            "--format",
            "json",
            "--geography",
        ])
        .arg(&geo)
        .assert()
        .success();
    let rows = json(&a.get_output().stdout);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2 * 3 * 8, "cells and totals, three noise settings, eight geolevels");
    let f = |r: &serde_json::Value, k: &str| -> f64 { r[k].as_str().unwrap().parse().unwrap() };
    for r in rows {
        // the US and State totals are invariants: exact
        if r["query"] == "total" && (r["level"] == "US" || r["level"] == "State") {
            assert_eq!(f(r, "mse_topdown"), 0.0, "{r}");
            assert!(f(r, "mse_noisy") > 0.0);
        }
        // max(0, ·) never increases an error against a non-negative truth
        assert!(f(r, "mae_nonneg") <= f(r, "mae_noisy") + 1e-9, "{r}");
        // blocks: TopDown's counts are far closer than the block measurements (σ² = 456.6 for the Bureau)
        if r["level"] == "Block" && r["query"] == "cell" {
            assert!(f(r, "mse_topdown") < f(r, "mse_noisy") / 10.0, "{r}");
        }
    }
}
