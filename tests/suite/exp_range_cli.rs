//! ε beyond MPFR's exponent range (issue #33): e^ε overflows past 2^emax (emax = 2^30 − 1), so no engine
//! certifies an ε above emax·ln 2 ≈ 7.44e8. 30,000,000 × N_Z(0, 0.01) at δ = 1e-10 has ε ≈ 1.5e9 (each
//! query's loss at its likeliest value 0 is 1/(2σ²) = 50, and P[X ≠ 0] ≈ 2e^{-50}, so the composed loss
//! is 1.5e9 but for a mass far below δ). Before, the refusal blamed "the working precision" and offered
//! an MPFR lattice run that meets the same range; it now names the range and the bound that applies.

use crate::common::cli;
use assert_cmd::Command;

#[test]
fn an_epsilon_past_the_exponent_range_is_a_zero_digit_bracket_with_the_reason() {
    let args = ["epsilon", "--sigma2", "0.01", "--n", "30000000", "--delta", "1e-10"];
    // one rule for every query (#57): the certified enclosure with 0 digits, its note naming the range
    // and the bound that applies
    let out = cli(args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string())).unwrap_or_default();
    assert_eq!(field("digits "), "0", "{text}");
    let lo: f64 = field("epsilon_lo ").parse().unwrap();
    let hi: f64 = field("epsilon_hi ").parse().unwrap();
    assert!(lo <= 7.443e8 && hi >= 1.5e9, "{text}");
    let note = field("note ");
    assert!(note.starts_with("0 digits certified") && note.contains("exponent range") && note.contains("7.442611e8"), "{text}");
    assert!(note.contains("--method zcdp-cks") && !note.contains("--method lattice"), "{text}");
    // the bound it points to answers, above the ceiling and above the loss's likeliest value 1.5e9
    let mut bound = args.to_vec();
    bound.extend(["--method", "zcdp-cks", "--format", "csv"]);
    let out = cli(&bound);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8_lossy(&out.stdout);
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split("\",").nth(1).unwrap().split(',').collect();
    let hi: f64 = row[6].parse().unwrap();
    assert!((1.5e9..1.6e9).contains(&hi), "{csv}");
}

/// δ below MPFR's exponent range: three queries of N_Z(0, 10⁸) at ε = 10 have δ ≈ e^(−5·10⁹), below the
/// smallest positive MPFR number 2^(emin − 1) ≈ 2.4e-323228497. The answer is the certified upper bound with
/// 0 digits, and the note blames the exponent range (it blamed "the working precision", which more
/// precision would not fix).
#[test]
fn a_delta_below_the_exponent_range_is_a_bound_and_says_why() {
    let out = cli(["delta", "--sigma2", "100000000", "--n", "3", "--epsilon", "10"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string())).unwrap_or_default();
    assert_eq!(field("delta_lo "), "0", "{text}");
    assert!(field("delta_hi ").ends_with("e-323228497"), "{text}");
    assert_eq!(field("digits "), "0", "{text}");
    let note = field("note ");
    assert!(note.contains("below MPFR's exponent range") && note.contains("2^-1073741824"), "{text}");
    assert!(!note.contains("working precision"), "{text}");
}

/// An estimate that saturates is a lower bound: "more than 1.8e19 entries", not "about more than".
#[test]
fn a_saturated_size_estimate_is_worded_as_a_bound() {
    let out = cli(["delta", "--sigma2", "1e300", "--n", "1", "--epsilon", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("would need more than 1.8e19 entries") && !err.contains("about more"), "{err}");
    assert!(err.contains("--method zcdp-cks gives a certified upper bound") && err.trim_end().lines().count() == 1, "{err}");
}

/// A composition no certified engine reaches: one N_Z(0, 10¹⁰) with 3 × DLap(1) (lattice weights 1 and
/// 2·10¹⁰: the lattice has 6·10¹⁰ entries, the inversion's walk finds over 100,000 live nodes a tail, the
/// smoothed inversion needs more than 10⁶ non-negligible nodes). δ(ε) and f(α) are refused at once with
/// the reason on one line; the smoothed refusal's advice to use the lattice (already ruled out) is not
/// repeated. (The far-apart mixture this test used before, 100,000 × N_Z(0, 37.7) + 1,000 × DLap(4), is
/// now answered: tests/mixed_far_steps_cli.rs.)
#[test]
fn an_unreachable_mixture_is_refused_up_front_with_the_reason() {
    let mix = ["--mech", "dgauss:sigma2=10000000000,n=1", "--mech", "dlap:scale=1,n=3"];
    for q in [&["tradeoff", "--alpha", "1e-9"][..], &["delta", "--epsilon", "1000"][..]] {
        let out = Command::cargo_bin("tightdp").unwrap().args(q).args(mix).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{q:?}: {err}");
        assert!(out.stdout.is_empty(), "{q:?}");
        assert!(err.trim_end().lines().count() == 1, "{q:?}: {err}");
        assert!(err.starts_with("error: no "), "{q:?}: {err}");
        assert!(!err.contains("use the lattice method"), "{q:?}: {err}");
        assert_eq!(err.contains("--method zcdp-cks"), q[0] != "tradeoff", "{q:?}: {err}");
    }
}
