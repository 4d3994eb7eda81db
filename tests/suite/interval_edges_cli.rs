//! Inputs that once reached an interval invariant check and ended in an internal error (exit 3): each is
//! now answered or refused with one `error:` line and exit 2 (issue 34: `Interval`'s `lo ≤ hi`, checked in
//! release builds, must not be reachable from user input).

use crate::common::{refused, run};

/// The note of a 0-digit answer (one rule for every query, #57): exit 0, `digits` 0, the note saying so.
fn zero_digit_note(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    let field = |k: &str| out.lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string())).unwrap_or_default();
    assert_eq!(field("digits "), "0", "{args:?}: {out}");
    let note = field("note ");
    assert!(note.starts_with("0 digits certified") && !note.contains("internal"), "{args:?}: {note}");
    note
}

/// A discrete Laplace of scale 1e-300 (ε = 1e300 per count): e^ε overflows to [max, +∞] and met a tail
/// mass [0, …]; MPFR's 0·∞ = NaN made the interval [0, NaN]. Now 0·∞ = 0 and the lattice bracket is
/// honestly too wide: a 0-digit bracket whose upper end is the pure-DP bound ε ≤ μ/b = 1e300 (#57: it was
/// refused although that bound is certified).
#[test]
fn tiny_laplace_scale_is_the_pure_dp_bound_not_a_panic() {
    let note = zero_digit_note(&["epsilon", "--mech", "dlap:scale=1e-300,n=1", "--delta", "1e-10"]);
    assert!(!note.contains("zcdp"), "{note}");
    let (_, out, _) = run(&["epsilon", "--mech", "dlap:scale=1e-300,n=1", "--delta", "1e-10", "--format", "json"]);
    assert!(out.contains("\"epsilon_hi\": \"1.000000000000000000000000000000000000001e300\"") && out.contains("pure-DP bound"), "{out}");
}

/// The same law with 1000 counts: P[X ≤ −1] underflows MPFR's range and the binomial recurrence divided
/// by an interval containing 0. Now that lattice declines with the reason.
#[test]
fn underflowing_laplace_tail_is_declined() {
    let err = refused(&["delta", "--mech", "dlap:scale=1e-300,n=1000", "--epsilon", "1"], &[]);
    assert!(err.contains("underflows"), "{err}");
}

/// δ(1) of the single count is still answered: with ε₀ = 1e300 the loss is ±ε₀ and
/// δ(1) = (1 − e^{1−ε₀})/(1 + e^{−ε₀}), within e^{−1e300} of 1; the bracket must hold it.
#[test]
fn tiny_laplace_scale_delta_is_answered() {
    let (code, out, err) = run(&["delta", "--mech", "dlap:scale=1e-300,n=1", "--epsilon", "1", "--format", "csv"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    let h = rows.headers().unwrap().clone();
    let r = rows.records().next().unwrap().unwrap();
    let get = |k: &str| r.get(h.iter().position(|x| x == k).unwrap_or_else(|| panic!("no {k} in {h:?}"))).unwrap().to_string();
    let (lo, hi): (f64, f64) = (get("delta_lo").parse().unwrap(), get("delta_hi").parse().unwrap());
    assert!(lo <= 1.0 && (1.0 - 1e-15..=1.0).contains(&hi), "[{lo}, {hi}]");
}

/// A --grid far coarser than the loss slope: the per-point multiplicity 1e300/slope overflowed u64 (a
/// panic), then made the rounding-error bound negative and the interval reversed. The multiplicity is now
/// at most the law's window; the bracket is certified, printed with 0 digits and a note.
#[test]
fn absurdly_coarse_grid_is_a_zero_digit_bracket_not_a_panic() {
    let note = zero_digit_note(&["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-11", "--grid", "1e300"]);
    assert!(note.contains("a finer --grid"), "{note}");
}

/// A subsampled Gaussian of a tiny noise multiplier (σ = 1e-9: the subsampled terms e^{μx − η} underflow
/// MPFR's exponent range): the planning sum allocated 2.8e10 doubles (an abort), the decay bound took the
/// logarithm of a slope enclosure holding 0 (an internal error). It is now refused with one line.
///
/// At σ = 1e-3 the pld grid's discretisation walked 4 million cells per law (24 GB, an out-of-memory kill);
/// then, bounded, 60,000 cells of ~1 ms each (95 s) before its span (51 million grid points) was known; the
/// tilted engine's planning sums took 13 s (σ = 1e-3) and 39 s (σ = 1e-4). Each is now refused in well
/// under a second, among the engines' reasons.
#[test]
fn a_tiny_subsampled_noise_multiplier_is_refused_not_an_abort() {
    refused(
        &["epsilon", "--mech", "gauss:sigma=1e-9,q=1/3,n=3", "--delta", "1e-5"],
        &["no engine answers", "tilted-fourier", "pld-grid: the grid step 1/100 is too fine"],
    );
    for sigma in ["1e-3", "1e-4"] {
        let mech = format!("gauss:sigma={sigma},q=1/3,n=3");
        refused(
            &["epsilon", "--mech", &mech, "--delta", "1e-5"],
            &["no engine answers", "pld-grid: the grid step 1/100 is too fine", "more than 8000000 grid points"],
        );
    }
}
