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

/// The files (or sub-folders) of one folder of `src/` and the ones each names: `crate::F::x`, and the
/// `super::…::x` paths that climb back to the folder (grouped `{a, b}` imports included). A file's unit
/// is its first path component below the folder; `mod.rs` (which declares the units) is left out.
fn folder_graph(folder: &str) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(folder);
    // each file with its module path below the folder (`mod` dropped: `x/mod.rs` is `x`), `mod.rs` itself out
    let files: Vec<(Vec<String>, std::path::PathBuf)> = rust_files(&dir)
        .into_iter()
        .filter(|p| !is_test_file(p))
        .map(|p| {
            let rel = p.strip_prefix(&dir).unwrap().iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string());
            (rel.filter(|c| c != "mod").collect(), p)
        })
        .filter(|(path, _): &(Vec<String>, _)| !path.is_empty())
        .collect();
    let mut graph: BTreeMap<String, std::collections::BTreeSet<String>> =
        files.iter().map(|(path, _)| (path[0].clone(), Default::default())).collect();
    let known: std::collections::BTreeSet<String> = graph.keys().cloned().collect();
    for (path, p) in &files {
        let text = code(&std::fs::read_to_string(p).unwrap());
        let mut named = named_units(&text, &format!("crate::{}::", folder.replace('/', "::")));
        // `super::` as many times as the file is deep climbs back to the folder
        named.extend(named_units(&text, &"super::".repeat(path.len())));
        let unit = &path[0];
        let e = graph.get_mut(unit).unwrap();
        for n in named {
            if n != *unit && known.contains(&n) {
                e.insert(n);
            }
        }
    }
    graph
}

/// The first identifiers after each `prefix` (`prefix{a::x, b}` gives a and b).
fn named_units(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String { s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(prefix).map(|i| from + i) {
        from = i + prefix.len();
        // `super::super::x` also contains `super::x`: only whole prefixes, not preceded by `::`
        if text[..i].ends_with("::") {
            continue;
        }
        let rest = &text[from..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            out.extend(group[..end].split(',').map(ident).filter(|s| !s.is_empty()));
        } else {
            let s = ident(rest);
            if !s.is_empty() && s != "super" {
                out.push(s);
            }
        }
    }
    out
}

/// The strongly connected components of more than one unit (Tarjan).
fn circles(g: &BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, std::collections::BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        for w in &t.g[v] {
            if !t.index.contains_key(w.as_str()) {
                visit(t, w);
                let lw = t.low[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.stack.contains(&w.as_str()) {
                let iw = t.index[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), out: Vec::new() };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// No folder of `src/`, nested ones included, has a circle across its files (#52 broke the last ones):
/// `noise/params.rs` is the leaf the laws and the registry read; `pld/frame.rs` the leaf of window
/// constants and lattice choices, with the kernels on `LatticeDist` in `lattice.rs` and the MPFR half-laws
/// in `symdist.rs`; TopDown's stages are layered (`topdown_stages_point_down`), a loaded run is
/// `estimation/run.rs` and the direct L2 route `estimation/l2_dense.rs`; SafeTab-P's cell layout lives in
/// the tabulation it shares (`safetab_tab.rs`), the choice between the TOML and the Bureau's JSON
/// configuration in `safetab_prod.rs`; `tightdp accuracy --nhgis` is dispatched by `cli/mod.rs`; the
/// complex logarithm is `num::cinterval::cln`; the smoothed inversion's groups and node step are
/// `fourier/smooth/group.rs`. A new circle fails.
#[test]
fn no_new_circle_across_the_files_of_a_folder() {
    // every folder of src/, nested ones too (`topdown/estimation`), by its path below src/
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders: Vec<String> = Vec::new();
    let mut todo = vec![src.clone()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                folders.push(e.path().strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/"));
                todo.push(e.path());
            }
        }
    }
    folders.sort();
    assert!(folders.len() > 20 && folders.iter().any(|f| f == "topdown/estimation"), "{folders:?}");
    let mut found = Vec::new();
    for f in &folders {
        for c in circles(&folder_graph(f)) {
            found.push((f.clone(), c));
        }
    }
    assert!(found.is_empty(), "circles across the files of a folder: {found:?}");
}

/// The scan of a folder's graph: a named file, a grouped import and a climb back with `super::`.
#[test]
fn the_folder_scan_sees_named_files() {
    assert_eq!(
        named_units("use crate::noise::{loss::L, params};\nfn f() { crate::noise::gauss::g(); }", "crate::noise::"),
        ["loss", "params", "gauss"]
    );
    assert_eq!(named_units("use super::super::compose::x; use super::y;", "super::super::"), ["compose"]);
    assert_eq!(named_units("use super::super::compose::x; use super::y;", "super::"), ["y"]);
    let g: BTreeMap<String, std::collections::BTreeSet<String>> =
        [("a", &["b"][..]), ("b", &["c"][..]), ("c", &["a"][..]), ("d", &["a"][..])]
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect();
    assert_eq!(circles(&g), [vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
}

/// TopDown's stages are layered: geography → measurement → estimation → analysis. A stage's code names
/// only its own or lower stages (the run directory's files are written by `measurement/rundir.rs` and
/// loaded for post-processing by `estimation/load.rs`; the CSV writer helpers are `record.rs`'s).
#[test]
fn topdown_stages_point_down() {
    let stage = ["geography", "measurement", "estimation", "analysis"];
    let rank = |s: &str| stage.iter().position(|x| *x == s).unwrap_or_else(|| panic!("topdown/{s} has no stage here"));
    let g = folder_graph("topdown");
    assert_eq!(g.keys().map(String::as_str).collect::<Vec<_>>(), ["analysis", "estimation", "geography", "measurement"]);
    let mut up = Vec::new();
    for (from, to) in &g {
        for t in to {
            if rank(t) > rank(from) {
                up.push(format!("topdown/{from} names topdown/{t}"));
            }
        }
    }
    assert!(g["analysis"].contains("estimation"), "the scan should see analysis read the estimates: {g:?}");
    assert!(up.is_empty(), "TopDown stages that point up: {up:?}");
}

/// The public API is the facade of re-exports in `lib.rs` (#52 item 5): every module is crate-private, so
/// an item nothing in the crate or the facade uses is reported as dead code by the compiler.
#[test]
fn every_module_is_crate_private_behind_the_facade() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let public: Vec<&str> = lib.lines().filter(|l| l.trim_start().starts_with("pub mod ")).collect();
    assert!(public.is_empty(), "public modules in src/lib.rs (make them pub(crate) and re-export what is used): {public:?}");
    assert!(lib.lines().filter(|l| l.starts_with("pub(crate) mod ")).count() >= 20, "the modules are declared in src/lib.rs");
    assert!(lib.contains("pub use account::{Accountant"), "the facade re-exports the accountant");
}
