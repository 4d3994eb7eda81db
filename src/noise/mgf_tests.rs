use super::*;
use crate::noise::mgf_check::holds;
use crate::num::cinterval::CInterval;

fn sub(q: (i64, i64), sigma: (i64, i64)) -> Mgf {
    let s = Rational::from(sigma);
    Mgf::PoissonGaussian { q: Rational::from(q), eta: Rational::from(1) / (Rational::from(2) * s.clone() * s) }
}

fn parse_fraction(s: &str) -> Rational {
    let mut it = s.split('/');
    let n: i64 = it.next().unwrap().parse().unwrap();
    let d: i64 = it.next().map_or(1, |d| d.parse().unwrap());
    Rational::from((n, d))
}

#[test]
fn poisson_gaussian_line_matches_mpmath_quadrature() {
    // scripts/reference/poisson_gaussian_mgf.txt: mpmath's tanh-sinh quadrature at 40 digits
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/poisson_gaussian_mgf.txt")) {
        let line = f.join(" ");
        let (q, sigma, dir) = (parse_fraction(f[0]), parse_fraction(f[1]), f[2]);
        let c = parse_fraction(f[3]);
        let t: u32 = f[4].parse().unwrap();
        let m = Mgf::PoissonGaussian { q, eta: Rational::from(1) / (Rational::from(2) * sigma.clone() * sigma) };
        let dir = if dir == "remove" { Direction::Remove } else { Direction::Add };
        let p = 160;
        let cf = Float::with_val(p, &c);
        // t = k·h with h = t/4, k = 4 (the line's fifth value)
        let h = Float::with_val(p, t) / 4u32;
        let v = m.line(dir, &cf, &h, 4, 1e-32, p);
        let z: &CInterval = &v[4];
        assert!(holds(z.re(), f[5]), "{line}: re {:?}", z.re());
        assert!(holds(z.im(), f[6]), "{line}: im {:?}", z.im());
        assert!(z.re().width().to_f64() < 1e-28 && z.im().width().to_f64() < 1e-28, "{line}: {z:?} too wide");
        n += 1;
    }
    assert_eq!(n, 9);
}

#[test]
fn poisson_gaussian_real_points_match_the_binomial_closed_form() {
    // at κ = 1 + c = m an integer: F(m) = Σ_j C(m, j)(1 − q)^{m−j} q^j e^{η j(j−1)} (the binomial expansion,
    // E[e^{jμX}] = e^{j²μ²/2}), here evaluated in f64 by hand for m = 2, 3
    let (q, sigma) = (0.05f64, 0.9f64);
    let eta = 1.0 / (2.0 * sigma * sigma);
    let m = sub((1, 20), (9, 10));
    for (c, want) in [
        (1.0, (1.0 - q).powi(2) + 2.0 * q * (1.0 - q) + q * q * (2.0 * eta).exp()),
        (
            2.0,
            (1.0 - q).powi(3) + 3.0 * q * (1.0 - q).powi(2) + 3.0 * q * q * (1.0 - q) * (2.0 * eta).exp() + q.powi(3) * (6.0 * eta).exp(),
        ),
    ] {
        let p = 128;
        let v = m.line(Direction::Remove, &Float::with_val(p, c), &Float::with_val(p, 0.25), 0, 1e-30, p);
        let mid = v[0].re().mid().to_f64();
        assert!((mid - want).abs() < 1e-14 * want, "F({}) = {mid} vs {want}", c + 1.0);
        assert!(v[0].im().width().to_f64() < 1e-28);
        // the certified upper bound of ln M and the planning value agree with it
        let up = m.ln_real_upper(Direction::Remove, &Float::with_val(p, c), p).to_f64();
        assert!(up >= want.ln() - 1e-15 && up < want.ln() + 1e-12, "{up} vs {}", want.ln());
        assert!((m.ln_real_f64(Direction::Remove, c) - want.ln()).abs() < 1e-9);
    }
    // the add direction at c = 1: F(−1) = E_φ[1/r] ≥ 1 (Jensen) and its f64 planning value agrees
    let v = m.line(Direction::Add, &Float::with_val(128, 1), &Float::with_val(128, 0.5), 0, 1e-30, 128);
    assert!(*v[0].re().lo() > 1);
    assert!((v[0].re().mid().to_f64().ln() - m.ln_real_f64(Direction::Add, 1.0)).abs() < 1e-9);
}

