//! No two public types of the same name in `src/`: every `pub struct | enum | trait | type NAME` of the
//! library (test code aside) has a name no other module declares, so that a name says what it holds
//! wherever it is read, imported or cited (issue 34).
//!
//! Test code is left out: items under `#[cfg(test)]` (an inline `mod … { … }`, skipped to its closing
//! brace, or a single item) and the files of modules declared `#[cfg(test)] mod NAME;`.

use crate::common::rust_files;
use crate::common::{code_only, is_ident};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The names of the modules declared `#[cfg(test)] mod NAME;` in `code`, and `code` with every
/// `#[cfg(test)]` item blanked: an item with a body up to its matching closing brace, otherwise up to
/// its `;`.
fn strip_test_items(code: &str) -> (String, Vec<String>) {
    let mut out: Vec<char> = code.chars().collect();
    let mut test_mods = Vec::new();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= out.len() {
        if out[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + marker.len();
        // the item: up to `;` at depth 0 or the brace closing its first `{`
        let head_start = j;
        let mut depth = 0usize;
        let mut end = out.len();
        while j < out.len() {
            match out[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    let head: String = out[head_start..j].iter().collect();
                    let words: Vec<&str> = head.split_whitespace().collect();
                    if let Some(k) = words.iter().position(|w| *w == "mod") {
                        if let Some(name) = words.get(k + 1) {
                            test_mods.push(name.to_string());
                        }
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        for ch in &mut out[start..end] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        i = end;
    }
    (out.into_iter().collect(), test_mods)
}

/// The files a module file's `mod NAME;` may live in.
fn child_files(file: &Path, name: &str) -> [PathBuf; 2] {
    let dir = file.parent().unwrap();
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let base = if matches!(stem, "mod" | "lib" | "main") { dir.to_path_buf() } else { dir.join(stem) };
    [base.join(format!("{name}.rs")), base.join(name).join("mod.rs")]
}

/// Every `pub struct | enum | trait | type NAME` of the library's non-test code: name → (file, line).
fn declarations(src: &Path) -> BTreeMap<String, Vec<String>> {
    let all = rust_files(src);
    let mut parsed = Vec::new();
    let mut test_files: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap();
        let (code, test_mods) = strip_test_items(&code_only(&text));
        for m in test_mods {
            test_files.extend(child_files(f, &m));
        }
        parsed.push((f.clone(), code));
    }
    let mut decls: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (f, code) in parsed {
        if test_files.contains(&f) {
            continue;
        }
        for (n, line) in code.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() >= 3 && words[0] == "pub" && matches!(words[1], "struct" | "enum" | "trait" | "type") {
                let name: String = words[2].chars().take_while(|&c| is_ident(c)).collect();
                let rel = f.strip_prefix(src.parent().unwrap()).unwrap_or(&f).display().to_string();
                decls.entry(name).or_default().push(format!("{rel}:{}", n + 1));
            }
        }
    }
    decls
}

#[test]
fn no_two_public_types_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let decls = declarations(&src);
    assert!(decls.len() > 100, "found only {} public type names under {}: is the scan broken?", decls.len(), src.display());
    let dups: Vec<String> = decls.iter().filter(|(_, at)| at.len() > 1).map(|(name, at)| format!("  {name}: {}", at.join(", "))).collect();
    assert!(
        dups.is_empty(),
        "public types declared more than once under src/ (rename so each name says what it holds):\n{}",
        dups.join("\n")
    );
}

#[test]
fn the_scan_sees_declarations_and_skips_test_code() {
    let text = r#"
pub struct Kept<T> { x: T }
pub(crate) struct NotPub;
// pub struct InComment;
const S: &str = "pub struct InString {";
const C: char = '{';
pub enum E<'a> { A(&'a str) }
#[cfg(test)]
mod tests {
    pub struct InTests { y: u8 }
    fn f() { let _ = '}'; }
}
#[cfg(test)]
mod more_tests;
pub type After = u8;
"#;
    let (code, mods) = strip_test_items(&code_only(text));
    let names: Vec<&str> = code
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() >= 3 && w[0] == "pub" && matches!(w[1], "struct" | "enum" | "trait" | "type")).then(|| w[2])
        })
        .collect();
    assert_eq!(names, ["Kept<T>", "E<'a>", "After"]);
    assert_eq!(mods, ["more_tests"]);
    assert_eq!(code.lines().count(), text.lines().count(), "line numbers are kept");
    let f = Path::new("src/noise/dgauss_loss.rs");
    assert_eq!(child_files(f, "tests")[0], Path::new("src/noise/dgauss_loss/tests.rs"));
    assert_eq!(child_files(Path::new("src/num/interval/mod.rs"), "tests")[0], Path::new("src/num/interval/tests.rs"));
}
