//! `tightdp verify --deployments`: the registry parses strictly (bad files refused with one line, exit 2,
//! nothing written) and recomputed values agree with an independent computation
//! (scripts/reference/deployments_reference.py, python-flint; output in deployments_reference.txt).

use crate::common::{bin, cli, repo};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tightdp-deployments-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("deployments")).unwrap();
    d
}

fn copy(name: &str, to: &Path) -> String {
    let text = std::fs::read_to_string(repo().join("data/deployments").join(name)).unwrap();
    std::fs::write(to.join("deployments").join(name), &text).unwrap();
    text
}

/// The reference value of a case in scripts/reference/deployments_reference.txt.
fn reference(case: &str) -> f64 {
    let t = std::fs::read_to_string(repo().join("scripts/reference/deployments_reference.txt")).unwrap();
    let line = t.lines().find(|l| l.starts_with(&format!("{case},"))).unwrap();
    line.split(',').nth(4).unwrap().parse().unwrap()
}

fn csv_field(out: &str, key: &str) -> String {
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    let h = rd.headers().unwrap().clone();
    let i = h.iter().position(|c| c == key).unwrap();
    rd.records().next().unwrap().unwrap().get(i).unwrap().to_string()
}

#[test]
fn wikimedia_matches_the_independent_reference() {
    let d = scratch("wiki");
    copy("wikimedia-pageviews-country-2023.toml", &d);
    let o = bin().args(["verify", "--deployments", "--format", "csv", "--data"]).arg(&d).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let (lo, hi): (f64, f64) = (csv_field(&out, "eps_exact_lo").parse().unwrap(), csv_field(&out, "eps_exact_hi").parse().unwrap());
    let r = reference("wikimedia-2023"); // 0.79975726961741844654…
    assert!(lo <= r + 1e-15 && r - 1e-15 <= hi, "[{lo}, {hi}] vs {r}");
    assert!(csv_field(&out, "digits").parse::<u32>().unwrap() >= 20);
    // stated epsilon = 1 at delta = 1e-7: 20.02% tighter
    assert_eq!(csv_field(&out, "verdict"), "tighter than stated by 20.02%");
    // rho = 10 / (2 * 1000/3) = 0.015, the stated budget
    assert_eq!(csv_field(&out, "rho"), "0.015");
    let _ = std::fs::remove_dir_all(&d);
}

