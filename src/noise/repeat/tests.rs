use super::*;
use crate::noise::loss::Direction;
use crate::noise::renyi_dp::{default_orders, epsilon_of_renyi};

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn gauss_inner() -> Vec<(Arc<dyn LossLaw>, u64)> {
    vec![(Arc::new(crate::noise::gauss::Gaussian::new(q("4"), q("1")).unwrap()) as Arc<dyn LossLaw>, 1)]
}

fn rs(mean: &str, shape: &str) -> RepeatSelect {
    RepeatSelect::new("repsel:test".into(), gauss_inner(), q(mean), Shape::parse(shape).unwrap()).unwrap()
}

/// E[K] against mpmath (40 digits: η(1/γ − 1)/(1 − γ^η) at γ = 3/10, η = 5/2 is
/// 6.1357976643479109665469515615984386596; the logarithmic law at γ = 1/2 is 1/ln 2) and the geometric 1/γ.
#[test]
fn the_mean_number_of_runs_matches_mpmath() {
    let m = tnb_mean(&q("3/10"), &q("5/2"), 128);
    let off = rug::Float::with_val(256, m.mid() - &q("6.1357976643479109665469515615984386596")).abs();
    assert!(off < 1e-35, "{m:?}");
    assert!(m.width().to_f64() < 1e-30, "{m:?}");
    assert!((tnb_mean(&q("1/2"), &q("0"), 128).to_f64() - std::f64::consts::LOG2_E).abs() < 1e-15);
    assert!((tnb_mean(&q("1/8"), &q("1"), 128).to_f64() - 8.0).abs() < 1e-15);
    // decreasing in γ (the bisection's premise), on a grid
    for eta in ["0", "1/2", "5/2", "40"] {
        let v: Vec<f64> = (1..100).map(|k| tnb_mean(&Rational::from((k, 100)), &q(eta), 128).to_f64()).collect();
        assert!(v.windows(2).all(|w| w[0] > w[1]), "eta {eta}");
    }
}

/// γ₋ lies below the root of E[K](γ) = 10 and within 1e-25 of it (roots by mpmath's findroot, 40 digits:
/// 0.026918259600680218656175331502818480 for η = 0, 0.20301610683069930878037570612665985 for η = 5/2).
#[test]
fn the_success_probability_is_bounded_below_tightly() {
    for (eta, root) in [("0", "0.026918259600680218656175331502818480"), ("5/2", "0.20301610683069930878037570612665985")] {
        let g = rs("10", eta).gamma_below(&q(eta), 128);
        let diff = Rational::from(&q(root) - &g).to_f64();
        assert!((0.0..1e-25).contains(&diff), "eta {eta}: {diff}");
    }
    assert_eq!(rs("10", "1").gamma_below(&q("1"), 128), q("1/10"));
}

/// The Gaussian of σ = 2 (D_λ = λ/8) repeated with mean 10: ε(1e-6) on dp_accounting's orders against
/// dp_accounting 0.6.0's RDP accountant (`RdpAccountant().compose(RepeatAndSelectDpEvent(GaussianDpEvent(2.0),
/// 10.0, shape)).get_epsilon(1e-6)`, run once: its own code, the same theorems). dp_accounting bisects γ to
/// 1e-9 relative on the safe side, so its value may exceed the certified one by about that.
#[test]
fn the_bound_matches_dp_accountings_rdp_accountant() {
    let orders = default_orders();
    let inner: Vec<Option<Interval>> = orders.iter().map(|a| Some(Interval::from_rational(&(a.clone() / 8u32), 128))).collect();
    for (shape, dp) in
        [("0", 3.871_145_122_367_482_6), ("1", 4.547_679_668_706_575), ("5/2", 5.339_388_985_688_423), ("inf", 5.182_727_631_984_847)]
    {
        let b = rs("10", shape).bound(&orders, &inner, 128);
        let e = epsilon_of_renyi(&orders, &b, &q("1e-6"), 128).unwrap();
        let rel = (e.to_f64() - dp) / dp;
        assert!((-3e-9..1e-12).contains(&rel), "shape {shape}: {} vs {dp}", e.to_f64());
        assert!(e.width().to_f64() < 1e-25);
        // the bound never drops below the inner divergence, and rises with the order
        for (bi, di) in b.iter().zip(&inner) {
            assert!(bi.as_ref().unwrap().lo() >= di.as_ref().unwrap().hi());
        }
        assert!(b.windows(2).all(|w| w[0].as_ref().unwrap().hi() <= w[1].as_ref().unwrap().hi()));
    }
}

/// An infinite inner divergence at some orders leaves the bound there to the larger orders (monotonicity),
/// and none at all leaves none.
#[test]
fn missing_orders_are_bounded_from_above_or_left_out() {
    let orders = default_orders();
    let mut inner: Vec<Option<Interval>> = orders.iter().map(|a| Some(Interval::from_rational(&(a.clone() / 8u32), 128))).collect();
    inner[10] = None;
    let b = rs("10", "1").bound(&orders, &inner, 128);
    assert!(b[10].is_some() && b[10].as_ref().unwrap().hi() <= b[11].as_ref().unwrap().hi());
    let none = vec![None; orders.len()];
    assert!(rs("10", "inf").bound(&orders, &none, 128).iter().all(Option::is_none));
}

#[test]
fn bad_parameters_are_refused() {
    assert!(Shape::parse("-1").is_err() && Shape::parse("x").is_err());
    assert_eq!(Shape::parse("inf").unwrap(), Shape::Poisson);
    let e = RepeatSelect::new("r".into(), gauss_inner(), q("1/2"), Shape::Poisson).unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
    assert!(RepeatSelect::new("r".into(), vec![], q("2"), Shape::Poisson).is_err());
    let law = rs("3", "1");
    assert!(law.split(Direction::Remove, &q("0"), 64).is_err() && law.renyi_only().is_some() && law.is_bound());
}
