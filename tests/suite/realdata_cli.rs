//! End-to-end tests of the real-data path ([SSW24, Figures 6], 8, 9) on the
//! synthetic extracts of data/synthetic-extracts/ (same layouts as the NHGIS and ACS downloads).
//! Expected values come from the existing closed forms (`app::figure_data::count_errors`, the θ-series
//! variance of `dist::DiscreteGaussian`) and from the files read here with plain CSV code — never from the
//! code under test.

use crate::common::{cli, dhc, repo};
use rug::Rational;
use std::path::Path;
use tightdp::count_errors;
use tightdp::DiscreteGaussian;

fn syn(sub: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo().join("data/synthetic-extracts").join(sub))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    v.sort();
    v
}

fn json(out: &[u8]) -> Vec<serde_json::Value> {
    serde_json::from_slice::<serde_json::Value>(out).expect("valid JSON").as_array().unwrap().clone()
}

fn num(r: &serde_json::Value, k: &str) -> f64 {
    r[k].as_str().unwrap_or_else(|| panic!("no field {k}")).parse().unwrap_or_else(|_| panic!("{k} = {:?}", r[k]))
}

fn assert_bad(args: &[String], needle: &str) {
    let out = cli(args);
    assert_eq!(out.status.code(), Some(2), "args {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "stderr must be one line: {err:?}");
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
}

/// Mean of the closed-form expectation `count_errors(σ², y).k` over counts (cached per distinct y).
fn mean_closed_form(s2: &Rational, ys: &[u64], k: usize) -> f64 {
    let mut cache = std::collections::HashMap::new();
    let mut total = 0.0;
    for &y in ys {
        let e = *cache.entry(y).or_insert_with(|| count_errors(s2, y as i64));
        total += [e.0, e.1, e.2, e.3][k];
    }
    total / ys.len() as f64
}

/// The nine P8 race cells (H72001–H72009) of every row of an NHGIS CSV, read independently.
fn p8_cells(path: &Path) -> Vec<u64> {
    let mut rd = csv::Reader::from_path(path).unwrap();
    let h = rd.headers().unwrap().clone();
    let idx: Vec<usize> = (1..=9).map(|k| h.iter().position(|c| c == format!("H72{k:03}")).unwrap()).collect();
    let mut out = Vec::new();
    for rec in rd.records() {
        let rec = rec.unwrap();
        if !rec[0].starts_with('G') || !rec[0][1..].chars().all(|c| c.is_ascii_digit()) {
            continue; // descriptive header row
        }
        out.extend(idx.iter().map(|&i| rec[i].parse::<u64>().unwrap()));
    }
    out
}

/// Figures 6 and 8: the exact expectations are the closed forms of `accuracy` (count_errors averaged
/// over every cell of the file; the DG variance without post-processing; Table 1's 24.82% at the block
/// level) and the simulation agrees within 5 standard errors.
#[test]
fn accuracy_nhgis_exact_matches_closed_forms_and_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["accuracy".into(), "--allocation".into(), dhc(), "--nhgis".into()];
    args.extend(syn("nhgis"));
    for s in ["--trials", "30", "--seed", "4", "--format", "json", "--out"] {
        args.push(s.into());
    }
    args.push(dir.path().join("o").display().to_string());
    let out = cli(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = json(&out.stdout);
    // 5 levels × 2 noises (Figure 6) + 9 races × 2 noises (Figure 8)
    assert_eq!(rows.len(), 10 + 18);
    let block_file = repo().join("data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_block.csv");
    let cells = p8_cells(&block_file);
    for r in &rows {
        let s2: Rational = tightdp::parse_rational(r["sigma2"].as_str().unwrap()).unwrap();
        // the Bureau's σ² is printed to 12 digits; the reduced one is used as printed
        let var = DiscreteGaussian::new(s2.clone()).unwrap().variance_theta(128).mid().to_f64();
        assert!((num(r, "mse_exact") - var).abs() < 1e-9 * var, "{r}");
        if r["figure"] == "6" && r["level"] == "block" {
            let want = mean_closed_form(&s2, &cells, 2);
            assert!((num(r, "mse_nonneg_exact") - want).abs() < 1e-8 * want, "{} vs {want}", num(r, "mse_nonneg_exact"));
            let want = mean_closed_form(&s2, &cells, 3);
            assert!((num(r, "mae_nonneg_exact") - want).abs() < 1e-8 * want);
            assert_eq!(r["counts"], (cells.len()).to_string().as_str());
            if r["noise"] == "reduced" {
                assert_eq!(format!("{:.2}", num(r, "mse_reduction_pct_exact")), "24.82");
            }
        }
        if r["figure"] == "8" && r["group"] == "AI/AN" {
            let col: Vec<u64> = cells.iter().skip(4).step_by(9).copied().collect();
            let want = mean_closed_form(&s2, &col, 2);
            assert!((num(r, "mse_nonneg_exact") - want).abs() < 1e-8 * want);
        }
        for m in ["mse", "mae", "mse_nonneg", "mae_nonneg"] {
            let (e, s, se) = (num(r, &format!("{m}_exact")), num(r, &format!("{m}_sim")), num(r, &format!("{m}_sim_se")));
            assert!(se > 0.0 && (e - s).abs() < 5.0 * se, "{m}: exact {e} vs simulated {s} ± {se} in {r}");
        }
    }
    for f in ["accuracy-nhgis.csv", "fig06-nhgis-accuracy.png", "fig06-nhgis-accuracy.svg", "fig08-nhgis-block-race-mse.csv"] {
        assert!(dir.path().join("o").join(f).exists(), "{f}");
    }
}

/// The PPDD layout (`gisjoin`, `<code>_sf`) reads the 2010 SF values: same exact results as the plain
/// county file.
#[test]
fn ppdd_layout_reads_the_sf_columns() {
    let run = |file: &str| {
        let out = cli(["accuracy", "--allocation", &dhc(), "--nhgis", file, "--table", "p8", "--trials", "0", "--format", "json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        json(&out.stdout)
    };
    let plain = run(&repo().join("data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_county.csv").display().to_string());
    let ppdd = run(&repo().join("data/synthetic-extracts/other-layouts/nhgis_ppdd_synthetic_county.csv").display().to_string());
    assert_eq!(plain.len(), 2);
    for (a, b) in plain.iter().zip(&ppdd) {
        assert_eq!(a["mse_nonneg_exact"], b["mse_nonneg_exact"]);
        assert_eq!(a["units"], b["units"]);
    }
}

/// A file of the wrong layout or with a malformed value: one line on stderr, exit 2, nothing written.
#[test]
fn wrong_layout_and_malformed_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    let acs_file = syn("acs")[1].clone();
    let nhgis_file = syn("nhgis")[4].clone();
    let od = o.display().to_string();
    assert_bad(&["accuracy".into(), "--nhgis".into(), acs_file.clone(), "--out".into(), od.clone()], "no column 'GISJOIN'");
    assert_bad(&["downstream".into(), "--acs".into(), nhgis_file, "--out".into(), od.clone()], "no column 'S1501_C01_007E'");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "GISJOIN,H7V001\nG990,100\nG9900010,x\n").unwrap();
    assert_bad(&["accuracy".into(), "--nhgis".into(), bad.display().to_string(), "--out".into(), od.clone()], "line 3");
    std::fs::write(&bad, "GEO_ID,S1501_C01_007E,S1501_C01_008E\n0400000US01,1,2\n").unwrap();
    assert_bad(&["downstream".into(), "--acs".into(), bad.display().to_string(), "--out".into(), od.clone()], "'S1501_C01_009E'");
    assert_bad(&["accuracy".into(), "--nhgis".into(), "/nonexistent.csv".into()], "cannot read");
    assert_bad(&["accuracy".into(), "--nhgis".into(), syn("nhgis")[0].clone(), "--state".into(), "4".into()], "FIPS");
    assert_bad(&["downstream".into(), "--acs".into(), acs_file, "--trials".into(), "0".into()], "trials");
    assert_bad(&["accuracy".into(), "--level".into(), "Block".into()], "--counts");
    assert!(!o.exists(), "nothing may be written on error");
}

/// Figure 9: the true slope is the least-squares slope of the file (recomputed here from the
/// data.census.gov CSV); at the state level (counts in the millions) the first-order improvement is
/// 1 − √(Var_reduced/Var_Bureau) and the simulation agrees with it.
#[test]
fn downstream_acs_slope_and_state_level_improvement() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["downstream".into(), "--allocation".into(), dhc(), "--acs".into()];
    args.extend(syn("acs"));
    for s in ["--trials", "1500", "--seed", "8", "--format", "json", "--out"] {
        args.push(s.into());
    }
    args.push(dir.path().display().to_string());
    let out = cli(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = json(&out.stdout);
    let levels: Vec<&str> = rows.iter().map(|r| r["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["state", "metro/micro area", "county", "tract", "county subdivision", "place", "ZCTA"]);
    // OLS by hand from the state CSV
    let mut rd = csv::Reader::from_path(repo().join("data/synthetic-extracts/acs/ACSST5Y2020.S1501-Data.csv")).unwrap();
    let h = rd.headers().unwrap().clone();
    let col = |k: u32| h.iter().position(|c| c == format!("S1501_C01_{k:03}E")).unwrap();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for rec in rd.records().skip(1) {
        let rec = rec.unwrap();
        let v = |k: u32| rec[col(k)].parse::<f64>().unwrap();
        let total: f64 = (7..=13).map(v).sum();
        xs.push(100.0 * (v(12) + v(13)) / total);
        ys.push(v(59));
    }
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let st = &rows[0];
    assert_eq!(st["areas"], "52");
    assert_eq!(format!("{:.4}", sxy / sxx), st["slope_true"].as_str().unwrap());
    let var = |k: &str| {
        let s2 = tightdp::parse_rational(st[k].as_str().unwrap()).unwrap();
        DiscreteGaussian::new(s2).unwrap().variance_theta(128).mid().to_f64()
    };
    let first = 100.0 * (1.0 - (var("sigma2_reduced") / var("sigma2_bureau")).sqrt());
    assert_eq!(format!("{first:.3}"), st["improvement_pct_first_order"].as_str().unwrap());
    assert_eq!(format!("{first:.2}"), "7.85");
    let (imp, se) = (num(st, "improvement_pct"), num(st, "improvement_pct_se"));
    assert!((imp - first).abs() < 4.0 * se, "{imp} ± {se} vs {first}");
    // the spread of what a K = 3 study prints is wide: its 95th percentile is above 50%
    assert!(num(st, "batch_improvement_pct_p95") > 50.0 && num(st, "batch_improvement_pct_p05") < -100.0);
    for f in ["downstream-acs.csv", "fig09-acs-slope-mae.png", "fig09-acs-slope-mae.svg", "fig09-acs-slope-mae.csv"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    // the detailed-table layout (B15003 + B20004) is read too
    let b = repo().join("data/synthetic-extracts/other-layouts/acs5-2020-b15003-b20004-county.json");
    let out = cli(["downstream", "--acs", b.to_str().unwrap(), "--trials", "20", "--seed", "1", "--format", "csv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("B15003 + B20004"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// `verify`: rows of the paper's data are `needs-data` without extracts and recomputed with them
/// (here the synthetic state 99, with its own number of blocks; a wrong unit count stays needs-data).
#[test]
fn verify_needs_data_then_recomputes_with_extracts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    copy_dir(&repo().join("data/allocations"), &data.join("allocations"));
    let blocks = p8_cells(&repo().join("data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_block.csv")).len() / 9;
    let published = dir.path().join("pub.csv");
    std::fs::write(
        &published,
        format!(
            "id,paper,location,quantity,inputs,printed,rounding,explanation,alt_inputs\n\
             a,p,l,fig6_reduction_pct,alloc=dhc-2022-08-25;level=Block;metric=mse;pp=nonneg;geo=block;state=99;units={blocks};table=p8;delta=1e-11,24.65%,pct2,Monte Carlo,\n\
             b,p,l,fig6_reduction_pct,alloc=dhc-2022-08-25;level=Block;metric=mse;pp=nonneg;geo=block;state=99;units=421545;table=p8;delta=1e-11,24.65%,pct2,Monte Carlo,\n\
             c,p,l,fig9_mae_reduction_pct,alloc=dhc-2022-08-25;acs=state;level=State;trials=400;seed=1;delta=1e-11,60.57%,pct2,K = 3,\n\
             d,p,l,fig6_reduction_pct,alloc=dhc-2022-08-25;level=Block;metric=mse;pp=none;delta=1e-11,24.82%,pct2,,\n"
        ),
    )
    .unwrap();
    let verify = |extra: &[&str]| {
        let mut a: Vec<String> =
            ["verify", "--published", published.to_str().unwrap(), "--data", data.to_str().unwrap(), "--no-write", "--format", "json"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        let out = cli(&a);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        (json(&out.stdout), String::from_utf8(out.stderr).unwrap())
    };
    let (rows, summary) = verify(&[]);
    let verdicts: Vec<&str> = rows.iter().map(|r| r["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["needs-data", "needs-data", "needs-data", "exact"]);
    assert!(summary.contains("3 needs-data"), "{summary}");
    assert!(rows[0]["reason"].as_str().unwrap().contains("NHGIS"));
    // with the extracts
    let ex = dir.path().join("extracts");
    copy_dir(&repo().join("data/synthetic-extracts/nhgis"), &ex);
    copy_dir(&repo().join("data/synthetic-extracts/acs"), &ex);
    std::fs::write(ex.join("notes.txt"), "not a data file").unwrap();
    let (rows, _) = verify(&["--extracts", ex.to_str().unwrap()]);
    assert_ne!(rows[0]["verdict"], "needs-data");
    let cells = p8_cells(&ex.join("nhgis0000_ds172_2010_block.csv"));
    let s2b = Rational::from((100000, 219)); // 10 queries / (2 · 0.003 · 3.65)
    let s2r = tightdp::parse_rational("343.269046762").unwrap();
    let m = |s2: &Rational| mean_closed_form(s2, &cells, 2);
    let want = 100.0 * (1.0 - m(&s2r) / m(&s2b));
    let got: f64 = rows[0]["recomputed"].as_str().unwrap().parse().unwrap();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    assert_eq!(rows[1]["verdict"], "needs-data");
    assert!(rows[1]["reason"].as_str().unwrap().contains("421545"), "{}", rows[1]["reason"]);
    assert_ne!(rows[2]["verdict"], "needs-data");
    let f9: f64 = rows[2]["recomputed"].as_str().unwrap().parse().unwrap();
    assert!((f9 - 7.85).abs() < 10.0, "{f9}");
}

/// From a directory outside the repository (#56): `accuracy --nhgis` and `downstream --acs` take their
/// default allocation from the built-in data (it was a path relative to the repository), and a missing
/// extract is blamed, not the allocation. (Subprocesses: the working directory is what is tested.)
#[test]
fn nhgis_and_acs_defaults_work_from_any_directory() {
    let scratch = tempfile::tempdir().unwrap();
    let run = |args: &[String]| crate::common::bin().current_dir(scratch.path()).args(args).output().unwrap();
    let county = repo().join("data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_county.csv").display().to_string();
    let out = run(&["accuracy", "--nhgis", &county, "--table", "p8", "--trials", "0", "--format", "json"].map(String::from));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // the same numbers as with the allocation file named from the repository
    let named = cli(["accuracy", "--allocation", &dhc(), "--nhgis", &county, "--table", "p8", "--trials", "0", "--format", "json"]);
    assert_eq!(out.stdout, named.stdout);
    let acs = syn("acs");
    let mut args = vec!["downstream".to_string(), "--acs".into()];
    args.extend(acs.iter().cloned());
    args.extend(["--trials", "20", "--seed", "1", "--format", "csv"].map(String::from));
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for cmd in [["accuracy", "--nhgis"], ["downstream", "--acs"]] {
        let out = run(&[cmd[0], cmd[1], "nope.csv"].map(String::from));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("'nope.csv'") && !err.contains("allocation") && err.lines().count() == 1, "{cmd:?}: {err}");
    }
}
