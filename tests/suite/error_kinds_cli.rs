//! Error kinds end to end (issue 34, typed errors): the command line maps an error's kind to its exit
//! status with no reading of the message — an internal error (a broken invariant, here injected into
//! the run-directory layer) exits 3 and asks to be reported, a file that cannot be written and a bad
//! request exit 2 — and the library reports each failure under its kind (`Io` for the file, `Input` for
//! the request), with the message the command line prints.

use crate::common::bin;
use std::path::Path;
use tightdp::ErrorKind;

fn synth(out: &Path) -> assert_cmd::Command {
    let mut c = bin();
    c.args(["synth", "--out", out.to_str().unwrap(), "--states", "1", "--counties", "1", "--tracts", "2", "--blocks", "2"])
        .args(["--persons", "50"]);
    c
}

/// The command failed with `code`; its stderr is one `error: …` line, returned without the prefix.
fn failed(c: &mut assert_cmd::Command, code: i32) -> String {
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(code), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err.strip_prefix("error: ").unwrap_or_else(|| panic!("{err}")).trim_end().to_string()
}

#[test]
fn an_internal_error_in_an_application_layer_exits_3_and_asks_to_be_reported() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let line = failed(synth(&out).env("TIGHTDP_INJECT_FAULT", "internal-before-commit"), 3);
    assert_eq!(line, "internal error, please report it: injected invariant failure before commit (TIGHTDP_INJECT_FAULT)");
    // nothing half-written: no --out, no staging directory
    assert!(!out.exists());
    assert!(std::fs::read_dir(t.path()).unwrap().all(|e| e.unwrap().file_name().to_string_lossy().ends_with(".lock")));
    // the same run without the fault succeeds
    synth(&out).assert().success();
    assert!(out.join(".tightdp-complete").is_file());
}

#[test]
fn a_failed_write_is_an_io_error_and_exits_2() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    // the injected write failure after staging
    let line = failed(synth(&out).env("TIGHTDP_INJECT_FAULT", "before-commit"), 2);
    assert_eq!(line, "injected fault before commit (TIGHTDP_INJECT_FAULT)");
    assert!(!out.exists());
    // an --out whose parent is a file: its lock (and so the run) cannot be created
    let file = t.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("run");
    let line = failed(&mut synth(&under_file), 2);
    let e = tightdp::RunDir::begin(&under_file, "synth", false).err().expect("an --out under a file is refused");
    assert_eq!(e.kind(), ErrorKind::Io);
    assert_eq!(line, e.to_string());
    assert!(line.starts_with(&format!("cannot create '{}'", file.display())), "{line}");
    // an atomic write into a missing directory's file: Io, the path named
    let e = tightdp::write_atomic(&under_file.join("x.csv"), b"a\n").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("a-file"), "{e}");
}

#[test]
fn a_bad_request_is_an_input_error_and_exits_2() {
    let line = failed(bin().args(["epsilon", "--sigma2", "-3", "--delta", "1e-6"]), 2);
    assert!(line.contains("sigma2"), "{line}");
    // a malformed allocation file: Input, under the file's name, the same line as the CLI prints
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("bad.toml");
    std::fs::write(&f, "rho = \"1/2\"\n[[level]]\nname = \"US\"\nshare = \"2\"\nqueries = 1\n").unwrap();
    let e = tightdp::Allocation::from_path(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    let line = failed(bin().args(["describe", "--allocation", f.to_str().unwrap()]), 2);
    assert_eq!(line, e.to_string());
    assert!(line.starts_with(&format!("allocation file '{}': ", f.display())), "{line}");
    // a malformed CSV row is Input, a CSV file that cannot be opened Io
    let csv = t.path().join("t.csv");
    std::fs::write(&csv, "a,b\n1\n").unwrap();
    let e = tightdp::visit_csv(&csv, &[0], &mut |_, _| Ok(())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input, "{e}");
    let e = tightdp::visit_csv(&t.path().join("missing.csv"), &[0], &mut |_, _| Ok(())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
}