/// Facebook's Full URLs breakdown table (14 Gaussian columns, codebook of 13 Feb 2020): the recomputed
/// epsilon(1e-5) holds the closed-form Gaussian composition of scripts/reference/meta_urls_gaussian.txt
/// (mpmath, 1.45336875250239563268…), 21% below the stated 1.844 (the codebook's own zCDP conversion).
#[test]
fn facebook_urls_match_the_gaussian_closed_form() {
    let d = scratch("meta");
    copy("meta-facebook-urls-2020.toml", &d);
    let o = cli(["verify", "--deployments", "--format", "csv", "--data", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let t = std::fs::read_to_string(repo().join("scripts/reference/meta_urls_gaussian.txt")).unwrap();
    let r: f64 = t.lines().find_map(|l| l.strip_prefix("epsilon_exact(1e-5) ")).unwrap().split(' ').next().unwrap().parse().unwrap();
    let (lo, hi): (f64, f64) = (csv_field(&out, "eps_exact_lo").parse().unwrap(), csv_field(&out, "eps_exact_hi").parse().unwrap());
    assert!(lo <= r + 1e-15 && r - 1e-15 <= hi, "[{lo}, {hi}] vs {r}");
    assert!(csv_field(&out, "digits").parse::<u32>().unwrap() >= 20);
    assert_eq!(csv_field(&out, "verdict"), "tighter than stated by 21.18%");
    let _ = std::fs::remove_dir_all(&d);
}

/// The medium- and higher-risk tiers of Wikimedia's pageviews (from 15 Feb 2024; rho 0.0006166 and 0.0001546
/// as a third party gives them, sigma^2 = 10/(2 rho)): the recomputed epsilon(1e-7) against python-flint's
/// (scripts/reference/deployments_reference.txt), both tighter than the stated 0.2 and 0.1.
#[test]
fn wikimedia_risk_tiers_match_the_independent_reference() {
    let d = scratch("wiki-tiers");
    for tier in ["medium", "higher"] {
        copy(&format!("wikimedia-pageviews-country-2024-{tier}-risk.toml"), &d);
    }
    let v = bin().args(["verify", "--deployments", "--format", "csv", "--data"]).arg(&d).output().unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let out = String::from_utf8(v.stdout).unwrap();
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    let h = rd.headers().unwrap().clone();
    let col = |r: &csv::StringRecord, k: &str| r.get(h.iter().position(|c| c == k).unwrap()).unwrap().to_string();
    let mut seen = 0;
    for r in rd.records().map(Result::unwrap) {
        let (case, stated) = match col(&r, "id").as_str() {
            "wikimedia-pageviews-country-2024-medium-risk" => ("wikimedia-2024-medium", 0.2),
            "wikimedia-pageviews-country-2024-higher-risk" => ("wikimedia-2024-higher", 0.1),
            other => panic!("unexpected row {other}"),
        };
        let (lo, hi): (f64, f64) = (col(&r, "eps_exact_lo").parse().unwrap(), col(&r, "eps_exact_hi").parse().unwrap());
        let want = reference(case);
        assert!(lo <= want + 1e-15 && want - 1e-15 <= hi && hi < stated, "{case}: [{lo}, {hi}] vs {want}");
        assert!(col(&r, "verdict").starts_with("tighter than stated"), "{case}");
        seen += 1;
    }
    assert_eq!(seen, 2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn safetab_h_level_matches_the_independent_reference() {
    // the AIANNH level of SafeTab-H: T3 and T4 at iteration level 2, 9 unit shifts each, sigma^2 = 9/(2 * 0.142869)
    let o = cli(["epsilon", "--mech", "dgauss:sigma2=4500000/142869,n=18", "--delta", "1e-10", "--format", "csv"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let (lo, hi): (f64, f64) = (csv_field(&out, "epsilon_lo").parse().unwrap(), csv_field(&out, "epsilon_hi").parse().unwrap());
    let r = reference("safetab-h-aiannh"); // 4.82772315888736976894…
    assert!(lo <= r + 1e-14 && r - 1e-14 <= hi, "[{lo}, {hi}] vs {r}");
}

#[test]
fn cannot_recompute_says_what_is_missing() {
    let d = scratch("missing");
    copy("wikimedia-pageviews-country-historical-2017-2023.toml", &d);
    copy("google-covid19-vaccination-search-insights.toml", &d);
    let o = bin().args(["verify", "--deployments", "--format", "csv", "--data"]).arg(&d).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    // the Laplace release is recomputed now (its pure epsilon, Delta/b = 30/30, exactly); Google's noise is
    // not in the sources read
    let wiki = out.lines().find(|l| l.starts_with("wikimedia-pageviews-country-historical-2017-2023")).unwrap();
    assert!(wiki.contains("pure epsilon of the noise = 1 (exact)") && !wiki.contains("not recomputable"), "{wiki}");
    assert!(out.contains("stated, not recomputable: the noise law, its scale"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_registry_files_are_refused_with_one_line() {
    let cases: [(&str, &str, &str); 5] = [
        ("product = ", "colour = \"red\"\nproduct = ", "unknown key 'colour'"),
        ("rho = \"0.015\"", "rho = 0.015", "'rho' must be a decimal or fraction string"),
        ("sources = [\"W-params\", \"W-pipeline\", \"W-tumult\"]", "sources = [\"W-nowhere\"]", "source 'W-nowhere' is not defined"),
        ("dgauss:sigma2=1000/3,n=10", "dgauss:sigma2=1000/3,n=10,scale=2", "unknown key 'scale'"),
        ("epsilon = \"1\"", "epsilon = \"one\"", "'epsilon'"),
    ];
    for (i, (from, to, needle)) in cases.iter().enumerate() {
        let d = scratch(&format!("bad{i}"));
        let text = copy("wikimedia-pageviews-country-2023.toml", &d);
        assert!(text.contains(from), "{from}");
        std::fs::write(d.join("deployments/wikimedia-pageviews-country-2023.toml"), text.replacen(from, to, 1)).unwrap();
        let out = d.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let o = bin().args(["verify", "--deployments", "--data"]).arg(&d).arg("--out").arg(&out).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "case {i}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "case {i}: {err}");
        assert!(std::fs::read_dir(&out).unwrap().next().is_none(), "nothing written");
        let _ = std::fs::remove_dir_all(&d);
    }
}

/// An exact decimal of the configuration ("2.134") as a fraction.
fn decimal(s: &str) -> rug::Rational {
    tightdp::parse_rational(s).unwrap()
}

/// SafeTab-P's budgets come from the Bureau's production configuration, committed verbatim with its
/// provenance (the registry entry's source C-config: repository, commit, path): every level of the built-in allocation spends exactly
/// the configuration's budget for its geography and iteration level (level 2 the detailed groups, level 1
/// the regional ones), Stage 1 exactly `privacy_budget_p_stage_1_fraction` of it; the US run totals the
/// registry's ρ = 4.944, and the Puerto Rico run (its `pr_*` keys, a separate run on disjoint records, so the
/// guarantee per person is the larger of the two) totals 2.643.
#[test]
fn safetab_p_allocation_is_the_production_configuration() {
    use tightdp::Allocation;
    let config = std::fs::read_to_string(repo().join("data/deployments/sources/safetab-p/config.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&config).unwrap();
    assert_eq!(json["privacy_defn"], "zcdp");
    assert_eq!((json["run_us"].as_bool(), json["run_pr"].as_bool()), (Some(true), Some(true)));
    assert_eq!(json["zero_suppression_chance"].as_f64(), Some(0.9999));
    // the numbers as written (exact decimals), not through f64
    let raw = |key: &str| -> rug::Rational {
        let at = config.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{key} not in the configuration"));
        let v = config[at + key.len() + 3..].trim_start();
        decimal(v[..v.find([',', '\n']).unwrap()].trim())
    };
    let gamma = raw("privacy_budget_p_stage_1_fraction");
    assert_eq!(gamma, rug::Rational::from((1, 10)));
    let alloc = Allocation::from_path(Path::new("safetab-p-2023")).unwrap();
    let (mut us, mut pr, mut matched) = (rug::Rational::new(), rug::Rational::new(), 0);
    for geo in ["usa", "state", "county", "tract", "place", "aiannh", "pr_state", "pr_county", "pr_tract", "pr_place"] {
        for (it, kind) in [(1, "regional"), (2, "detailed")] {
            let budget = raw(&format!("privacy_budget_p_level_{it}_{geo}"));
            if geo.starts_with("pr_") {
                pr += &budget;
                continue;
            }
            us += &budget;
            let name = format!("{}-{kind}", geo.to_uppercase());
            match alloc.levels.iter().find(|l| l.name == name) {
                None => assert_eq!(budget, 0, "{name}: the configuration spends {budget}, the allocation has no such level"),
                Some(level) => {
                    let total: rug::Rational = level.query_rho.iter().sum();
                    assert_eq!(total, budget, "{name}");
                    let stage1: rug::Rational = level.query_rho[..9].iter().sum();
                    assert_eq!(stage1, rug::Rational::from(&gamma * &budget), "{name}: Stage 1");
                    matched += 1;
                }
            }
        }
    }
    assert_eq!(matched, alloc.levels.len(), "every level of the allocation is in the configuration");
    assert_eq!(us, alloc.total_rho());
    assert_eq!(us, decimal("4.944"));
    assert_eq!(pr, decimal("2.643"));
}
