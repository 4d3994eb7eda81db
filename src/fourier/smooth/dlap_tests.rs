//! Tests of the discrete Laplace factors (docs/smoothed-fourier.md §8), each against an independent
//! evaluation: direct sums over the noise values in MPFR, and the lattice engine's exact profile of the
//! same composition (a second engine).

use super::dlap::{LapComp, LapGroup, LapShape, PLap};
use super::drivers::{delta_smooth_mixed, epsilon_smooth_mixed};
use super::precise::epsilon_precise;
use super::shape::Shape;
use super::tests::mg;
use super::theta::Thetas;
use super::{iv, SmoothParams, CP};
use crate::error::ErrorKind;
use crate::model::{GaussGroup, Group};
use crate::num::ball::Ball;
use crate::num::Interval;
use crate::pld::{compose::lattice_profile, frame::LatticeOpts};
use rug::{Float, Rational};

fn lg(b: &str, n: u32, mu: u32) -> LapGroup {
    LapGroup { scale: crate::num::parse_positive_rational(b, "b").unwrap(), count: n, mu }
}

/// E e^{(c+it)L} for one query, summed directly over x ∈ [−K, K] from the pmf e^{−|x|/b}/Z (Z summed too)
/// and the loss L(x) = (|x − μ| − |x|)/b, at 200 bits; the omitted mass e^{−K/b}·(…) is far below the
/// tolerances used (K = 120b: e^{−120}·e^{c·μ/b} < 1e-30 here).
fn direct_mgf(g: &LapGroup, c: f64, t: f64) -> (Float, Float) {
    let p = 200;
    let b = Float::with_val(p, &g.scale);
    let k = (120.0 * g.scale.to_f64()).ceil() as i64;
    let (mut z, mut re, mut im) = (Float::new(p), Float::new(p), Float::new(p));
    for x in -k..=k {
        let w = Float::with_val(p, -(x.abs()) as f64 / &b).exp();
        let l = Float::with_val(p, ((x - g.mu as i64).abs() - x.abs()) as f64) / &b;
        let m = Float::with_val(p, &l * c).exp() * &w;
        let ph = Float::with_val(p, &l * t);
        re += Float::with_val(p, ph.cos_ref()) * &m;
        im += Float::with_val(p, ph.sin_ref()) * &m;
        z += &w;
    }
    (re / &z, im / z)
}

/// n·ln M(c) and the tilted characteristic function r(t)^n of the finite loss law (PLap, LapComp) hold the
/// direct sums over the noise values: the law's atoms, probabilities and lattice are derived right.
#[test]
fn dlap_mgf_and_charfn_match_direct_sums() {
    for g in [lg("4", 1, 1), lg("5/2", 1, 2), lg("7/3", 3, 3), lg("1", 2, 5)] {
        for &c in &[0.3, 1.7, 4.0] {
            let pl = PLap::new(&g, c).unwrap();
            let (m_re, _) = direct_mgf(&g, c, 0.0);
            let ln_m = Float::with_val(CP, m_re.ln_ref()) * g.count;
            assert!(*pl.n_ln_m.lo() <= ln_m && ln_m <= *pl.n_ln_m.hi(), "{g:?} c {c}: ln M {ln_m} not in {:?}", pl.n_ln_m);
            assert!(pl.n_ln_m.width() < 1e-30);
            let lc = LapComp::new(&g, c).unwrap();
            for &t in &[0.0, 0.37, 2.5, 11.0, 1234.5] {
                let (re, im) = direct_mgf(&g, c, t);
                // (r(t))^n = (M(c + it)/M(c))^n, from the direct sums by complex powering in f64 after the ratio
                let (a, b) = ((re / &m_re).to_f64(), (im / &m_re).to_f64());
                let (mut pr, mut pi) = (1.0f64, 0.0f64);
                for _ in 0..g.count {
                    (pr, pi) = (pr * a - pi * b, pr * b + pi * a);
                }
                let r = pl.factor(&iv(t));
                let tol = 1e-13;
                let within = |i: &Interval, v: f64| i.lo().to_f64() - tol <= v && v <= i.hi().to_f64() + tol && i.width() < 1e-25;
                assert!(within(r.re(), pr) && within(r.im(), pi), "{g:?} c {c} t {t}: ({pr}, {pi}) vs {r:?}");
                let rb = lc.factor(Ball::exact(t));
                assert!(
                    (rb.re - pr).abs() <= rb.r + tol && (rb.im - pi).abs() <= rb.r + tol && rb.r < 1e-13 * (1.0 + t),
                    "{g:?} c {c} t {t}: ball {rb:?}"
                );
            }
        }
        // the f64 shape's estimate agrees with the certified value (parameter choice only)
        let (k, _) = LapShape::new(&g).ln_mgf_d(1.7);
        assert!((k - PLap::new(&g, 1.7).unwrap().n_ln_m.to_f64()).abs() < 1e-12 * k.abs().max(1.0));
    }
}

/// The composition as the lattice engine takes it.
fn shifts(gs: &[GaussGroup], lap: &[LapGroup]) -> Vec<Group> {
    let mut v: Vec<Group> = gs.iter().map(|g| Group::gaussian(g.sigma2.clone(), g.count as u64, g.mu)).collect();
    v.extend(lap.iter().map(|l| Group::laplace(l.scale.clone(), l.count as u64, l.mu)));
    v
}

