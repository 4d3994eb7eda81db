use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// An epoch and a power without a budget.
fn ep<B: Build>(one: &B, t: u64, h: &Rational) -> B {
    epoch(one, t, h, &mut Work::new(u64::MAX)).unwrap()
}

fn pw<B: Build>(one: &B, e: u64, h: &Rational) -> B {
    power(one, e, h, &mut Work::new(u64::MAX)).unwrap()
}

fn exp_eps(eps: f64) -> Mass {
    Mass::of(&Interval::from_rational(&Rational::from_f64(eps).unwrap(), 64).exp())
}

/// (lower, upper) of δ(ε) in the direction asked, from the two builds.
fn bracket(lo: &Lower, up: &Upper, grid: &[Mass], eps: f64, remove: bool) -> (f64, f64) {
    let x = exp_eps(eps);
    let (l, u) = (lo.delta(x), up.delta(grid, x));
    if remove {
        (l.0, u.0)
    } else {
        (l.1, u.1)
    }
}

/// The Gaussian mechanism's δ(ε) at μ/σ = s: Φ(s/2 − ε/s) − e^ε Φ(−s/2 − ε/s), in MPFR.
fn gaussian_delta(s: f64, eps: f64) -> f64 {
    let p = 128;
    let iv = |x: f64| Interval::from_rational(&Rational::from_f64(x).unwrap(), p);
    let a = normal_cdf(&iv(s / 2.0 - eps / s));
    let b = normal_cdf(&iv(-s / 2.0 - eps / s)).mul(&iv(eps).exp());
    a.sub(&b).mid().to_f64()
}

fn encloses_one(m: Mass) -> bool {
    m.lo <= 1.0 && 1.0 <= m.hi && m.hi - m.lo < 1e-9
}

/// Every build's masses enclose 1 under both laws: one step, an epoch of 5 and 3 epochs of it.
#[test]
fn masses_enclose_one() {
    let (eta, h) = (q("0.41"), q("1/100"));
    let (k0, k1) = window(&eta, &h, 9.0);
    let up = Upper::step(&cells(&eta, &h, k0, k1), &h);
    let lo = Lower::step(&cells(&eta, &h, k0, k1));
    for u in [up.clone(), ep(&up, 5, &h), pw(&ep(&up, 5, &h), 3, &h)] {
        let (m, w) = u.totals(&h);
        assert!(encloses_one(m) && encloses_one(w), "upper {m:?} {w:?}");
    }
    for l in [lo.clone(), ep(&lo, 5, &h), pw(&ep(&lo, 5, &h), 3, &h)] {
        let (m, w) = l.totals();
        assert!(encloses_one(m) && encloses_one(w), "lower {m:?} {w:?}");
    }
}

/// One step is the Gaussian mechanism (μ/σ = 1 at η = 1/2), and four epochs of one step the Gaussian at
/// μ/σ = 2: the builds bracket its closed form in both directions, and the bracket narrows as h² (halving h
/// divides its width by more than 3).
#[test]
fn one_step_and_its_products_bracket_the_gaussian_mechanism() {
    let eta = q("1/2");
    let mut widths = vec![];
    for hs in ["1/100", "1/200"] {
        let h = q(hs);
        let (k0, k1) = window(&eta, &h, 9.0);
        let (up1, lo1) = (Upper::step(&cells(&eta, &h, k0, k1), &h), Lower::step(&cells(&eta, &h, k0, k1)));
        let (up4, lo4) = (pw(&up1, 4, &h), pw(&lo1, 4, &h));
        let mut w = 0.0f64;
        for (up, lo, s) in [(&up1, &lo1, 1.0), (&up4, &lo4, 2.0)] {
            let grid = up.grid(&h);
            for eps in [0.0, 0.5, 1.0, 2.0, 3.0] {
                let exact = gaussian_delta(s, eps);
                for remove in [true, false] {
                    let (l, u) = bracket(lo, up, &grid, eps, remove);
                    assert!(l <= exact && exact <= u, "h {hs}, s {s}, ε {eps}: [{l:e}, {u:e}] misses {exact:e}");
                    w = w.max((u - l) / exact);
                }
            }
        }
        widths.push(w);
    }
    assert!(widths[0] > 3.0 * widths[1], "relative widths {widths:?}: not of second order");
}

/// Two steps against mpmath (scripts/reference/allocation_pair.txt: one integral over the first step of the
/// lognormal call and put in closed form, checked by Monte Carlo): the builds bracket it in both directions.
#[test]
fn two_steps_bracket_the_mpmath_integrals() {
    let h = q("1/200");
    let mut rows = 0;
    for line in include_str!("../../../scripts/reference/allocation_pair.txt").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (eta, eps, want) = (q(f[1]), f[2].parse::<f64>().unwrap(), f[3].parse::<f64>().unwrap());
        let (k0, k1) = window(&eta, &h, 9.0);
        let up = ep(&Upper::step(&cells(&eta, &h, k0, k1), &h), 2, &h);
        let lo = ep(&Lower::step(&cells(&eta, &h, k0, k1)), 2, &h);
        let (l, u) = bracket(&lo, &up, &up.grid(&h), eps, f[0] == "remove");
        // the reference's 20 digits: its rounding is far inside the bracket's width
        assert!(l <= want * (1.0 + 1e-15) && want * (1.0 - 1e-15) <= u, "{line}: [{l:e}, {u:e}]");
        assert!(u - l < 1e-3 * want, "{line}: [{l:e}, {u:e}] wider than 1e-3 relative");
        rows += 1;
    }
    assert_eq!(rows, 12);
}
