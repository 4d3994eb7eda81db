//! The exit status comes from the error's kind (issue 34; docs/design.md, "Exit status and errors"): bad
//! input, an engine's refusal that no other engine replaces and a resource limit exit 2 with one
//! `error: ` line and nothing on stdout; the accountant's refusals arrive typed.

use assert_cmd::Command;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("tightdp").unwrap().args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Exit 2, one `error: ` line containing `want`, not an internal error, nothing on stdout.
fn refused(args: &[&str], want: &str) {
    let (code, out, err) = run(args);
    assert_eq!(code, Some(2), "{args:?}: {out}{err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err} should contain {want:?}");
    assert!(!err.contains("internal error"), "{args:?}: {err}");
}

#[test]
fn bad_input_exits_2() {
    refused(&["epsilon", "--sigma2", "5", "--n", "10", "--delta", "0"], "delta must be in (0, 1)");
    refused(&["delta", "--sigma2", "5", "--n", "10", "--epsilon", "-1"], "epsilon must be non-negative");
    refused(&["tradeoff", "--sigma2", "5", "--n", "10", "--points", "3", "--alpha", "0.5"], "give one of them");
    refused(&["tradeoff", "--sigma2", "5", "--n", "10", "--alpha", "2"], "alpha must be in [0, 1]");
    refused(&["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-10", "--digits", "0"], "--digits must be between 1 and 1000");
}

/// The one engine asked for declines (discrete Gaussian noise only) and nothing replaces it: exit 2.
#[test]
fn a_final_refusal_exits_2() {
    refused(&["epsilon", "--mech", "dlap:scale=4,n=3", "--delta", "1e-10", "--method", "smoothed"], "discrete Gaussian noise only");
}

/// The one engine asked for would take far too long: refused up front (a resource limit), exit 2; under
/// `auto` another engine answers the same question.
#[test]
fn a_resource_limit_exits_2_and_auto_answers() {
    let args = ["epsilon", "--sigma2", "37.7", "--n", "1000000", "--delta", "1e-10"];
    let lattice: Vec<&str> = args.iter().copied().chain(["--method", "lattice"]).collect();
    refused(&lattice, "would take about");
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("lattice-fourier"), "{out}");
}
