//! `--arith f64|dd|mpfr` chooses the lattice arithmetic explicitly (issue 34); `--prec 53` and `--prec 106`
//! without `--arith` keep their former meaning (the f64 and double-double engines), any other `--prec`
//! is MPFR at that precision, and `--arith mpfr --prec 53` is now reachable: MPFR at 53 bits.

use crate::common::run;
use rug::Float;

/// 10 × N_Z(0, 5) at δ = 1e-80, with extra arguments; the table output.
fn eps(extra: &[&str]) -> String {
    let mut args = vec!["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-80", "--method", "lattice"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// The value of a `key   value` line of the table output.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key).filter(|r| r.starts_with(' ')).map(|r| r.trim()))
        .unwrap_or_else(|| panic!("no {key} in {out}"))
}

fn num(s: &str) -> Float {
    Float::with_val(256, Float::parse(s).unwrap())
}

/// ε(1e-80) of 10 × N_Z(0, 5): scripts/reference/profile_reference_values.csv case 1 (python-flint,
/// independent of the code under test), |error| ≤ 4.7e-44.
const REFERENCE: &str = "27.6405177911326121211099598316907432434830333";

#[test]
fn legacy_precisions_are_aliases_of_the_fixed_engines() {
    let f64_legacy = eps(&["--prec", "53"]);
    assert_eq!(f64_legacy, eps(&["--arith", "f64"]));
    assert_eq!(field(&f64_legacy, "method"), "lattice-f64");
    let dd_legacy = eps(&["--prec", "106"]);
    assert_eq!(dd_legacy, eps(&["--arith", "dd"]));
    assert_eq!(field(&dd_legacy, "method"), "lattice-dd");
    // any other precision, alone or with --arith mpfr, is MPFR at that many bits
    let mp = eps(&["--prec", "128"]);
    assert_eq!(mp, eps(&["--arith", "mpfr", "--prec", "128"]));
    assert_eq!(field(&mp, "method"), "lattice");
    assert!(field(&mp, "detail").starts_with("MPFR 128 bits"), "{mp}");
}

#[test]
fn every_arithmetic_brackets_the_reference() {
    let want = num(REFERENCE);
    let slack = num("4.7e-44");
    for (extra, method, detail) in [
        (&["--arith", "f64"][..], "lattice-f64", "f64 convolution"),
        (&["--arith", "dd"][..], "lattice-dd", "double-double convolution"),
        (&["--arith", "mpfr", "--prec", "53"][..], "lattice", "MPFR 53 bits"),
        (&["--arith", "mpfr"][..], "lattice", "MPFR 256 bits"),
    ] {
        let out = eps(extra);
        assert_eq!(field(&out, "method"), method, "{extra:?}: {out}");
        assert!(field(&out, "detail").starts_with(detail), "{extra:?}: {out}");
        let (lo, hi) = (num(field(&out, "epsilon_lo")), num(field(&out, "epsilon_hi")));
        assert!(Float::with_val(256, &lo - &slack) <= want && want <= Float::with_val(256, &hi + &slack), "{extra:?}: {out}");
    }
}

#[test]
fn contradictions_are_refused() {
    for (args, want) in [
        (&["--arith", "dd", "--prec", "106"][..], "--arith dd has a fixed one"),
        (&["--arith", "f64", "--prec", "200"][..], "--arith f64 has a fixed one"),
        (&["--arith", "mpfr", "--prec", "8"][..], "--prec must be between"),
        (&["--arith", "quad"][..], "invalid value 'quad' for '--arith"),
    ] {
        let mut all = vec!["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-10"];
        all.extend_from_slice(args);
        let (code, out, err) = run(&all);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(out.is_empty() && err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn help_documents_arith() {
    let (code, out, _) = run(&["epsilon", "--help"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("--arith <ARITH>") && out.contains("double-double") && out.contains("--prec 106"), "{out}");
}
