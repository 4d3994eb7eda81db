//! Randomized response given by its keep probability (`rr:keep=P[,k=K]`): brackets against the exact sums of
//! scripts/reference/randomized_response_keep.{py,txt} (mpmath, from the response probabilities), and the
//! refusals.

use crate::common::{csv_row, get, holds, refused};

#[test]
fn keep_probability_holds_the_exact_sums() {
    keep_sums("1/100");
}

#[test]
#[ignore = "heavy: the compositions on the finer grid h = 1/500 (5 s); the default tier's twin uses h = 1/100"]
fn keep_probability_holds_the_exact_sums_on_a_fine_grid() {
    keep_sums("1/500");
}

fn keep_sums(grid: &str) {
    // one report, keep 3/4 of 3 values: three atoms, every loss enclosed: 20 digits
    let row = csv_row(&["delta", "--mech", "rr:keep=3/4,k=3", "--epsilon", "1", "--neighbors", "replace"]);
    holds(&row, "delta", "0.4102147714426193455799640660809171877803");
    assert!(get(&row, "digits").parse::<u32>().unwrap() >= 20, "{row:?}");
    // dp_accounting's RandomizedResponseDpEvent(1/2, 4) ten times (keep 5/8), and binary keep 9/10 twenty times
    for (m, e, r) in [
        ("rr:keep=5/8,k=4,n=10", "1", "0.9398144317700942047645122257497916070447"),
        ("rr:keep=9/10,n=20", "3", "0.9999786112495579414062984603423229512207"),
    ] {
        holds(&csv_row(&["delta", "--mech", m, "--epsilon", e, "--neighbors", "replace", "--grid", grid]), "delta", r);
    }
}

#[test]
fn bad_keep_probabilities_are_refused() {
    let r = |m: &'static str, needles: &[&str]| {
        refused(&["delta", "--mech", m, "--epsilon", "1", "--neighbors", "replace"], needles);
    };
    r("rr:keep=1/3,k=3", &["keep probability in (1/k, 1) = (1/3, 1)", "got 1/3"]);
    r("rr:keep=1,k=3", &["keep probability in (1/k, 1)"]);
    r("rr:keep=0", &["keep"]);
    r("rr:keep=3/4,epsilon=1", &["say the same thing"]);
    r("rr:k=3", &["missing epsilon (or keep"]);
    refused(&["delta", "--mech", "rr:keep=3/4", "--epsilon", "1"], &["give --neighbors replace"]);
}
