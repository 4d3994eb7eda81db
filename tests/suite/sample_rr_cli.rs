//! `tightdp sample --rr-epsilon E | --rr-keep P --k K --value V`: exact k-ary randomized response reports
//! (the sampler's χ² tests are in `noise::sampler`); here the command line: reports in 0 … k − 1, the
//! true value's frequency, and bad input refused with one line, exit 2.

use crate::common::{cli, refused};

fn draws(args: &[&str]) -> Vec<u64> {
    let out = cli(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.starts_with('#')).map(|l| l.parse().unwrap()).collect()
}

#[test]
fn reports_are_values_with_the_right_frequency() {
    // keep probability 1: always the true value
    let xs = draws(&["sample", "--rr-keep", "1", "--k", "5", "--value", "3", "--n", "50", "--seed", "1"]);
    assert_eq!(xs.len(), 50);
    assert!(xs.iter().all(|&x| x == 3), "{xs:?}");
    // ε = 1, k = 4: the true value with probability e/(e + 3) = 0.47541…, within 4.5 standard deviations
    let n = 4000;
    let xs = draws(&["sample", "--rr-epsilon", "1", "--k", "4", "--value", "2", "--n", "4000", "--seed", "7"]);
    assert!(xs.iter().all(|&x| x < 4));
    let p = 1f64.exp() / (1f64.exp() + 3.0);
    let f = xs.iter().filter(|&&x| x == 2).count() as f64 / n as f64;
    assert!((f - p).abs() < 4.5 * (p * (1.0 - p) / n as f64).sqrt(), "frequency {f} vs {p}");
}

#[test]
fn bad_randomized_response_input_is_refused() {
    refused(&["sample", "--rr-keep", "0.1", "--k", "4"], &["keep probability must be in [1/k, 1]", "1/4"]);
    refused(&["sample", "--rr-epsilon", "-1"], &["epsilon must be at least 0"]);
    refused(&["sample", "--rr-epsilon", "1", "--k", "4", "--value", "4"], &["--value must be one of the k = 4 values", "got 4"]);
    refused(&["sample", "--rr-epsilon", "1", "--k", "1"], &["k of at least 2"]);
    refused(&["sample", "--sigma2", "2", "--k", "3"], &["--k and --value belong to randomized response"]);
    refused(&["sample", "--sigma2", "2", "--rr-epsilon", "1"], &["give one sampler"]);
    refused(&["sample", "--rr-keep", "abc"], &["rr-keep"]);
}
