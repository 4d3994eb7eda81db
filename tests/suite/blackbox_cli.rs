//! Issue 35: stated guarantees as building blocks — `dp:epsilon=E[,delta=D]` (an (ε, δ)-DP mechanism,
//! bounded by its worst case, the four-point pair of [KOV15]) and `zcdp:rho=R` (accounted through ρ by the
//! optimal conversion [CKS20, Prop. 12]), `zcdp:rho=R,xi=X` (through its Rényi bound). References: scripts/reference/approx_dp_composition.txt
//! (mpmath, 60 digits, from the pair and the conversion formula directly, not by tightdp).

use crate::common::{csv_row as row, get as field, holds, refused};

#[test]
fn approx_dp_guarantees_compose_to_their_optimal_composition() {
    let r = row(&["epsilon", "--mech", "dp:epsilon=1,delta=1e-6,n=10", "--delta", "1e-5"]);
    assert_eq!(field(&r, "trust"), "certified-bound");
    holds(&r, "epsilon", "9.999999998967966198591428751869375212773");
    assert!(field(&r, "digits").parse::<u32>().unwrap() >= 20, "{r:?}");
    let r = row(&["epsilon", "--mech", "dp:epsilon=1/10,n=100", "--delta", "1e-6"]);
    holds(&r, "epsilon", "4.77456758810798615328594816746971255174");
    let r = row(&["delta", "--mech", "dp:epsilon=1/2,delta=1e-8,n=30", "--epsilon", "3"]);
    holds(&r, "delta", "0.4523673939247004070444714092357003100255");
    let r = row(&["delta", "--mech", "dp:epsilon=1,n=5", "--epsilon", "1"]);
    holds(&r, "delta", "0.5371017197609690670546370051483588442056");
    assert!(field(&r, "digits").parse::<u32>().unwrap() >= 20, "{r:?}");
}

#[test]
fn a_zcdp_guarantee_is_accounted_through_rho() {
    // rho = 1/2 + 3 * 1/8 (three N(0, 4) releases of sensitivity 1)
    let r = row(&["epsilon", "--mech", "zcdp:rho=0.5", "--mech", "gauss:sigma2=4,n=3", "--delta", "1e-6"]);
    assert_eq!(field(&r, "trust"), "certified-bound");
    assert_eq!(field(&r, "method"), "zcdp-cks");
    holds(&r, "epsilon", "7.188480362156053370229996916975955475957");
    let r = row(&["delta", "--mech", "zcdp:rho=1/2", "--epsilon", "2"]);
    holds(&r, "delta", "0.05429299664026248395975870705842090335966");
    // with a discrete Gaussian group: its rho 3/8 enters the same way
    let r = row(&["epsilon", "--mech", "zcdp:rho=0.5", "--mech", "dgauss:sigma2=4,n=3", "--delta", "1e-6"]);
    holds(&r, "epsilon", "7.188480362156053370229996916975955475957");
}

/// Approximate (ξ, ρ)-zCDP (dp_accounting's `ZCDpEvent` with xi): D_α ≤ ξ + ρα, accounted through Rényi
/// divergences on dp_accounting's orders; scripts/reference/zcdp_xi.txt (mpmath: the divergences added and
/// converted by [CKS20, Prop. 12] directly, 30 digits). ξ = 1/10 over 10 releases adds exactly 1 to the
/// ρ-zCDP ε (allocation.txt's 8.0794…): the conversion's ξ term is a constant.
#[test]
fn approximate_zcdp_is_accounted_through_its_renyi_bound() {
    let r = row(&["epsilon", "--mech", "zcdp:rho=1/8,xi=1/10,n=10", "--delta", "1e-5"]);
    assert_eq!((field(&r, "trust"), field(&r, "method")), ("certified-bound", "renyi"));
    crate::common::holds_rounded(&r, "epsilon", "9.07940622242049231582392419857");
    let r = row(&["delta", "--mech", "zcdp:rho=1/8,xi=1/10,n=10", "--epsilon", "3"]);
    crate::common::holds_rounded(&r, "delta", "0.34498977931524912803250558079");
    let r = row(&["epsilon", "--mech", "zcdp:rho=0.5,xi=0.01,n=3", "--delta", "1e-5"]);
    crate::common::holds_rounded(&r, "epsilon", "9.03995899168389669864691638909");
    let r = row(&["delta", "--mech", "zcdp:rho=0.5,xi=0.01,n=3", "--epsilon", "3"]);
    crate::common::holds_rounded(&r, "delta", "0.233977379318761666055373336343");
    // xi = 0 is the rho-zCDP guarantee, through rho as before
    let r = row(&["epsilon", "--mech", "zcdp:rho=1/8,xi=0,n=10", "--delta", "1e-5"]);
    assert_eq!(field(&r, "method"), "zcdp-cks");
}

