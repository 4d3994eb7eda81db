//! Engines behind the accountant (issue 34, item 3). A module above `account` (calibration, inputs,
//! mechanisms, applications, drawing, CLI) gets privacy profiles and certified values from the
//! accountant (`account::Accountant`, its `Profile` handle, `account::analysis`), never from an engine:
//! no `crate::pld` or `crate::fourier` path in its code (its `#[cfg(test)]` part and comments aside, as
//! in `tests/layering.rs`). And a certified value is made only inside `account`: outside it the only
//! ways to produce one from another are the closed set of combinators of `account::certified`.

use crate::common::{code, rust_files};
use std::path::Path;

/// The engines: the lattice (`pld`) and Fourier (`fourier`) accountants.
const ENGINES: &[&str] = &["pld", "fourier"];

/// The modules at or below the engines (`tests/layering.rs`, ranks 0–4): they may name an engine.
const AT_OR_BELOW_ACCOUNT: &[&str] =
    &["lib", "main", "error", "num", "record", "rundir", "noise", "model", "budget", "pld", "fourier", "account"];

/// Files above `account` that still name an engine, each with the reason. An entry that no longer
/// names one is reported, so the list cannot go stale.
/// (Empty: `PurePld` moved from `tabulation/account.rs` (then `mech/account.rs`) to `pld/pure.rs`, reached through `account::geometric`.)
const ALLOWED: &[(&str, &str)] = &[];

fn ident(s: &str) -> String {
    s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// The top-level modules a code names as `crate::x…` or inside `crate::{x, y::z, …}`.
fn crate_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // the top-level names of a use group (nested braces skipped)
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            out.push(ident(&item));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// Every file of `src/` above `account`, with its path relative to `src/` ('/'-separated).
fn files_above_account() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = rust_files(&src);
    let mut out = Vec::new();
    for p in all {
        let rel: Vec<String> = p.strip_prefix(&src).unwrap().components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let module = rel[0].trim_end_matches(".rs");
        // a unit-test file beside a mod.rs (`tests.rs`, `random_tests.rs`) is test code throughout
        let name = rel.last().unwrap();
        if AT_OR_BELOW_ACCOUNT.contains(&module) || name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        out.push((rel.join("/"), std::fs::read_to_string(&p).unwrap()));
    }
    out
}

#[test]
fn no_engine_call_above_the_accountant() {
    let above = files_above_account();
    assert!(above.len() > 50, "only {} files above account: is the scan working?", above.len());
    let mut violations = Vec::new();
    let mut still_allowed = Vec::new();
    for (rel, text) in &above {
        let engines: Vec<String> = crate_modules(&code(text)).into_iter().filter(|m| ENGINES.contains(&m.as_str())).collect();
        if engines.is_empty() {
            continue;
        }
        if ALLOWED.iter().any(|(f, _)| f == rel) {
            still_allowed.push(rel.clone());
        } else {
            violations.push(format!("{rel}: names crate::{} (ask the accountant: account::Accountant / Profile / analysis)", engines[0]));
        }
    }
    assert!(violations.is_empty(), "engine calls above account:\n{}", violations.join("\n"));
    for (f, why) in ALLOWED {
        assert!(still_allowed.iter().any(|s| s == f), "{f} no longer names an engine: remove it from ALLOWED ({why})");
    }
}

/// The closed set: the public functions of `account::certified` that return a `Certified` (or a result
/// holding one) are exactly the combinators `restated`, `map`, `max_of` and `upper_end_as_bound`; its constructor stays private
/// to `account`, and no `derived` remains anywhere.
#[test]
fn certified_values_come_from_a_closed_set() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("src/account/certified.rs")).unwrap();
    let body = code(&text);
    let mut makers: Vec<String> = body
        .lines()
        .filter(|l| l.trim_start().starts_with("pub fn ") && l.contains("->") && l.split("->").nth(1).unwrap().contains("Certified"))
        .map(|l| ident(l.trim_start().trim_start_matches("pub fn ")))
        .collect();
    makers.sort();
    assert_eq!(makers, ["map", "max_of", "restated", "upper_end_as_bound"]);
    assert!(body.contains("pub(in crate::account) fn new("), "Certified::new must stay private to account");
    let all = rust_files(&root.join("src"));
    for p in all {
        let c = code(&std::fs::read_to_string(&p).unwrap());
        assert!(!c.contains(".derived(") && !c.contains("fn derived("), "{}: Certified::derived is gone", p.display());
    }
}

/// The scan itself: it sees engine paths (plain and in a use group), and ignores comments and tests.
#[test]
fn the_scan_sees_an_engine_path() {
    let text = "use crate::{account::Profile, pld::compose::{a, b}};\n// crate::fourier in a comment\nfn f() { crate::fourier::x(); }\n\
                #[cfg(test)]\nmod tests { use crate::pld; }\n";
    assert_eq!(crate_modules(&code(text)), ["account", "pld", "fourier"]);
}
