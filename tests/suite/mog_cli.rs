//! The mixture-of-Gaussians mechanism (`--mech mog:`, dp_accounting's `MixtureOfGaussiansDpEvent`): certified
//! brackets against scripts/reference/mog.{py,txt} (mpmath: quadrature of the two densities, one release
//! and the double integral of two) and mog_mgf.{py,txt} (Rényi divergences by the multinomial expansion),
//! many releases by the tilted engine inside the pld grid's independent bracket, and the refusals.

use crate::common::{csv_row, float, get, holds, holds_rounded, refused};

/// The reference rows of one kind: (spec, direction, argument, value).
fn reference(kind: &str) -> Vec<(String, String, String, String)> {
    include_str!("../../scripts/reference/mog.txt")
        .lines()
        .filter(|l| l.starts_with(&format!("{kind} ")))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[1].to_string(), f[2].to_string(), f[3].to_string(), f[4].to_string())
        })
        .collect()
}

#[test]
fn one_release_holds_the_quadrature_of_the_densities() {
    let rows = reference("delta1");
    assert_eq!(rows.len(), 8);
    for (spec, _, eps, _) in rows.iter().filter(|r| r.1 == "remove") {
        // δ(ε) of the mechanism is the larger of the two directions' (here the remove pair's; the add pair's
        // is smaller in every row)
        let worst = rows.iter().filter(|r| r.0 == *spec && r.2 == *eps).map(|r| r.3.parse::<f64>().unwrap()).fold(0.0, f64::max);
        let value = &rows.iter().find(|r| r.0 == *spec && r.2 == *eps && r.3.parse::<f64>().unwrap() == worst).unwrap().3;
        let mech = format!("{spec},n=1");
        let row = csv_row(&["delta", "--mech", &mech, "--epsilon", eps]);
        holds_rounded(&row, "delta", value);
        assert!(get(&row, "digits").parse::<u32>().unwrap() >= 30, "{mech} at {eps}: {row:?}");
    }
}

#[test]
fn two_releases_hold_the_double_integral() {
    let rows = reference("delta2");
    let (spec, _, eps, value) = rows.iter().find(|r| r.1 == "remove").unwrap();
    let mech = format!("{spec},n=2");
    // the pld grid at a fixed step: 5 digits (the reference's add direction is 0: its losses stay below 1/2)
    let row = csv_row(&["delta", "--mech", &mech, "--epsilon", eps, "--grid", "1/500"]);
    holds(&row, "delta", value);
    assert!(get(&row, "digits").parse::<u32>().unwrap() >= 4, "{row:?}");
}

#[test]
fn many_releases_take_the_tilted_engine_inside_the_grids_bracket() {
    // the moment generating function by certified quadrature (noise/mgf.rs): 20 digits at 100 releases, where
    // the pld grid (an independent discretisation of the same law) gives 2 at a coarse step
    let mech = "mog:sigma=1,sens=1:2,probs=0.18:0.01,n=100";
    let t = csv_row(&["epsilon", "--mech", mech, "--delta", "1e-5"]);
    assert_eq!(get(&t, "method"), "tilted-fourier");
    assert!(get(&t, "digits").parse::<u32>().unwrap() >= 20, "{t:?}");
    let g = csv_row(&["epsilon", "--mech", mech, "--delta", "1e-5", "--grid", "1/50"]);
    assert!(
        float(get(&g, "epsilon_lo")) <= float(get(&t, "epsilon_lo")) && float(get(&t, "epsilon_hi")) <= float(get(&g, "epsilon_hi")),
        "{t:?} {g:?}"
    );
}

#[test]
fn renyi_divergences_hold_the_multinomial_expansion() {
    // one release at integer orders: the remove pair's D_a = ln E[r^a]/(a − 1) (the larger direction here)
    let specs = [("a", "mog:sigma=1,sens=1:2,probs=0.18:0.01,n=1"), ("b", "mog:sigma=3/2,sens=1/2:1,probs=1/4:1/4,n=1")];
    for line in include_str!("../../scripts/reference/mog_mgf.txt").lines().filter(|l| l.starts_with("renyi ")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let mech = specs.iter().find(|(k, _)| *k == f[1]).unwrap().1;
        let row = csv_row(&["renyi", "--mech", mech, "--alpha", f[2]]);
        holds_rounded(&row, "value", f[3]);
        assert!(get(&row, "digits").parse::<u32>().unwrap() >= 25, "{line}: {row:?}");
    }
}

#[test]
fn bad_mixtures_are_refused() {
    let m = |s: &'static str| ["epsilon", "--delta", "1e-5", "--mech", s];
    refused(&m("mog:sigma=1,sens=1:2,probs=0.5,n=3"), &["one probability per sensitivity"]);
    refused(&m("mog:sigma=1,sens=1:2,probs=0.7:0.7,n=3"), &["sum to 7/5, above 1"]);
    refused(&m("mog:sens=1:2,probs=0.1:0.1,n=3"), &["missing sigma"]);
    refused(&m("mog:sigma=1,sens=0:0,probs=0.1:0.1,n=3"), &["releases nothing"]);
    refused(&m("mog:sigma=1,sens=1:x,probs=0.1:0.1,n=3"), &["sens", "'x'"]);
    refused(&m("mog:sigma=1,sens=1:2,probs=0.1:0.1,q=1/2,n=3"), &["every probability times q"]);
    refused(&["epsilon", "--delta", "1e-5", "--neighbors", "replace", "--mech", "mog:sigma=1,sens=1:2,probs=0.1:0.1,n=3"], &["add/remove"]);
}
