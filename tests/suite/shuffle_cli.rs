//! `tightdp shuffle`: the certified lower bound for shuffled batches beside the Poisson accounting, its
//! verdict, and its refusals (the bound's mathematics is tested beside the code, `attack::shuffle`).

use crate::common::{csv_row, get, refused};

/// Under replace, the input of every other gradient −1 makes the shuffled epoch far less private than the
/// Poisson accounting of the same expected batch says (σ = 1, 234 steps, one epoch, δ = 1e-5: at least
/// 4.55 against at most 0.531); under add/remove (the random-allocation pair) the attack stays below it.
#[test]
fn replace_neighbours_expose_the_poisson_accounting_add_remove_does_not() {
    // (two digits of the Poisson accounting: under replace it is the pld grid's)
    let row = csv_row(&["shuffle", "--sigma", "1", "--steps", "234", "--delta", "1e-5", "--neighbors", "replace", "--digits", "2"]);
    let lower: f64 = get(&row, "shuffled_at_least").parse().unwrap();
    let poisson: f64 = get(&row, "poisson_hi").parse().unwrap();
    assert_eq!(get(&row, "trust"), "certified-lower-bound");
    assert!(lower > 4.5 && poisson < 0.54 && poisson > 0.52, "{row:?}");
    assert!(get(&row, "verdict").starts_with("shuffling is provably less private"), "{row:?}");
    let row = csv_row(&["shuffle", "--sigma", "1", "--steps", "234", "--delta", "1e-5"]);
    let lower: f64 = get(&row, "shuffled_at_least").parse().unwrap();
    let poisson: f64 = get(&row, "poisson_lo").parse().unwrap();
    assert!(lower > 0.28 && lower < poisson, "{row:?}");
    assert!(get(&row, "verdict").starts_with("this attack does not contradict"), "{row:?}");
    assert_eq!(get(&row, "poisson_method"), "tilted-fourier");
}

/// δ at ε: the bound lies below one, above the Poisson δ under replace.
#[test]
fn a_delta_lower_bound_is_given_at_epsilon() {
    let row = csv_row(&[
        "shuffle",
        "--sigma",
        "1",
        "--steps",
        "50",
        "--epochs",
        "3",
        "--epsilon",
        "1",
        "--neighbors",
        "replace",
        "--digits",
        "2",
    ]);
    let lower: f64 = get(&row, "shuffled_at_least").parse().unwrap();
    let poisson: f64 = get(&row, "poisson_hi").parse().unwrap();
    assert!(lower > poisson && lower < 1.0, "{row:?}");
    assert_eq!(get(&row, "measure"), "delta");
}

#[test]
fn bad_settings_are_refused() {
    refused(&["shuffle", "--sigma", "0", "--steps", "10", "--delta", "1e-5"], &["sigma must be positive"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "1", "--delta", "1e-5"], &["steps (batches per epoch)"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "10", "--epochs", "0", "--delta", "1e-5"], &["epochs must be between"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "1099511627776", "--delta", "1e-5"], &["steps times epochs is more than"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "10"], &["give --delta"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "10", "--delta", "2"], &["delta must be in (0, 1)"]);
    refused(&["shuffle", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--neighbors", "swap"], &["add-remove or replace"]);
}

/// A noise multiplier so small that no engine certifies the Poisson accounting beside the bound (σ = 1e-9,
/// three steps at q = 1/3): the bound is printed alone, the Poisson columns empty and the verdict saying
/// why (it was an error, and before that an internal one: the binomial tails at p's end 1 − 2^-256).
#[test]
fn the_bound_stands_alone_where_the_poisson_accounting_is_not_certified() {
    let row = csv_row(&["shuffle", "--sigma", "1e-9", "--steps", "3", "--delta", "1e-5"]);
    assert_eq!(get(&row, "trust"), "certified-lower-bound", "{row:?}");
    assert!(get(&row, "shuffled_at_least").parse::<f64>().unwrap() > 1.0, "{row:?}");
    for k in ["poisson_lo", "poisson_hi", "poisson_method", "poisson_digits"] {
        assert_eq!(get(&row, k), "", "{row:?}");
    }
    assert!(
        get(&row, "verdict").starts_with("no comparison: the Poisson accounting") && get(&row, "verdict").contains("too fine"),
        "{row:?}"
    );
}