/// sup_{t ≥ t*} |M(c + it)| ≤ e^{bound(t*)} at c = 3/4: checked on the line's points beyond t* (h = 1/2),
/// both directions; and the bound falls below M(c) (it is useful).
fn assert_decay_bounds_the_line(m: &Mgf) {
    for dir in [Direction::Remove, Direction::Add] {
        crate::noise::mgf_check::decay_bounds_the_line(m, dir, 0.75, 0.5, 120, &[2.0, 10.0, 30.0]);
    }
}

#[test]
fn decay_bounds_every_later_point_of_the_line() {
    assert_decay_bounds_the_line(&sub((1, 10), (1, 1)));
    let (p, c) = (128, Float::with_val(128, 0.75));
    // the Gaussian's is exact: |M(c + it)| = e^{η(c² + c − t²)}
    let g = Mgf::Gaussian { eta: Rational::from((1, 2)) };
    let d = g.decay(Direction::Remove, &c, &Float::with_val(p, 1), p);
    assert!((d.ln_upper(2.0).to_f64() - 0.5 * (0.75 * 1.75 - 4.0)).abs() < 1e-15);
}

#[test]
fn sinc_sup_bounds_the_sinc_beyond_every_point() {
    // a dense scan of |sin s / s| on [s0, s0 + 60] against the bound at s0
    for i in 0..200 {
        let s0 = i as f64 * 0.05;
        let b = sinc_sup(&Float::with_val(64, s0)).hi().to_f64();
        let worst = (0..60_000).map(|j| s0 + j as f64 * 1e-3).filter(|s| *s > 0.0).map(|s| (s.sin() / s).abs()).fold(0.0, f64::max);
        assert!(worst <= b * (1.0 + 1e-12) || (s0 == 0.0 && b >= 1.0), "s0 = {s0}: {worst} > {b}");
    }
}

#[test]
fn gaussian_line_is_the_closed_form() {
    // ln M(c + it) = η(c + it)(c + 1 + it): at c = 1, t = 2, η = 1/2: ½(1 + 2i)(2 + 2i) = ½(−2 + 6i)
    let g = Mgf::Gaussian { eta: Rational::from((1, 2)) };
    let v = g.line(Direction::Add, &Float::with_val(128, 1), &Float::with_val(128, 1), 2, 0.0, 128);
    let want = num_complex::Complex64::new(-1.0, 3.0).exp();
    assert!((v[2].re().mid().to_f64() - want.re).abs() < 1e-15 && (v[2].im().mid().to_f64() - want.im).abs() < 1e-15);
}

/// The Laplace law's closed form on vertical lines against scripts/reference/laplace_mgf.txt (mpmath: the
/// data-space integral of p_A(x) e^{sL(x)} over its three stretches, 40 digits): every point holds the
/// reference, in both directions (the same law), with a width of 1e-30 relative or less.
#[test]
fn laplace_line_matches_the_data_space_integral() {
    let p = 160;
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/laplace_mgf.txt")) {
        let m = Mgf::Laplace { eps0: parse_fraction(f[1]) / parse_fraction(f[0]) };
        let (c, t) = (Float::with_val(p, Float::parse(f[2]).unwrap()), Float::with_val(p, Float::parse(f[3]).unwrap()));
        for dir in [Direction::Remove, Direction::Add] {
            // the line's point k = 1 at step h = t (k = 0 where t = 0)
            let v = m.line(dir, &c, &t, 1, 1e-30, p);
            let z = if t == 0 { &v[0] } else { &v[1] };
            let re: f64 = f[4].parse().unwrap();
            assert!(holds(z.re(), f[4]) && holds(z.im(), f[5]), "{f:?}: {z:?}");
            assert!(z.abs_hi().to_f64() > 0.0 && Float::with_val(64, z.re().hi() - z.re().lo()).to_f64() <= 1e-30 * re.abs().max(1.0));
        }
        n += 1;
    }
    assert_eq!(n, 15);
}

