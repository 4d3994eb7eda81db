//! Edges of the pld grid found on prv_accountant's README setting (subsampled Gaussian, σ 0.8, q 0.005,
//! 1,000 steps): a step at which the dominated law's Fourier transform leaves MPFR's range is a refusal with
//! one line and exit 2 (it was an internal error, exit 3: "interval with lo > hi or a NaN end"), and the
//! hint names the option that applies.

mod common;
use common::refused;

#[test]
fn a_transform_out_of_range_is_declined_not_an_internal_error() {
    let args = ["epsilon", "--mech", "gauss:sigma=0.8,q=5/1000,n=1000", "--delta", "1e-6", "--grid", "1/200"];
    let err = refused(&args, &["no digit of epsilon is certified", "a finer --grid than 1/200"]);
    assert!(!err.contains("internal") && !err.contains("--grid-budget"), "{err}");
}