/// Mixtures of discrete Gaussian and discrete Laplace groups whose slopes share a lattice: the smoothed
/// bracket — f64 tier and 20-digit tier — holds the lattice engine's exact ε (128-bit MPFR), and the δ(ε)
/// bracket the lattice's δ.
#[test]
fn mixed_bracket_contains_lattice_epsilon() {
    let cases = [
        (vec![mg("500", 2, 1), mg("700", 1, 1)], vec![lg("4", 3, 1)]),
        (vec![mg("600", 3, 1), mg("900", 2, 2)], vec![lg("3", 2, 2)]),
        (vec![mg("2000", 4, 1), mg("2500", 2, 1)], vec![lg("10", 20, 1), lg("5", 1, 1)]),
    ];
    let opts = LatticeOpts::new(crate::num::Arith::Mpfr(128));
    for (gs, lap) in &cases {
        let prof = lattice_profile(&shifts(gs, lap), &opts).unwrap();
        let (sh, th) = (Shape::with_lap(gs, lap), Thetas::with_lap(gs, lap));
        for (d, width) in [("1e-10", 1e-6), ("1e-6", 4e-7)] {
            let delta = crate::num::parse_rational(d).unwrap();
            let exact = prof.epsilon(&delta).unwrap();
            let start = epsilon_smooth_mixed(gs, lap, &delta, &SmoothParams { width: 1e-5, ..Default::default() }).unwrap();
            assert!(
                start.lo <= *exact.lo() && *exact.hi() <= start.hi,
                "{gs:?} {lap:?} delta {d}: f64 tier [{}, {}] vs lattice {exact:?}",
                start.lo,
                start.hi
            );
            assert!(start.width() <= 1e-5);
            let r = epsilon_precise(&th, &sh, &delta, &SmoothParams { width, ..Default::default() }, &start).unwrap();
            assert!(r.precise);
            assert!(
                r.lo <= *exact.lo() && *exact.hi() <= r.hi,
                "{gs:?} {lap:?} delta {d}: 20-digit tier [{}, {}] vs lattice {exact:?}",
                r.lo,
                r.hi
            );
            assert!(r.width() <= width, "width {}", r.width());
            // δ at the midpoint of the lattice's ε: the smoothed δ bracket holds the lattice's δ
            let eps = Rational::from_f64(exact.mid().to_f64()).unwrap();
            let dl = prof.delta(&eps).delta;
            let ds = delta_smooth_mixed(gs, lap, &eps, &SmoothParams { w: Some(1e-4), ..Default::default() }).unwrap();
            assert!(ds.lo <= *dl.lo() && *dl.hi() <= ds.hi, "{gs:?} {lap:?} eps {eps}: delta [{}, {}] vs lattice {dl:?}", ds.lo, ds.hi);
        }
    }
}

/// Discrete Laplace alone gives no decay: the engine declines (the lattice answers those), and out-of-range
/// DLap groups decline with the reason.
#[test]
fn dlap_without_gaussian_declines() {
    let delta = crate::num::parse_rational("1e-10").unwrap();
    let e = epsilon_smooth_mixed(&[], &[lg("4", 50, 1)], &delta, &SmoothParams::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Declined);
    assert!(e.message().contains("does not decay"), "{}", e.message());
    let e = epsilon_smooth_mixed(&[mg("500", 1, 1)], &[lg("1/100", 1, 1)], &delta, &SmoothParams::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Declined);
}

/// A mixture whose slopes share no practical lattice (7/9973, 3/7919, 10/17: step ~1/1.3e9), against the
/// python-flint reference `scripts/reference/smoothed_mix_reference.py` (exact laws of the sums by arb
/// polynomial products, δ(ε) by prefix sums, ε by bisection; output in `smoothed_mix_reference.txt`): the
/// certified brackets — the f64 tier's and whatever the 20-digit request returns — hold the reference ε.
#[test]
fn non_commensurate_mixture_contains_flint_reference() {
    let gs = [mg("9973/7", 3, 1), mg("7919/3", 2, 1)];
    let lap = [lg("17/5", 2, 1)];
    let refs = [
        ("1e-10", "0.878723469197383101661976162767", "0.878723469197383101661976162888"),
        ("1e-6", "0.777146706150793994685999643844", "0.777146706150793994685999644248"),
    ];
    for (d, rlo, rhi) in refs {
        let delta = crate::num::parse_rational(d).unwrap();
        let (rlo, rhi) = (Float::with_val(CP, Float::parse(rlo).unwrap()), Float::with_val(CP, Float::parse(rhi).unwrap()));
        for width in [1e-9, 1e-20] {
            let r = epsilon_smooth_mixed(&gs, &lap, &delta, &SmoothParams { width, ..Default::default() }).unwrap();
            assert!(r.lo <= rlo && rhi <= r.hi, "delta {d} width {width:e}: [{}, {}] misses the reference [{rlo}, {rhi}]", r.lo, r.hi);
            assert!(r.width() < 1e-8, "delta {d}: width {}", r.width());
        }
    }
}
