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
    assert!(wiki.contains("pure epsilon of the noise = 1 (exact)") && !wiki.contains("cannot recompute"), "{wiki}");
    assert!(out.contains("cannot recompute: the noise law, its scale"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_registry_files_are_refused_with_one_line() {
    let cases: [(&str, &str, &str); 5] = [
        ("product = ", "colour = \"red\"\nproduct = ", "unknown key 'colour'"),
        ("rho = \"0.015\"", "rho = 0.015", "'rho' must be a decimal or fraction string"),
        ("sources = [\"W-params\", \"W-pipeline\"]", "sources = [\"W-nowhere\"]", "source 'W-nowhere' is not defined"),
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
