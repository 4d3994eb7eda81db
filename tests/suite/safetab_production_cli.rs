//! End-to-end runs of SafeTab-P and SafeTab on the Census Bureau's production specification files
//! (data/safetab/production/: 2,996 characteristic iterations, config.json with the US and Puerto Rico
//! passes) with synthetic persons drawn from the real code list; their certificates against the papers:
//! [HBC25] Table 7 (ρ = 4.944 unbounded, 9.888 bounded), [HSM21] Table 4 (ε = 15.29, ρ = 1.41). Exact ε
//! references: scripts/reference/safetab_p_production_eps.py (numpy/mpmath, output beside it) and
//! docs/research/safetab_run_numbers.py (mpmath).

use crate::common::bin;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/safetab").join(p)
}

/// Real state codes (01, 02) plus Puerto Rico (72) when `pr`; 2 counties × 2 tracts × 2 blocks each.
fn synth(dir: &Path, persons: u64, seed: u64, pr: bool) {
    let mut c = bin();
    c.args(["synth", "--out", dir.to_str().unwrap(), "--production", "--states", "2", "--counties", "2", "--tracts", "2", "--blocks", "2"])
        .args(["--persons", &persons.to_string(), "--seed", &seed.to_string()]);
    if pr {
        c.arg("--puerto-rico");
    }
    c.assert().success();
}

