//! Random allocation (`--mech alloc:sigma=S,steps=T[,k=K][,mu=M]`, `n=` epochs; `noise/allocation.rs`): one
//! step of t per record, the certified bracket of the exact value from its dominating and dominated pairs
//! (`account/engines/allocation.rs`); k of t steps, and the trade-off function, the certified upper bound
//! through Rényi divergences, against scripts/reference/allocation.{py,txt} (mpmath: the exact second
//! moment at MNIST size) and the `random-allocation` package; beside the shuffled-batches lower bound of the
//! same pair, the calibration, and the refusals.

use crate::common::{csv_row, float, get, holds_rounded, refused};

/// One step per epoch is the Gaussian mechanism: ten epochs at σ = 2 are μ-GDP with μ = √10/2, whose
/// ε(1e-5) and δ(1) mpmath gives from the closed form δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) [DRS22,
/// Cor. 2.13] (40 digits, findroot for ε; the Rényi conversion gave 8.0794 and 0.5842). The bracket is of
/// the exact value: trust certified.
#[test]
fn one_step_is_the_gaussian_mechanism() {
    let row = csv_row(&["epsilon", "--mech", "alloc:sigma=2,steps=1,n=10", "--delta", "1e-5"]);
    holds_rounded(&row, "epsilon", "7.511275900744782244112191997444187220423");
    assert_eq!((get(&row, "trust"), get(&row, "method")), ("certified", "allocation-pairs"));
    let row = csv_row(&["delta", "--mech", "alloc:sigma=2,steps=1,n=10", "--epsilon", "1"]);
    holds_rounded(&row, "delta", "0.352518058894886901849009137839797196361");
}

/// At MNIST size the worse direction at α = 2 is the remove direction's exact ln E[M²] = ln((e^{μ²} + t − 1)/t).
#[test]
fn order_two_is_the_exact_second_moment() {
    let row = csv_row(&["renyi", "--mech", "alloc:sigma=1.1,steps=234", "--alpha", "2"]);
    let want = float("1.00549223672561670388362644057").ln();
    let got = float(get(&row, "value_lo"));
    assert!(rug::Float::with_val(256, &got - &want).abs() < 1e-28, "{got} against {want}");
    assert_eq!(get(&row, "trust"), "certified-bound");
}

/// The truth lies between the shuffled batches' certified lower bound (one attack on the same pair) and
/// this upper bound; sixty MNIST epochs: about 0.87 and 2.55.
#[test]
fn the_bound_lies_above_the_attack() {
    for epochs in ["1", "60"] {
        let mech = format!("alloc:sigma=1.1,steps=234,n={epochs}");
        let up = csv_row(&["epsilon", "--mech", &mech, "--delta", "1e-5"]);
        let low =
            csv_row(&["shuffle", "--sigma", "1.1", "--steps", "234", "--epochs", epochs, "--delta", "1e-5", "--neighbors", "add-remove"]);
        let (u, l) = (float(get(&up, "epsilon_lo")), float(get(&low, "shuffled_at_least")));
        assert!(l < u, "{epochs} epochs: lower {l} above upper {u}");
    }
}

/// The trade-off function is bounded from below through the same δ(ε) bounds (f(α) ≥ 1 − δ(ε) − e^ε α):
/// one step per epoch, the bound lies below the Gaussian's exact trade-off (mpmath: 10 epochs at σ = 2 are
/// √10/2-GDP, f(0.01) = Φ(Φ⁻¹(0.99) − √10/2)), within 0.15 of it; `attack` reads its measures off it.
#[test]
fn the_tradeoff_bound_lies_below_the_exact_one() {
    let row = csv_row(&["tradeoff", "--mech", "alloc:sigma=2,steps=1,n=10", "--alpha", "0.01"]);
    let exact = float("0.771927321817283980537702841404");
    let (lo, hi) = (float(get(&row, "beta_lo")), float(get(&row, "beta_hi")));
    assert!(hi < exact && lo > rug::Float::with_val(256, &exact - 0.15f64), "[{lo}, {hi}]");
    assert_eq!(get(&row, "trust"), "certified-bound");
    let out = crate::common::ok(&["attack", "--mech", "alloc:sigma=1.1,steps=234,n=60", "--format", "csv"]);
    assert!(out.contains("certified-bound"), "{out}");
}