/// The trade-off function of a ρ-zCDP guarantee, bounded from below through D_α ≤ ρα (f(α) ≥ 1 − δ(ε) −
/// e^ε α at the best ε): ρ = 5/4 lies below the exact trade-off of the Gaussian with that ρ (√(5/2)-GDP,
/// Φ(Φ⁻¹(0.99) − √(5/2)) = 0.7719… by mpmath, scripts/reference/allocation.txt) and within 0.15 of it; the
/// same Rényi curve as ten epochs of one-step allocation at σ = 2, so the same bound.
#[test]
fn a_zcdp_guarantee_bounds_the_tradeoff_function() {
    let r = row(&["tradeoff", "--mech", "zcdp:rho=5/4", "--alpha", "0.01"]);
    assert_eq!((field(&r, "trust"), field(&r, "method")), ("certified-bound", "zcdp-cks"));
    let (lo, hi) = (crate::common::float(field(&r, "beta_lo")), crate::common::float(field(&r, "beta_hi")));
    let exact = crate::common::float("0.771927321817283980537702841404");
    assert!(hi < exact && lo > rug::Float::with_val(256, &exact - 0.15f64), "[{lo}, {hi}]");
    let same = row(&["tradeoff", "--mech", "alloc:sigma=2,steps=1,n=10", "--alpha", "0.01"]);
    let other = crate::common::float(field(&same, "beta_lo"));
    assert!(rug::Float::with_val(256, &other - &lo).abs() < 1e-25, "{lo} against {other}");
}

#[test]
fn bad_stated_guarantees_are_refused() {
    refused(&["epsilon", "--mech", "zcdp:rho=1,xi=-1", "--delta", "1e-6"], &["xi must be a number >= 0"]);
    refused(&["epsilon", "--mech", "zcdp:rho=1,xi=1/10,q=0.1", "--delta", "1e-6"], &["q=", "zCDP"]);
    refused(&["epsilon", "--mech", "dp:epsilon=0", "--delta", "1e-6"], &["epsilon"]);
    refused(&["epsilon", "--mech", "dp:epsilon=1,delta=1", "--delta", "1e-6"], &["delta < 1"]);
    refused(&["epsilon", "--mech", "dp:delta=1e-6", "--delta", "1e-6"], &["missing epsilon"]);
    refused(&["epsilon", "--mech", "zcdp:rho=-1", "--delta", "1e-6"], &["rho"]);
    refused(&["epsilon", "--mech", "zcdp:rho=1,q=0.1", "--delta", "1e-6"], &["q=", "zCDP"]);
    refused(&["epsilon", "--mech", "zcdp:rho=1", "--mech", "dp:epsilon=1,delta=1e-9", "--delta", "1e-6"], &["no rho"]);
    refused(&["epsilon", "--mech", "zcdp:rho=1,sigma=2", "--delta", "1e-6"], &["unknown key 'sigma'"]);
}

