//! Layers only point down. Every module of `src/` has a rank; a `crate::x` path in a module's code (its
//! `#[cfg(test)]` part and comments aside) must name a module of the same or a lower rank. A new
//! top-level module must be given a rank here.
//!
//! error (the typed error of every layer), num, record (a row of named fields and its renderings; atomic writes), rundir (all-or-nothing run
//! directories) → noise → model → the laws' engines (pld: lattices and grids; budget: zCDP and
//! conversions) → fourier (inversions of pld's laws) → account → calibrate → inputs (census allocation files, data readers) →
//! mechanisms and analyses (tabulation, topdown, risk, accuracy) → app (verification, certificates, figure
//! data, tables) → plots (figures: drawing only) → cli (parse, call, render).

use crate::common::{code, rust_files};
use std::collections::BTreeMap;
use std::path::Path;

const RANKS: &[(&str, u32)] = &[
    ("error", 0),
    ("num", 0),
    ("record", 0),
    ("rundir", 0),
    ("noise", 1),
    ("model", 2),
    ("budget", 3),
    ("pld", 3),
    ("fourier", 4),
    ("account", 5),
    ("calibrate", 6),
    ("census", 7),
    ("data", 7),
    ("tabulation", 8),
    ("topdown", 8),
    ("risk", 8),
    ("accuracy", 8),
    ("attack", 8),
    ("app", 9),
    ("plots", 10),
    ("cli", 11),
];

/// A unit-test file beside a `mod.rs` (`tests.rs`, `random_tests.rs`, declared `#[cfg(test)] mod …;`):
/// test code throughout, like a `#[cfg(test)]` tail.
fn is_test_file(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs"))
}

fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

#[test]
fn imports_point_down() {
    let ranks: BTreeMap<&str, u32> = RANKS.iter().cloned().collect();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = rust_files(&src);
    let mut violations = Vec::new();
    let mut checked = 0;
    for p in &all {
        let rel = p.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_str().unwrap();
        let module = first.trim_end_matches(".rs");
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(&r) = ranks.get(module) else {
            violations.push(format!("{}: module '{module}' has no rank in tests/layering.rs", rel.display()));
            continue;
        };
        if is_test_file(p) {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        for target in crate_paths(&code(&text)) {
            checked += 1;
            if let Some(&t) = ranks.get(target.as_str()) {
                if t > r {
                    violations.push(format!("{}: {module} (rank {r}) imports crate::{target} (rank {t})", rel.display()));
                }
            }
        }
    }
    violations.sort();
    violations.dedup();
    assert!(checked > 200, "only {checked} crate paths found: is the scan working?");
    assert!(violations.is_empty(), "imports that point up:\n{}", violations.join("\n"));
}

/// The scan itself: it sees an upward import, and ignores comments and test modules.
#[test]
fn the_scan_sees_an_upward_import() {
    let text = "use crate::num::Interval;\n// crate::cli in a comment\nfn f() { crate::plots::plot::x(); }\n#[cfg(test)]\nmod tests { use crate::cli; }\n";
    assert_eq!(crate_paths(&code(text)), vec!["num".to_string(), "plots".to_string()]);
}

/// `docs/architecture.md` draws the ranks above as its first diagram: groups of modules joined by `→`,
/// each group one rank, in rising order. The drawing and this table must not drift apart.
#[test]
fn the_architecture_doc_draws_these_ranks() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let start = doc.find("```\n").expect("a diagram in docs/architecture.md") + 4;
    let end = start + doc[start..].find("```").expect("the diagram's end");
    let groups: Vec<Vec<String>> =
        doc[start..end].split('→').map(|g| g.split(',').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect()).collect();
    let mut by_rank: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (m, r) in RANKS {
        by_rank.entry(*r).or_default().push(m.to_string());
    }
    let want: Vec<Vec<String>> = by_rank.into_values().collect();
    let sorted = |v: &[Vec<String>]| -> Vec<Vec<String>> {
        v.iter()
            .map(|g| {
                let mut g = g.clone();
                g.sort();
                g
            })
            .collect()
    };
    assert_eq!(sorted(&groups), sorted(&want), "docs/architecture.md's diagram and tests/layering.rs's ranks differ");
}