/// k of t steps (`k=`, `noise/allocation/selected.rs`): the composition of k − r one-of-t₀ and r
/// one-of-(t₀ + 1) allocations, t = k·t₀ + r; mpmath's divergence of that composition at α = 3
/// (scripts/reference/allocation_k.txt, σ² = 2, t = 7, k = 3), and a record in more steps loses more.
#[test]
fn k_of_t_steps_composes_its_groups() {
    let row = csv_row(&["renyi", "--mech", "alloc:sigma2=2,steps=7,k=3", "--alpha", "3"]);
    let want = float("1.15660959610559021932606690038");
    for end in ["value_lo", "value_hi"] {
        let got = float(get(&row, end));
        assert!(rug::Float::with_val(256, &got - &want).abs() < 1e-28, "{end}: {got} against {want}");
    }
    assert_eq!(get(&row, "trust"), "certified-bound");
    let eps = |k: &str| {
        let mech = format!("alloc:sigma=1.1,steps=234,k={k},n=60");
        float(get(&csv_row(&["epsilon", "--mech", &mech, "--delta", "1e-5"]), "epsilon_lo"))
    };
    assert!(eps("1") < eps("2") && eps("2") < eps("3"));
}

/// The `random-allocation` package (1.0.5, Feldman–Shenfeld's; `allocation_epsilon_direct`, integer orders
/// 2–60, in double precision, run 2026-11-29) bounds k of t steps by k allocations of ⌊t/k⌋ steps through
/// Rényi divergences: MNIST size, 60 epochs, ε(1e-5). The Rényi path here agreed with it to its double
/// precision at k = 1 and 2 (and was lower at k = 4: two of its groups have 59 steps, the package's all 58).
/// The pairs of the same groups bracket their composition's exact value: each upper end lies below the
/// package's bound, and k = 1 is exact.
#[test]
fn k_of_t_lies_below_the_random_allocation_package() {
    let row = |k: &str| csv_row(&["epsilon", "--mech", &format!("alloc:sigma=1.1,steps=234,k={k},n=60"), "--delta", "1e-5"]);
    for (k, theirs, trust) in
        [("1", 2.5486332957970648, "certified"), ("2", 5.5778266084994295, "certified-bound"), ("4", 12.76125810548098, "certified-bound")]
    {
        let r = row(k);
        let hi = float(get(&r, "epsilon_hi")).to_f64();
        assert!(hi < theirs && hi > 0.8 * theirs, "k = {k}: {hi} against {theirs}");
        assert_eq!((get(&r, "method"), get(&r, "trust")), ("allocation-pairs", trust));
    }
}

#[test]
fn refusals() {
    for k in ["0", "11", "two"] {
        let mech = format!("alloc:sigma=1,steps=10,k={k},n=3");
        refused(&["epsilon", "--mech", &mech, "--delta", "1e-5"], &["k (the steps each record is in)", "from 1 to steps (10)"]);
    }
    refused(&["epsilon", "--mech", "alloc:sigma=1,steps=10,n=3", "--delta", "1e-5", "--neighbors", "replace"], &["add/remove"]);
    refused(&["epsilon", "--mech", "alloc:sigma=1,steps=10,q=1/2", "--delta", "1e-5"], &["q=", "samples its own batches"]);
    refused(&["epsilon", "--mech", "alloc:sigma=1,steps=10,sampling=wor,m=1,pop=5", "--delta", "1e-5"], &["without replacement"]);
    refused(&["epsilon", "--mech", "alloc:sigma=1,steps=0", "--delta", "1e-5"], &["steps"]);
    refused(&["epsilon", "--mech", "alloc:sigma=1", "--delta", "1e-5"], &["missing steps"]);
}

/// `calibrate` takes the noise multiplier of an `alloc:` term: where the exact bracket straddles the target
/// at the work budget, its upper end is calibrated (trust certified-bound): the upper end at the returned σ
/// meets ε = 8 and at one resolution step less misses it, as `epsilon` computes them (the same budget, so
/// the same step and the same ends).
#[test]
fn calibrate_finds_the_noise_multiplier_of_the_bound() {
    let row = csv_row(&["calibrate", "--mech", "alloc:sigma=?,steps=234,n=60", "--target-epsilon", "8", "--delta", "1e-5"]);
    assert_eq!(get(&row, "trust"), "certified-bound");
    let (sigma, below) = (get(&row, "sigma").to_string(), get(&row, "sigma_below").to_string());
    let at = |s: &str| {
        let mech = format!("alloc:sigma={s},steps=234,n=60");
        let r = csv_row(&["epsilon", "--mech", &mech, "--delta", "1e-5"]);
        (float(get(&r, "epsilon_lo")), float(get(&r, "epsilon_hi")))
    };
    assert!(at(&sigma).1 <= 8 && at(&below).1 > 8, "{sigma} / {below}");
    let step = rug::Float::with_val(256, float(&sigma) - float(&below));
    assert!(rug::Float::with_val(256, &step - float("0.001")).abs() < 1e-12, "{sigma} - {below}");
}