/// The same references far along a line: the point k = 2,560 of the line with step t/2,560 (exact in binary
/// for the references' t), after two chunk starts and many restarts of the phase recurrence.
#[test]
fn laplace_line_holds_the_references_far_along_it() {
    let p = 160;
    let k = 2_560;
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/laplace_mgf.txt")) {
        let m = Mgf::Laplace { eps0: parse_fraction(f[1]) / parse_fraction(f[0]) };
        let (c, t) = (Float::with_val(p, Float::parse(f[2]).unwrap()), Float::with_val(p, Float::parse(f[3]).unwrap()));
        let h = Float::with_val(p, &t / k);
        if t == 0 || Float::with_val(p, &h * k) != t {
            continue;
        }
        let v = m.line(Direction::Remove, &c, &h, k, 1e-30, p);
        assert_eq!(v.len(), k + 1);
        assert!(holds(v[k].re(), f[4]) && holds(v[k].im(), f[5]), "{f:?}: {:?}", v[k]);
        n += 1;
    }
    // (the nine with t ≠ 0 whose t/2,560 is exact)
    assert_eq!(n, 9);
}

/// The Laplace law's decay bound holds every later point of a line (to t = 600), falls below M(c) (it is
/// useful), and tends to the atoms' ½(e^{cε₀} + e^{−(1+c)ε₀}) from above.
#[test]
fn laplace_decay_bounds_every_later_point_of_the_line() {
    let p = 128;
    for (eps0, c) in [((1, 1), 0.75), ((1, 10), 2.0), ((3, 1), 0.125)] {
        let m = Mgf::Laplace { eps0: Rational::from(eps0) };
        let d = crate::noise::mgf_check::decay_bounds_the_line(&m, Direction::Remove, c, 0.25, 2400, &[0.5, 3.0, 20.0, 300.0]);
        let c = Float::with_val(p, c);
        // ln ½(e^{cε₀} + e^{−(1+c)ε₀}), enclosed at 128 bits
        let (e, ci, one) = (Interval::from_rational(&Rational::from(eps0), p), Interval::from_float(&c, p), Interval::one(p));
        let atoms = ci.mul(&e).exp().add(&one.add(&ci).mul(&e).neg().exp()).div(&Interval::from_i64(2, p)).ln();
        let far = d.ln_upper(1e9);
        assert!(far >= *atoms.lo() && far.to_f64() < atoms.hi().to_f64() + 1e-6, "{eps0:?}: {far} vs the atoms' {atoms:?}");
    }
}

/// The two mixtures of `scripts/reference/mog_mgf.py` in standard units: (pᵢ, ηᵢ = cᵢ²/(2σ²)).
fn mixture(name: &str) -> Mgf {
    let parts = match name {
        "a" => vec![(Rational::from((18, 100)), Rational::from((1, 2))), (Rational::from((1, 100)), Rational::from(2))],
        // σ = 3/2, c = 1/2 and 1: η = 1/18 and 2/9
        _ => vec![(Rational::from((1, 4)), Rational::from((1, 18))), (Rational::from((1, 4)), Rational::from((2, 9)))],
    };
    Mgf::Mixture { parts }
}

#[test]
fn mixture_line_matches_mpmath_quadrature() {
    // scripts/reference/mog_mgf.txt: mpmath's tanh-sinh quadrature of φ r^κ at 40 digits, both directions
    let rows: Vec<Vec<&str>> =
        crate::num::reference::rows(include_str!("../../scripts/reference/mog_mgf.txt")).into_iter().filter(|f| f[0] == "mgf").collect();
    assert_eq!(rows.len(), 8);
    for f in rows {
        let line = f.join(" ");
        let m = mixture(f[1]);
        let dir = if f[2] == "remove" { Direction::Remove } else { Direction::Add };
        let p = 160;
        let cf = Float::with_val(p, &parse_fraction(f[3]));
        let t: u32 = f[4].parse().unwrap();
        let h = Float::with_val(p, t) / 4u32;
        let v = m.line(dir, &cf, &h, 4, 1e-32, p);
        let z: &CInterval = &v[4];
        assert!(holds(z.re(), f[5]), "{line}: re {:?}", z.re());
        assert!(holds(z.im(), f[6]), "{line}: im {:?}", z.im());
        assert!(z.re().width().to_f64() < 1e-28 && z.im().width().to_f64() < 1e-28, "{line}: {z:?} too wide");
    }
}

