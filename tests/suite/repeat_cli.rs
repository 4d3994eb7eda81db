//! Repeat and select (`--mech repsel:`, dp_accounting's `RepeatAndSelectDpEvent`): a certified bound
//! through Rényi divergences [PS22], beside dp_accounting 0.6.0's RDP accountant (its own code, run once,
//! values recorded below: `RdpAccountant(); compose(event); get_epsilon(δ)` / `get_delta(ε)`), the
//! trust, and the refusals.

use crate::common::{csv_row, get, refused};

fn bracket(row: &[(String, String)], what: &str) -> (f64, f64) {
    (get(row, &format!("{what}_lo")).parse().unwrap(), get(row, &format!("{what}_hi")).parse().unwrap())
}

/// The Gaussian of σ = 2 run a random number of times with mean 10: the same theorems on the same orders
/// give the same bound. dp_accounting finds γ by bisection to 1e-9 relative on the safe side (for the
/// logarithmic and negative binomial laws), so its value may exceed the certified one by about that.
#[test]
fn the_gaussian_repeated_is_dp_accountings_bound() {
    let cases =
        [("0", 3.871_145_122_367_482_6), ("1", 4.547_679_668_706_575), ("5/2", 5.339_388_985_688_423), ("inf", 5.182_727_631_984_847)];
    for (shape, dp) in cases {
        let mech = format!("repsel:mean=10,shape={shape},of=gauss:sigma=2");
        let row = csv_row(&["epsilon", "--mech", &mech, "--delta", "1e-6"]);
        assert_eq!(get(&row, "trust"), "certified-bound", "{row:?}");
        let (lo, hi) = bracket(&row, "epsilon");
        assert!(hi - lo < 1e-14 * dp && (-3e-9..1e-13).contains(&((hi - dp) / dp)), "shape {shape}: [{lo}, {hi}] vs {dp}");
    }
    let row = csv_row(&["delta", "--mech", "repsel:mean=10,shape=1,of=gauss:sigma=2", "--epsilon", "3"]);
    let (lo, hi) = bracket(&row, "delta");
    assert!(lo <= 0.112_509_209_061_264_85 * (1.0 + 1e-13) && hi >= 0.112_509_209_061_264_85 * (1.0 - 1e-13), "[{lo}, {hi}]");
}

/// Composed with other mechanisms, each by its own divergences: the Laplace mechanism (scale 3) selected
/// from a logarithmic number of runs (mean 4) beside a Gaussian of σ = 5 (dp_accounting: 1.4631466918704121
/// at 1e-5); DP-SGD's 1000 subsampled steps tuned over a Poisson number of runs (mean 5), twice
/// (dp_accounting: 5.221684838856107). There the certified bound is lower: dp_accounting bounds the
/// subsampled Gaussian's divergence at fractional orders from above (at α = 1.5 by 1.32369e-4 where the
/// exact value is 1.27254e-4, tests of `renyi`), tightdp computes it.
#[test]
fn compositions_add_their_divergences() {
    let row = csv_row(&["epsilon", "--mech", "repsel:mean=4,shape=0,of=laplace:scale=3", "--mech", "gauss:sigma=5", "--delta", "1e-5"]);
    let (_, hi) = bracket(&row, "epsilon");
    assert!((-1e-12..1e-13).contains(&((hi - 1.463_146_691_870_412_1) / hi)), "{hi}");
    let row = csv_row(&["epsilon", "--mech", "repsel:mean=5,shape=inf,n=2,of=gauss:sigma=1,q=1/100,n=1000", "--delta", "1e-5"]);
    let (lo, hi) = bracket(&row, "epsilon");
    assert!(hi <= 5.221_684_838_856_107 && hi > 5.2215 && hi - lo < 1e-12, "[{lo}, {hi}]");
    assert_eq!(get(&row, "method"), "renyi");
}

#[test]
fn what_the_bound_cannot_give_is_refused() {
    let m = |s: &'static str| ["epsilon", "--delta", "1e-5", "--mech", s];
    refused(&m("repsel:mean=10,of=gauss:sigma=2"), &["missing shape"]);
    refused(&m("repsel:mean=1/2,shape=1,of=gauss:sigma=2"), &["at least 1"]);
    refused(&m("repsel:mean=2,shape=1"), &["missing of="]);
    refused(&m("repsel:mean=2,shape=1,q=1/10,of=gauss:sigma=2"), &["unknown key 'q'", "of= comes last"]);
    refused(&m("repsel:mean=2,shape=-1,of=gauss:sigma=2"), &["shape must be >= 0"]);
    refused(&m("repsel:mean=2,shape=1,of=dp:epsilon=1,delta=1e-5"), &["no Renyi divergence of it is finite"]);
    refused(&["renyi", "--rho", "--mech", "repsel:mean=2,shape=1,of=gauss:sigma=2"], &["large alpha"]);
}

/// The trade-off function is bounded from below through the δ(ε) the divergences give (`account::rdp_bound`):
/// the best ε is at least as good as ε = 0, so the bound is at least 1 − δ(0) − α, and at most 1 − α.
#[test]
fn the_tradeoff_is_a_lower_bound_from_the_divergences() {
    let mech = "repsel:mean=2,shape=1,of=gauss:sigma=2";
    let row = csv_row(&["tradeoff", "--alpha", "0.1", "--mech", mech]);
    assert_eq!(get(&row, "trust"), "certified-bound");
    let beta = crate::common::float(get(&row, "beta_hi"));
    let d0 = csv_row(&["delta", "--epsilon", "0", "--mech", mech]);
    let at_zero = rug::Float::with_val(256, 0.9f64 - crate::common::float(get(&d0, "delta_hi")));
    assert!(beta >= at_zero && beta <= 0.9, "{beta} against {at_zero}");
}