/// The exponential mechanism at ε-DP, by its ε-bounded-range class (`expmech:epsilon=E`,
/// `src/noise/bounded_range.rs`): one release is the supremum over the class's two-point pairs; two are the
/// class's dominating pair composed (the exact sum); from three on the class's Rényi divergences give the
/// smaller bound and are reported. References: scripts/reference/bounded_range.txt (mpmath, 30 digits: a
/// search over the two-point pairs, quadrature of the composed density, the conversion of the summed
/// divergences on dp_accounting's orders).
#[test]
fn the_exponential_mechanism_takes_the_smaller_of_two_certified_bounds() {
    let r = row(&["delta", "--mech", "expmech:epsilon=1/2", "--epsilon", "1/8"]);
    assert_eq!((field(&r, "trust"), field(&r, "method")), ("certified-bound", "closed-form"));
    crate::common::holds_rounded(&r, "delta", "0.0742905213626629707240570998791");
    let r = row(&["epsilon", "--mech", "expmech:epsilon=1/2,n=2", "--delta", "1e-5"]);
    assert_eq!(field(&r, "method"), "laplace-sum");
    crate::common::holds_rounded(&r, "epsilon", "0.966443923364365661232505551359");
    let r = row(&["delta", "--mech", "expmech:epsilon=1/2,n=2", "--epsilon", "1/4"]);
    crate::common::holds_rounded(&r, "delta", "0.0785856851157458052453045549334");
    // three: the pair composed gives 1.39462959…, the Rényi route 1.38666240…, which is reported
    let r = row(&["epsilon", "--mech", "expmech:epsilon=1/2,n=3", "--delta", "1e-5"]);
    assert_eq!(field(&r, "method"), "renyi");
    crate::common::holds_rounded(&r, "epsilon", "1.38666240903489116397980710922");
    assert!(field(&r, "detail").contains("class's Renyi divergences of expmech:epsilon=1/2"), "{r:?}");
    let r = row(&["epsilon", "--mech", "expmech:epsilon=1/2,n=100", "--delta", "1e-5"]);
    crate::common::holds_rounded(&r, "epsilon", "13.9409730963964697210082941964");
    // beside a stated zCDP guarantee: through rho, the class's epsilon^2/8 [CR21] (1/2 + 3/32)
    let r = row(&["epsilon", "--mech", "zcdp:rho=1/2", "--mech", "expmech:epsilon=1/2,n=3", "--delta", "1e-5"]);
    let z = row(&["epsilon", "--mech", "zcdp:rho=19/32", "--delta", "1e-5"]);
    assert_eq!((field(&r, "method"), field(&r, "rho")), ("zcdp-cks", "0.59375"));
    assert_eq!(field(&r, "epsilon_hi"), field(&z, "epsilon_hi"));
    // the most releases within eps = 5: 19 (4.98715…), 20 miss (5.14710…), both by the Renyi route
    let r = row(&["calibrate", "--mech", "expmech:epsilon=1/2,n=?", "--target-epsilon", "5", "--delta", "1e-5"]);
    assert_eq!((field(&r, "n"), field(&r, "n_above"), field(&r, "trust")), ("19", "20", "certified-bound"));
    crate::common::holds_rounded(&r, "epsilon", "4.98715467491730520704272936062");
    crate::common::holds_rounded(&r, "epsilon_above", "5.14710478938754624500784600277");
    // the largest epsilon of ten within eps = 5: its bracket is the accountant's at that epsilon
    let r = row(&["calibrate", "--mech", "expmech:epsilon=?,n=10", "--target-epsilon", "5", "--delta", "1e-5"]);
    assert_eq!((field(&r, "mech_epsilon"), field(&r, "mech_epsilon_above")), ("0.719", "0.720"));
    let at = row(&["epsilon", "--mech", "expmech:epsilon=0.719,n=10", "--delta", "1e-5"]);
    assert_eq!(field(&r, "epsilon_hi"), field(&at, "epsilon_hi"));
    refused(
        &["calibrate", "--mech", "gauss:epsilon=?,n=10", "--target-epsilon", "5", "--delta", "1e-5"],
        &["expmech:, dp:, rr: or laplace: term"],
    );
    refused(&["epsilon", "--mech", "expmech:epsilon=0", "--delta", "1e-5"], &["epsilon must be positive"]);
    refused(&["epsilon", "--mech", "expmech:scale=1", "--delta", "1e-5"], &["unknown key 'scale'"]);
}

