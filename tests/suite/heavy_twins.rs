//! Every heavy test keeps a reduced twin in the default tier (issue 51): `docs/testing.md` lists each
//! `#[ignore = "heavy: …"]` test of `src/` and `tests/` beside its twin, and every twin named there is a
//! test of the default tier.

use std::collections::BTreeMap;
use std::path::Path;

/// The `#[test]` functions of the Rust sources: name → heavy (`#[ignore = "heavy: …"]`) or not.
fn tests_by_name() -> BTreeMap<String, bool> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = BTreeMap::new();
    for dir in ["src", "tests"] {
        for f in crate::common::rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&f).unwrap();
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            for (i, l) in lines.iter().enumerate() {
                if *l != "#[test]" {
                    continue;
                }
                // the attributes after #[test], then the function
                let mut heavy = false;
                for l in &lines[i + 1..] {
                    if l.starts_with("#[") {
                        heavy |= l.starts_with("#[ignore = \"heavy:");
                        continue;
                    }
                    let name = l.trim_start_matches("pub ").trim_start_matches("fn ").split('(').next().unwrap();
                    assert!(l.contains("fn "), "{}: #[test] not followed by a function: {l}", f.display());
                    out.insert(name.to_string(), heavy);
                    break;
                }
            }
        }
    }
    out
}

#[test]
fn every_heavy_test_has_its_twin_listed() {
    let tests = tests_by_name();
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/testing.md")).unwrap();
    // rows `| file | heavy | twin | what |` of the Rust table; the backticked names of columns 2 and 3
    let mut listed = BTreeMap::new();
    for row in doc.lines().filter(|l| l.starts_with("| `src/") || l.starts_with("| `tests/")) {
        let cols: Vec<&str> = row.split(" | ").collect();
        let name = |c: &str| c.split('`').nth(1).unwrap_or("").rsplit("::").next().unwrap().to_string();
        listed.insert(name(cols[1]), name(cols[2]));
    }
    let heavy: Vec<&String> = tests.iter().filter(|(_, h)| **h).map(|(n, _)| n).collect();
    assert!(heavy.len() >= 30, "only {} heavy tests found: is the scan working?", heavy.len());
    for h in &heavy {
        let twin = listed.get(*h).unwrap_or_else(|| panic!("heavy test {h} is not listed in docs/testing.md"));
        assert_eq!(tests.get(twin), Some(&false), "{h}: its twin {twin} is not a default-tier test");
    }
    for name in listed.keys() {
        assert_eq!(tests.get(name), Some(&true), "docs/testing.md lists {name}, which is not a heavy test");
    }
}

/// The heavy tier re-runs only the ignored tests and the random-input ones (`scripts/test.sh --heavy`):
/// every file whose tests read the test multiplier lies under a module path named in
/// `scripts/random-input-tests.txt`, or its tests would never run at ten times their cases.
#[test]
fn every_random_input_test_is_named_for_the_heavy_tier() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = std::fs::read_to_string(root.join("scripts/random-input-tests.txt")).unwrap();
    let filters: Vec<&str> = listed.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    assert!(filters.len() >= 4, "scripts/random-input-tests.txt names {} paths", filters.len());
    let mut found = 0;
    for dir in ["src", "tests"] {
        for f in crate::common::rust_files(&root.join(dir)) {
            let rel = f.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&f).unwrap();
            // the definitions, and this test naming them
            let defines = ["src/num/mod.rs", "tests/common/mod.rs", "tests/suite/heavy_twins.rs"].contains(&rel.as_str());
            if defines || !["test_cases(", "test_multiplier()", "proptest_cases("].iter().any(|c| text.contains(c)) {
                continue;
            }
            found += 1;
            // the module path of the file: src/a/b.rs → a::b::, tests/suite/c.rs → suite::c::
            let stem = rel.trim_end_matches(".rs").trim_end_matches("/mod");
            let path = format!("{}::", stem.strip_prefix("src/").or_else(|| stem.strip_prefix("tests/")).unwrap().replace('/', "::"));
            assert!(
                filters.iter().any(|p| path.starts_with(p) || p.starts_with(&path)),
                "{rel} reads the test multiplier but {path} is under no path of scripts/random-input-tests.txt"
            );
        }
    }
    assert!(found >= 8, "only {found} files read the test multiplier: is the scan working?");
}
