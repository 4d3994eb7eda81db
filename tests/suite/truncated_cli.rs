//! Truncated Poisson sampling of the Gaussian mechanism (`--mech truncgauss:`, dp_accounting's
//! `TruncatedSubsampledGaussianDpEvent`): one release against scripts/reference/truncated.{py,txt} (mpmath:
//! the binomial tails by the incomplete beta function, each branch's hockey-stick integral), many releases
//! beside dp_accounting's estimate, the trust and the refusals.

use crate::common::{csv_row, get, holds_rounded, inside_the_grids_bracket, refused};

#[test]
fn one_release_holds_the_mixture_of_the_branches_integrals() {
    let rows: Vec<Vec<&str>> = include_str!("../../scripts/reference/truncated.txt")
        .lines()
        .filter(|l| l.starts_with("delta1 "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 8);
    for r in rows.iter().filter(|r| r[2] == "remove") {
        // δ(ε) of the mechanism: the larger of the two directions' (the reference prints both)
        let add = rows.iter().find(|a| a[1] == r[1] && a[2] == "add" && a[3] == r[3]).unwrap();
        let worst = if r[4].parse::<f64>().unwrap() >= add[4].parse::<f64>().unwrap() { r[4] } else { add[4] };
        let mech = format!("{},n=1", r[1]);
        let row = csv_row(&["delta", "--mech", &mech, "--epsilon", r[3]]);
        holds_rounded(&row, "delta", worst);
        assert_eq!(get(&row, "trust"), "certified-bound", "{row:?}");
        assert!(get(&row, "digits").parse::<u32>().unwrap() >= 30, "{row:?}");
    }
}

#[test]
fn bad_truncations_are_refused() {
    let m = |s: &'static str| ["epsilon", "--delta", "1e-5", "--mech", s];
    refused(&m("truncgauss:sigma=1,prob=1/20,batch=0,records=1000,n=3"), &["batch", "whole number"]);
    refused(&m("truncgauss:sigma=1,prob=3/2,batch=60,records=1000,n=3"), &["(0, 1)"]);
    refused(&m("truncgauss:sigma=1,prob=1/20,records=1000,n=3"), &["missing batch"]);
    refused(&m("truncgauss:prob=1/20,batch=60,records=1000,n=3"), &["missing sigma"]);
}

/// MNIST-size truncated Poisson sampling (2,340 steps, 256/60000, batches cut at 300, σ = 1.1): the tilted
/// Fourier inversion of the branches' mixed moment generating function (`Mgf::Branches`) to 20 digits or more,
/// a bound (the pair is), inside the pld grid's bracket at h = 1/2000 (an independent method) and at most
/// dp_accounting's pessimistic estimate at discretisation 1e-5 (scripts/reference/truncated_peers.txt),
/// within 1e-6 of it.
#[test]
fn many_truncated_steps_take_the_inversion_between_the_grid_and_dp_accounting() {
    let text = include_str!("../../scripts/reference/truncated_peers.txt");
    let f: Vec<&str> = text.lines().find(|l| !l.starts_with('#')).unwrap().split_whitespace().collect();
    let mech = format!("truncgauss:sigma={},prob={},batch={},records={},n={}", f[4], f[2], f[3], f[1], f[0]);
    let row = inside_the_grids_bracket(&["epsilon", "--mech", &mech, "--delta", f[5]], "epsilon", "1/2000");
    assert_eq!((get(&row, "method"), get(&row, "trust")), ("tilted-fourier", "certified-bound"), "{row:?}");
    assert!(get(&row, "digits").parse::<u32>().unwrap() >= 20, "{row:?}");
    let (lo, hi): (f64, f64) = (get(&row, "epsilon_lo").parse().unwrap(), get(&row, "epsilon_hi").parse().unwrap());
    let peer: f64 = f[6].parse().unwrap();
    assert!(hi <= peer && peer - lo < 1e-6, "[{lo}, {hi}] against dp_accounting's {peer}");
}