/// A stated (ε, δ) guarantee on a Poisson subsample (`dp:epsilon=E,delta=D,q=Q`; dp_accounting's
/// `PoissonSampledDpEvent` of an `EpsilonDeltaDpEvent`): its losses ln(1 − q + q e^{±ε}) and ln(1 − q) share no
/// lattice, and its composition is the exact multinomial sum (`exact-atoms`), 30 digits against
/// scripts/reference/poisson_approx_dp.txt (mpmath's hockey-stick sum over count vectors), inside the pld
/// grid's bracket at five releases; on batches drawn without replacement too.
#[test]
fn a_stated_guarantee_on_a_subsample_is_composed_exactly() {
    let r = row(&["epsilon", "--mech", "dp:epsilon=1,q=1/10,n=100", "--delta", "1e-5", "--digits", "30"]);
    assert_eq!((field(&r, "method"), field(&r, "trust")), ("exact-atoms", "certified-bound"), "{r:?}");
    let (lo, hi) = (crate::common::float(field(&r, "epsilon_lo")), crate::common::float(field(&r, "epsilon_hi")));
    // the reference, 4.7323546445087841817397677465421812, within half a unit of its 35th digit
    let (wlo, whi) =
        (crate::common::float("4.73235464450878418173976774654218115"), crate::common::float("4.73235464450878418173976774654218125"));
    assert!(lo <= whi && wlo <= hi && field(&r, "digits").parse::<u32>().unwrap() >= 30, "{r:?}");
    let r = crate::common::inside_the_grids_bracket(
        &["delta", "--mech", "dp:epsilon=1,delta=1e-4,q=1/5,n=5", "--epsilon", "1/2"],
        "delta",
        "1/1000",
    );
    assert_eq!(field(&r, "method"), "exact-atoms", "{r:?}");
    // on batches drawn without replacement: its own transcendental step ln(1 − γ + γe^ε)
    // (and randomized response, whose law there has the same three losses)
    for mech in ["dp:epsilon=1,delta=1e-4,sampling=wor,m=1,pop=5,n=5", "rr:epsilon=1,k=3,sampling=wor,m=10,pop=100,n=5"] {
        let args = ["delta", "--mech", mech, "--epsilon", "1/2", "--neighbors", "replace"];
        let r = crate::common::inside_the_grids_bracket(&args, "delta", "1/1000");
        assert_eq!(field(&r, "method"), "exact-atoms", "{mech}: {r:?}");
    }
}

/// The exponential mechanism on a Poisson subsample (`expmech:epsilon=E,q=Q`): its class's dominating pair,
/// subsampled (`noise::subsample`), goes to the tilted Fourier inversion (`noise::mgf_laplace_sub`, the pair's
/// moment generating function) with 20 digits, inside the pld grid's bracket (an independent method: the
/// grid discretises the pair's distribution functions). Two releases (few for the inversion, so the grid) hold
/// mpmath's double integral of the pair's densities (scripts/reference/poisson_bounded_range_two.txt).
#[test]
fn the_exponential_mechanism_on_a_subsample_is_inverted() {
    for mech in ["expmech:epsilon=1,q=1/10,n=100", "expmech:epsilon=1/2,q=1/100,n=1000"] {
        let r = crate::common::inside_the_grids_bracket(&["epsilon", "--mech", mech, "--delta", "1e-5"], "epsilon", "1/1000");
        assert_eq!((field(&r, "method"), field(&r, "trust")), ("tilted-fourier", "certified-bound"), "{mech}: {r:?}");
        assert!(field(&r, "digits").parse::<u32>().unwrap() >= 20, "{mech}: {r:?}");
    }
    let mut seen = 0;
    for line in include_str!("../../scripts/reference/poisson_bounded_range_two.txt").lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let mech = format!("expmech:epsilon={},q={},n=2", f[1], f[0]);
        let r = row(&["delta", "--mech", &mech, "--epsilon", f[2], "--grid", "1/1000"]);
        let (lo, hi, want) =
            (crate::common::float(field(&r, "delta_lo")), crate::common::float(field(&r, "delta_hi")), crate::common::float(f[5]));
        assert!(lo <= want && want <= hi, "{mech}: {} outside [{lo}, {hi}]", f[5]);
        seen += 1;
    }
    assert_eq!(seen, 3);
}