#[test]
fn mixture_real_points_match_the_multinomial_closed_form() {
    // at κ = α an integer, F(α) = E[r^α] = e^{(α − 1) D_α}: the multinomial expansion in mpmath
    // (scripts/reference/mog_mgf.txt, "renyi" rows); the certified upper bound of ln M and the planning value
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/mog_mgf.txt")).into_iter().filter(|f| f[0] == "renyi") {
        let (m, alpha): (Mgf, u32) = (mixture(f[1]), f[2].parse().unwrap());
        let want: f64 = f[3].parse::<f64>().unwrap() * f64::from(alpha - 1);
        let p = 128;
        let c = Float::with_val(p, alpha - 1);
        let v = m.line(Direction::Remove, &c, &Float::with_val(p, 0.25), 0, 1e-30, p);
        let ln = v[0].re().ln();
        let exact = Float::with_val(p, Float::parse(f[3]).unwrap()) * (alpha - 1);
        assert!(ln.widen(&Float::with_val(p, 1e-25 * want)).contains(&exact), "{f:?}: {ln:?}");
        assert!(ln.width().to_f64() < 1e-26 * want, "{f:?}: {ln:?} too wide");
        let up = m.ln_real_upper(Direction::Remove, &c, p).to_f64();
        assert!(up >= want - 1e-14 * want && up < want + 1e-12, "{f:?}: {up}");
        assert!((m.ln_real_f64(Direction::Remove, f64::from(alpha - 1)) - want).abs() < 1e-7 * want.max(1.0), "{f:?}");
    }
}

#[test]
fn mixture_decay_bounds_every_later_point_of_the_line() {
    assert_decay_bounds_the_line(&mixture("a"));
}

/// The planning sum on two windows (around 0 and around the tilted peak) agrees with the one-window sum
/// where both apply, and a tiny noise multiplier (σ = 1e-9, the peak at x ≈ 1e9) is summed without a
/// window of billions of points; its decay bound is built without taking the logarithm of an underflowed
/// slope (each was an abort or an internal error), and its shifted contours on a bounded number of pieces.
#[test]
fn tiny_noise_multipliers_plan_on_two_windows_and_bound_their_decay() {
    let (q, mu, eta, kr) = (0.3f64, 40.0f64, 800.0f64, 1.5f64);
    let ln_r = |z: f64| if z > 0.0 { z + (q + (1.0 - q) * (-z).exp()).ln() } else { (1.0 - q + q * z.exp()).ln() };
    let g = |x: f64| kr * ln_r(mu * x - eta);
    let hi = 14.0 + kr * mu;
    let (one, two) = (ln_gauss_trapezoid_within(g, hi, usize::MAX), ln_gauss_trapezoid_within(g, hi, 100));
    assert!((one - two).abs() <= 1e-12 * one.abs().max(1.0), "{one} vs {two}");
    let m = sub((1, 3), (1, 1_000_000_000));
    for dir in [Direction::Remove, Direction::Add] {
        assert!(m.ln_real_f64(dir, 2.0).is_finite());
        let c = Float::with_val(64, 2);
        let d = m.decay(dir, &c, &Float::with_val(64, 1e300), 64);
        let Decay::Min(bounds) = &d else { panic!("a subsampled law's decay is the smallest of several bounds") };
        assert!(matches!(bounds[0], Decay::Components { .. }), "the layer cake first");
        // (the shifted contours' window, 14 + 3·10⁹ long, on at most 4,096 pieces)
        assert!(d.ln_upper(1.0) <= 1e300f64.ln() + 1e-9);
    }
}