fn run_p(dir: &Path, out: &Path, extra: &[&str]) -> String {
    let a = bin()
        .args(["safetab-p", "--production", "--persons", dir.join("persons.csv").to_str().unwrap()])
        .args(["--geography", dir.join("geography.txt").to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "7"])
        .args(extra)
        .assert()
        .success();
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn certify(manifest: &Path) -> serde_json::Value {
    let a = bin().args(["certify", manifest.to_str().unwrap(), "--delta", "1e-10", "--format", "json"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    if v.is_array() {
        v[0].clone()
    } else {
        v
    }
}

fn num(v: &serde_json::Value, k: &str) -> f64 {
    v[k].as_str().unwrap().parse().unwrap()
}

/// The certified bracket lies within `tol` of the reference value.
fn near(v: &serde_json::Value, want: f64, tol: f64) {
    let (lo, hi) = (num(v, "epsilon_exact_lo"), num(v, "epsilon_exact_hi"));
    assert!((lo - want).abs() < tol && (hi - want).abs() < tol, "[{lo}, {hi}] vs {want}");
}

fn get(stdout: &str, k: &str) -> String {
    stdout.lines().find(|l| l.starts_with(&format!("{k} "))).unwrap().split_whitespace().nth(1).unwrap().to_string()
}

fn persons_in_pr(dir: &Path) -> u64 {
    let p = std::fs::read_to_string(dir.join("persons.csv")).unwrap();
    p.lines().skip(1).filter(|l| l.split(',').nth(2) == Some("72")).count() as u64
}

/// The production run (both passes): every iteration of the files is tabulated where the files say,
/// Puerto Rico only in the PR-… levels, and the certificate is Table 7's unbounded ρ = 4.944 with the
/// exact ε of the independent reference, the US pass being the worst.
#[test]
fn safetab_p_production_us_and_pr_certify_to_table7() {
    let d = tempfile::tempdir().unwrap();
    synth(d.path(), 3_000, 5, true);
    assert!(persons_in_pr(d.path()) > 0);
    let out = d.path().join("out");
    let stdout = run_p(d.path(), &out, &[]);
    assert!(stdout.contains("NOT FOR RELEASE"));
    assert_eq!(get(&stdout, "passes"), "US,PR");
    assert_eq!(get(&stdout, "iterations"), "2996");
    assert_eq!(get(&stdout, "skipped_persons"), "0");
    // released groups per REGION_TYPE; no group twice; nation and state levels are never suppressed
    let t1 = std::fs::read_to_string(out.join("t1.txt")).unwrap();
    let mut seen = HashSet::new();
    let mut by_type: HashMap<String, usize> = HashMap::new();
    for l in t1.lines().skip(1) {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(f.len(), 4);
        f[3].parse::<i64>().unwrap();
        assert!(seen.insert((f[0].to_string(), f[1].to_string(), f[2].to_string())), "duplicate {l}");
        // Puerto Rico's entities appear in the PR pass only, and the PR pass holds nothing else
        assert_eq!(f[1].starts_with("PR-"), f[0].starts_with("72"), "{l}");
        *by_type.entry(f[1].to_string()).or_default() += 1;
    }
    // 2,944 detailed + 52 regional iterations at the nation, each state and Puerto Rico
    assert_eq!(by_type["USA"], 2996);
    assert_eq!(by_type["STATE"], 2 * 2996);
    assert_eq!(by_type["PR-STATE"], 2996);
    // the manifest: the groups of each level as counted from the files (sub-state: 2,150 detailed and 48
    // regional iterations; nation/state: 794 and 4 of them TotalOnly)
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["composition"], "disjoint-passes");
    let levels = m["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 11 + 8);
    let groups = |name: &str| -> Vec<u64> {
        let l = levels.iter().find(|l| l["name"] == name).unwrap();
        l["structures"].as_array().unwrap().iter().map(|s| s["groups"].as_u64().unwrap()).collect()
    };
    assert_eq!(groups("USA-detailed"), [2150, 794]);
    assert_eq!(groups("STATE-regional"), [2 * 48, 2 * 4]);
    assert_eq!(groups("COUNTY-detailed"), [4 * 2150]);
    assert_eq!(groups("PR-STATE-detailed"), [2150, 794]);
    assert_eq!(groups("PR-TRACT-regional"), [4 * 48]);
    assert!(levels.iter().all(|l| l["pass"] == if l["name"].as_str().unwrap().starts_with("PR-") { "PR" } else { "US" }));
    // σ² of Stage 1 at ρ = 2.134 (config.json privacy_budget_p_level_2_usa): 9/(2·0.1·2.134) = 22500/1067
    assert_eq!(levels[0]["structures"][0]["stages"][0]["sigma2"], "22500/1067");
    let c = certify(&out.join("manifest.json"));
    assert_eq!(c["zcdp_rho"], "4.944000000000", "Table 7: Σ unbounded Total = 2·2.134 + 4·0.159 + 5·0.008");
    assert_eq!(c["worst_case"], "US pass");
    // scripts/reference/safetab_p_production_eps.txt: 24.401905829263477 (both structures)
    near(&c, 24.401_905_829_263_477, 1e-12);
    // same seed → same release
    let out2 = d.path().join("out2");
    run_p(d.path(), &out2, &[]);
    assert_eq!(t1, std::fs::read_to_string(out2.join("t1.txt")).unwrap());
    assert_eq!(std::fs::read(out.join("t2.txt")).unwrap(), std::fs::read(out2.join("t2.txt")).unwrap());
}

/// `--passes` selects the passes as config.json's run_us / run_pr do: the US pass skips exactly the
/// persons of Puerto Rico, the PR pass everyone else. Certificates: the US pass under replace neighbours
/// is Table 7's bounded ρ = 9.888; the PR pass alone has ρ = 2.643 (config.json: 2.134 + 0.008 +
/// 3·(0.159 + 0.008)), both with the reference's exact ε.
#[test]
fn safetab_p_production_passes_are_selectable() {
    let d = tempfile::tempdir().unwrap();
    synth(d.path(), 2_000, 6, true);
    let pr = persons_in_pr(d.path());
    let out = d.path().join("us");
    let stdout = run_p(d.path(), &out, &["--passes", "us"]);
    assert_eq!(get(&stdout, "passes"), "US");
    assert_eq!(get(&stdout, "skipped_persons"), pr.to_string());
    let t1 = std::fs::read_to_string(out.join("t1.txt")).unwrap();
    assert!(t1.lines().skip(1).all(|l| !l.contains("|PR-") && !l.starts_with("72")));
    let text = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m["composition"], "sequential");
    assert_eq!(m["levels"].as_array().unwrap().len(), 11);
    let rep = d.path().join("replace.json");
    std::fs::write(&rep, text.replace("\"add-remove\"", "\"replace\"")).unwrap();
    let c = certify(&rep);
    assert_eq!(c["zcdp_rho"], "9.888000000000", "Table 7: Σ bounded Total = 2·4.268 + 4·0.318 + 5·0.016");
    near(&c, 37.557_556_225_807_96, 1e-12); // reference 37.557556225807957

    let out = d.path().join("pr");
    let stdout = run_p(d.path(), &out, &["--passes", "pr"]);
    assert_eq!(get(&stdout, "passes"), "PR");
    assert_eq!(get(&stdout, "skipped_persons"), (2_000 - pr).to_string());
    let t1 = std::fs::read_to_string(out.join("t1.txt")).unwrap();
    assert!(t1.lines().skip(1).all(|l| l.contains("|PR-") && l.starts_with("72")));
    let c = certify(&out.join("manifest.json"));
    assert_eq!(c["zcdp_rho"], "2.643000000000");
    near(&c, 16.790_469_118_303_655, 1e-12);
}

/// SafeTab (race & ethnicity, [HSM21]) on the production iteration files with the Table 4
/// configurations: DETAILED_ONLY is the TotalOnly set, present in every level (794 detailed, 4 regional
/// iterations; the geography has one AIANNH area), so the worst structure is TotalOnly everywhere:
/// ε = 14.01495403355173435 (mpmath, docs/research/safetab_run_numbers.py), pure ε 15.29 (Table 4 Σ);
/// the discrete Gaussian configuration ρ = 1.41 (Table 4 Σ).
#[test]
fn safetab_production_certifies_to_table4() {
    let d = tempfile::tempdir().unwrap();
    bin()
        .args(["synth", "--out", d.path().to_str().unwrap(), "--production", "--states", "2", "--counties", "3", "--tracts", "6"])
        .args(["--blocks", "2", "--persons", "3000", "--seed", "4"])
        .assert()
        .success();
    let geo = std::fs::read_to_string(d.path().join("geography.txt")).unwrap();
    assert!(geo.lines().skip(1).any(|l| !l.ends_with("|9999")), "one AIANNH area");
    for (cfg, noise) in [("safetab-geometric.toml", "geometric"), ("safetab-dgauss.toml", "discrete-gaussian")] {
        let out = d.path().join(noise);
        let a = bin()
            .args(["safetab", "--production", "--config", data(cfg).to_str().unwrap()])
            .args(["--persons", d.path().join("persons.csv").to_str().unwrap()])
            .args(["--geography", d.path().join("geography.txt").to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "3"])
            .assert()
            .success();
        let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        assert_eq!(get(&stdout, "iterations"), "2996");
        assert_eq!(get(&stdout, "noise"), noise);
        let t1 = std::fs::read_to_string(out.join("t1.txt")).unwrap();
        let t2 = std::fs::read_to_string(out.join("t2.txt")).unwrap();
        let usa: HashSet<&str> =
            t1.lines().chain(t2.lines()).filter(|l| l.split('|').nth(1) == Some("USA")).map(|l| l.split('|').nth(2).unwrap()).collect();
        assert_eq!(usa.len(), 2996);
        let c = certify(&out.join("manifest.json"));
        if noise == "geometric" {
            assert_eq!(c["epsilon_pure"], "15.290000000000");
            near(&c, 14.014_954_033_551_734, 1e-12);
        } else {
            assert_eq!(c["zcdp_rho"], "1.410000000000");
            assert!(num(&c, "epsilon_exact_hi") < num(&c, "epsilon_zcdp_cks"));
        }
    }
}

/// The production files from any directory (built in), `--data DIR` taking DIR/safetab/production/,
/// and bad input: one line on stderr, exit 2, nothing written.
#[test]
fn production_files_built_in_data_override_and_bad_input() {
    let t = tempfile::tempdir().unwrap();
    let cwd = t.path();
    bin()
        .current_dir(cwd)
        .args(["synth", "--out", "geo", "--production", "--puerto-rico", "--states", "1", "--counties", "1", "--tracts", "1"])
        .args(["--blocks", "2", "--persons", "80"])
        .assert()
        .success();
    let common = ["--persons", "geo/persons.csv", "--geography", "geo/geography.txt", "--seed", "3"];
    let a = bin().current_dir(cwd).args(["safetab-p", "--production"]).args(common).args(["--out", "a"]).assert().success();
    assert_eq!(get(&String::from_utf8_lossy(&a.get_output().stdout), "passes"), "US,PR");
    // --data DIR: a copy of the production files whose config.json runs the US pass only
    let prod = cwd.join("mydata/safetab/production");
    std::fs::create_dir_all(&prod).unwrap();
    for e in std::fs::read_dir(data("production")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, prod.join(p.file_name().unwrap())).unwrap();
    }
    let cfg = std::fs::read_to_string(prod.join("config.json")).unwrap();
    std::fs::write(prod.join("config.json"), cfg.replace("\"run_pr\": true", "\"run_pr\": false")).unwrap();
    let a =
        bin().current_dir(cwd).args(["safetab-p", "--production", "--data", "mydata"]).args(common).args(["--out", "b"]).assert().success();
    assert_eq!(get(&String::from_utf8_lossy(&a.get_output().stdout), "passes"), "US");
    // the same US tables as the two-pass run (noise substreams are per level)
    let us_rows = |d: &str| -> Vec<String> {
        std::fs::read_to_string(cwd.join(d).join("t1.txt")).unwrap().lines().filter(|l| !l.contains("|PR-")).map(String::from).collect()
    };
    assert_eq!(us_rows("a"), us_rows("b"));

    let refused = |args: &[&str], want: &str| {
        let o = bin().current_dir(cwd).args(args).args(common).args(["--out", "bad"]).assert().code(2);
        let e = String::from_utf8_lossy(&o.get_output().stderr).to_string();
        assert!(e.starts_with("error: ") && e.trim_end().lines().count() == 1 && e.contains(want), "{args:?}: {e}");
        assert!(!cwd.join("bad").exists());
    };
    refused(&["safetab-p", "--production", "--passes", "us,xx"], "unknown pass 'xx'");
    refused(&["safetab-p", "--production", "--passes", "pr,pr"], "listed twice");
    refused(&["safetab-p", "--production", "--iterations", "x.txt"], "cannot be used with");
    let bad_cfg = cwd.join("bad.json");
    std::fs::write(&bad_cfg, cfg.replace("\"privacy_defn\": \"zcdp\"", "\"privacy_defn\": \"puredp\"")).unwrap();
    refused(&["safetab-p", "--production", "--config", bad_cfg.to_str().unwrap()], "not implemented");
    // a code outside the 2020 code list; a valid code in no group (9950 as a race code) is fine
    let persons = std::fs::read_to_string(cwd.join("geo/persons.csv")).unwrap();
    let mut lines: Vec<String> = persons.lines().map(String::from).collect();
    let mut f: Vec<String> = lines[5].split(',').map(String::from).collect();
    f[6] = "9950".into();
    lines[5] = f.join(",");
    std::fs::write(cwd.join("geo/persons.csv"), lines.join("\n") + "\n").unwrap();
    bin().current_dir(cwd).args(["safetab-p", "--production"]).args(common).args(["--out", "c"]).assert().success();
    f[6] = "0999".into();
    lines[5] = f.join(",");
    std::fs::write(cwd.join("geo/persons.csv"), lines.join("\n") + "\n").unwrap();
    refused(&["safetab-p", "--production"], "line 6: unknown race code '0999'");
    refused(&["safetab", "--production"], "line 6: unknown race code '0999'");
}