/// A branch-revealing mixture (`Mgf::Branches`, truncated Poisson sampling): a probability law in both
/// directions (M(0) = 1), its decay bound holds every later point of its lines, and its largest loss is
/// bounded only where both branches' are (the add/remove branch adding, with the replace pair: unbounded).
#[test]
fn branches_are_a_probability_law_whose_decay_bound_holds() {
    let m = Mgf::Branches {
        t_lo: Rational::from((1, 100)),
        t_hi: Rational::from((1, 100)),
        cut: Box::new(Mgf::PoissonReplace { q: Rational::from((1, 10)), eta: Rational::from(2) }),
        plain: Box::new(Mgf::PoissonGaussian { q: Rational::from((1, 20)), eta: Rational::from((1, 2)) }),
    };
    let p = 128;
    for dir in [Direction::Remove, Direction::Add] {
        let v = m.line(dir, &Float::with_val(p, 0), &Float::with_val(p, 1), 0, 1e-30, p);
        assert!(v[0].re().contains(&Float::with_val(p, 1)) && v[0].re().width().to_f64() < 1e-27, "{dir:?}: {:?}", v[0]);
        crate::noise::mgf_check::decay_bounds_the_line(&m, dir, 0.75, 0.5, 120, &[2.0, 10.0, 30.0]);
        assert!(m.loss_sup(dir, p).is_none());
    }
    assert!(!m.symmetric() && !m.exact_real());
}

/// The branch-revealing mixture's two bounds (`Mgf::Branches`: the branches' layer cakes against the
/// mixture's M(c), and `Decay::Mix`, each branch's whole bound, shifted contours included, against its own)
/// each hold every later point of a certified line to t = 600 (h = 4, 128 bits), at t* = 10, 100 and 400, in
/// both directions at c = 3/4 and 3, for dp_accounting's truncated Poisson pair at q = 1/10, σ = 1, 100
/// records and batches of 15 (t = 0.0677, the cut branch σ/2 at q′ = 0.0884, both rounded up to 1/1000).
/// The mixed bound is the one that falls: at t* = 400 it lies at least 2 nepers below the layer cakes' (measured
/// 2.3–2.6 at c = 3/4, 15–16 at c = 3, where the cakes stay within 0.8 nepers of M(c): a share of M(c) that a
/// few releases never bring down).
#[test]
fn a_mixture_of_branches_is_bounded_by_its_branches_whole_bounds() {
    let m = crate::noise::mgf_check::truncated_pair();
    let (p, h) = (128, 4.0);
    for dir in [Direction::Remove, Direction::Add] {
        for c in [0.75, 3.0] {
            let (cf, hf) = (Float::with_val(p, c), Float::with_val(p, h));
            let v = m.line(dir, &cf, &hf, 150, 1e-30, p);
            let m_c = v[0].re().hi().clone();
            let Decay::Min(bounds) = m.decay(dir, &cf, &m_c, p) else { panic!("the smallest of two bounds") };
            assert!(matches!(&bounds[..], [Decay::Components { .. }, Decay::Mix { .. }]));
            for b in &bounds {
                crate::noise::mgf_check::holds_every_later_point(&|t| b.ln_upper(t).to_f64(), &v, h, &format!("{dir:?} c = {c}"));
            }
            let (cake, mix) = (bounds[0].ln_upper(400.0).to_f64(), bounds[1].ln_upper(400.0).to_f64());
            assert!(mix < cake - 2.0, "{dir:?} c = {c}: the mixed bound e^{mix} against the layer cakes' e^{cake}");
        }
    }
}

/// The planning grid changes no planning value: ln M(λ) read from [`Mgf::planning_grid`] is the direct
/// trapezoid sum bit for bit (MNIST's subsampled Gaussian, one at σ = 0.01 whose large tilts take the
/// two-window sum, and a mixture), at tilts from 10⁻⁴ to 64, both directions.
#[test]
fn the_planning_grid_gives_the_same_values_bit_for_bit() {
    let q = |s: &str| crate::num::parse_rational(s).unwrap();
    let laws = [
        Mgf::PoissonGaussian { q: q("256/60000"), eta: q("50/121") },
        Mgf::PoissonGaussian { q: q("1/3"), eta: q("5000") },
        Mgf::Mixture { parts: vec![(q("1/10"), q("1/2")), (q("1/20"), q("2"))] },
    ];
    for m in &laws {
        let grid = m.planning_grid().unwrap();
        for dir in [Direction::Remove, Direction::Add] {
            for lam in [1e-4, 0.3, 1.0, 5.0826, 17.5, 64.0] {
                let (a, b) = (m.ln_real_f64(dir, lam), m.ln_real_f64_on(dir, lam, Some(&grid)));
                assert_eq!(a.to_bits(), b.to_bits(), "{m:?} {dir:?} {lam}: {a} vs {b}");
            }
        }
    }
    assert!(Mgf::Laplace { eps0: q("1/10") }.planning_grid().is_none());
}

/// Randomized response's three-atom sum (`noise::mgf_atoms`) against scripts/reference/randomized_response_mixed.txt
/// ("mgf" rows: mpmath's sum over one report's outputs from the response probabilities, 40 digits), by ε and by
/// keep probability, k = 2, 3, 5: every point in both directions to 25 digits and 1e-28 wide; at t = 0 the
/// planning value of ln M(c) within 1e-12 and the certified upper bound above it; the decay bound is M(c).
#[test]
fn randomized_response_line_is_its_atoms_sum() {
    let mut n = 0;
    for f in crate::num::reference::rows(include_str!("../../scripts/reference/randomized_response_mixed.txt"))
        .into_iter()
        .filter(|f| f[0] == "mgf")
    {
        let k: u64 = f[3].parse().unwrap();
        let rr = match f[1] {
            "epsilon" => crate::noise::rr::RandomizedResponse::new(parse_fraction(f[2]), k),
            _ => crate::noise::rr::RandomizedResponse::with_keep(parse_fraction(f[2]), k),
        };
        let m = Mgf::RandomizedResponse(rr.unwrap());
        crate::noise::mgf_check::line_point_holds(&m, &[Direction::Remove, Direction::Add], f[4], f[5], f[6], f[7]);
        if f[5] == "0" {
            crate::noise::mgf_check::real_point_holds(&m, Direction::Remove, Direction::Add, f[4], f[6], 1e-12);
        }
        n += 1;
    }
    assert_eq!(n, 12);
    let m = Mgf::RandomizedResponse(crate::noise::rr::RandomizedResponse::new(Rational::from(1), 2).unwrap());
    let (c, m_c) = (Float::with_val(64, 0.5), Float::with_val(64, 2));
    assert!(matches!(m.decay(Direction::Remove, &c, &m_c, 64), Decay::Components { parts, .. } if parts.is_empty()));
    assert!(m.symmetric() && m.exact_real());
}

/// Every shifted contour's bound (`noise::mgf_strip`), not only the smallest of the decay bounds, holds every
/// later point of the line to t = 600 (h = 4): MNIST's subsampled Gaussian (q = 256/60000, σ = 1.1) at the
/// tilt its few-step lines take (c = 7) and a wide one (q = 1/10, σ = 2) at c = 3/4, both directions. For
/// MNIST at t* = 400 the best shift is below the layer cake (whose gain stops at the mass its pieces miss,
/// while the shift's keeps growing with t*: what lets a few DP-SGD steps reach their digits) and within 0.15
/// nepers of |M(c + 400i)| itself (measured: e^{−0.42} against e^{−0.53}; the cake's e^{−0.34}).
#[test]
fn every_shifted_contour_bounds_every_later_point_of_the_line() {
    for (m, c) in [(sub((256, 60000), (11, 10)), 7.0), (sub((1, 10), (2, 1)), 0.75)] {
        for dir in [Direction::Remove, Direction::Add] {
            let (v, bounds) = crate::noise::mgf_check::every_strip_bounds_the_line(&m, dir, c);
            if c == 7.0 {
                let best = crate::noise::mgf_check::best_strip(&bounds, 400.0);
                let cake = bounds[0].ln_upper(400.0).to_f64();
                let at = v[100].abs_hi().to_f64().ln();
                assert!(
                    best < cake - 0.05 && best < at + 0.15,
                    "{dir:?}: best shift e^{best}, layer cake e^{cake}, |M(c + 400i)| = e^{at}"
                );
            }
        }
    }
}
