//! The inversion's tails against the exact lattice laws of `pld::lattice` (an independent construction:
//! residue recursion and outward-rounded convolution), on both sides and across the bulk.

use super::factor::{Factor, Law};
use super::*;
use crate::pld::lattice::LatticeDist;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

fn rel_width(v: &Interval) -> f64 {
    10f64.powf(v.log10_rel_width())
}

/// n × N_Z(0, σ²): every tail P[V ≥ m], P[V ≤ m] overlaps the lattice engine's, down to 1e-600 (the
/// lattice built to 2,400 bits of mass), and is at least as narrow as the accuracy asked (relative 2^-bits,
/// with a few bits of slack for the sums). The deep tails caught an f64 underflow of the dead-node budget
/// that had made P[V ≥ 112316] of 100,000 × N_Z(0, 37.7) twelve times too small.
/// (The tails at 40 points a side take ~6 s: the heavy tier; the default tier checks 10 a side.)
#[test]
fn gaussian_sums_match_the_lattice() {
    gaussian_sums(10);
}

#[test]
#[ignore = "heavy: 80 tails of each of seven sums (~6 s)"]
fn gaussian_sums_match_the_lattice_densely() {
    gaussian_sums(40);
}

fn gaussian_sums(points: i64) {
    for (s2, n) in [("0.01", 3u32), ("0.3", 5), ("0.5", 2), ("2.5", 4), ("37.7", 17), ("1000", 1), ("2.5", 300)] {
        let sg = q(s2);
        let exact = LatticeDist::iid_dgauss_sum_bits(&sg, n, 200, 2400).tails();
        let ft = FourierTails::new(vec![Factor { law: Law::gauss(&sg), n: n as u64, w: 1 }], 90).unwrap();
        let (mean, sd) = ft.mean_sd();
        let span = (sd * 52.0).ceil() as i64 + 2;
        let step = (span / points).max(1);
        let mut m = mean as i64 - span;
        while m <= mean as i64 + span {
            for upper in [true, false] {
                let a = if upper { exact.ge(m) } else { exact.le(m) };
                if *a.hi() < 1e-600 || rel_width(&a) > 1e-30 {
                    continue;
                }
                let b = if upper { ft.ge(m).unwrap() } else { ft.le(m).unwrap() };
                assert!(a.overlaps(&b), "σ²={s2} n={n} m={m} upper={upper}: lattice {a} vs fourier {b}");
                assert!(rel_width(&b) < 2f64.powi(-80), "σ²={s2} n={n} m={m} upper={upper}: width {}", rel_width(&b));
            }
            m += step;
        }
    }
}

/// A discrete Laplace shift statistic (a law on {0, …, μ}) with a Gaussian group at weight 2: against the
/// lattice convolution.
/// (Every tail takes ~9 s: the heavy tier; the default tier checks every seventh.)
#[test]
fn mixed_weights_and_finite_laws_match_the_lattice() {
    mixed_weights(7);
}

#[test]
#[ignore = "heavy: every tail of the mixed-weight composition (~9 s)"]
fn mixed_weights_and_finite_laws_match_the_lattice_at_every_tail() {
    mixed_weights(1);
}

fn mixed_weights(stride: usize) {
    let p = 200;
    let lap = LatticeDist::dlap_shift_sum(&q("4"), 2, 1, p).unwrap();
    let masses: Vec<Interval> = (0..lap.len()).map(|i| Interval::new(lap.lo[i].clone(), lap.hi[i].clone())).collect();
    let lap7 = LatticeDist::dlap_shift_sum(&q("4"), 2, 7, p).unwrap();
    let g = LatticeDist::iid_dgauss_sum(&q("3"), 5, p);
    let v = crate::pld::lattice::convolve_scaled(&lap7, &g, 2);
    let exact = v.tails();
    let ft = FourierTails::new(vec![Factor { law: Law::finite(masses), n: 7, w: 1 }, Factor { law: Law::gauss(&q("3")), n: 5, w: 2 }], 90)
        .unwrap();
    for m in ((v.min - 2)..=(v.max() + 2)).step_by(stride) {
        for upper in [true, false] {
            let a = if upper { exact.ge(m) } else { exact.le(m) };
            if *a.hi() < 1e-200 {
                continue;
            }
            let b = if upper { ft.ge(m).unwrap() } else { ft.le(m).unwrap() };
            assert!(a.overlaps(&b), "m={m} upper={upper}: lattice {a} vs fourier {b}");
            assert!(rel_width(&b) < 2f64.powi(-78), "m={m} upper={upper}: width {}", rel_width(&b));
        }
    }
}

/// Deep tails at n = 100,000 (σ² = 37.7) against the values of scripts/reference/lattice_fourier_tails.py
/// (mpmath, 50 digits, an uncertified implementation of the same inversion written independently).
#[test]
fn large_n_tails_match_the_mpmath_reference() {
    let ft = FourierTails::new(vec![Factor { law: Law::gauss(&q("37.7")), n: 100_000, w: 1 }], 90).unwrap();
    let refs = [
        (12316i64, "1.128092724456400623440541e-10"),
        (50000, "1.568538575068998482790119e-146"),
        (80000, "2.28253143241030310397413e-371"),
        (112316, "1.752180275333600649682154e-729"),
    ];
    for (m, want) in refs {
        let w = Float::with_val(200, Float::parse(want).unwrap());
        let slack = Float::with_val(200, &w * 1e-24f64);
        for v in [ft.ge(m).unwrap(), ft.le(-m).unwrap()] {
            assert!(v.widen(&Float::with_val(v.prec(), &slack)).contains(&w), "m={m}: {v} vs {want}");
        }
    }
}

/// Wide weights (issue #33): 30 × N_Z(0, 37.7) at weight 20 with 5 DLap(4) statistics at weight 377, the
/// weights of N_Z(0, 37.7) with DLap(4) on their common loss lattice. The DLap factor peaks 377 times a
/// period and the Gaussian one 20 times; most side peaks are held down, some not, and the walk must find
/// every live node: every tail overlaps the lattice convolution's at the accuracy asked.
/// (~8 s with 1009-point steps: the heavy tier; the default tier steps by 4001.)
#[test]
fn wide_weights_match_the_lattice() {
    wide_weights(4001, 8);
}

#[test]
#[ignore = "heavy: the wide-weight tails every 1009 points (~8 s)"]
fn wide_weights_match_the_lattice_densely() {
    wide_weights(1009, 30);
}

fn wide_weights(stride: usize, least: usize) {
    let p = 200;
    let one = LatticeDist::dlap_shift_sum(&q("4"), 1, 1, p).unwrap();
    let masses: Vec<Interval> = (0..one.len()).map(|i| Interval::new(one.lo[i].clone(), one.hi[i].clone())).collect();
    let lap = LatticeDist::dlap_shift_sum(&q("4"), 1, 5, p).unwrap();
    let g = LatticeDist::iid_dgauss_sum(&q("37.7"), 30, p);
    let v = crate::pld::lattice::convolve_scaled(&crate::pld::lattice::scale_law(&g, 20), &lap, 377);
    let exact = v.tails();
    let ft = FourierTails::new(
        vec![Factor { law: Law::gauss(&q("37.7")), n: 30, w: 20 }, Factor { law: Law::finite(masses), n: 5, w: 377 }],
        90,
    )
    .unwrap();
    let live = ft.live_estimate().unwrap();
    assert!(live > 100 && live < MAX_LIVE, "{live} live nodes");
    let mut checked = 0;
    for m in (v.min - 2..=v.max() + 2).step_by(stride) {
        for upper in [true, false] {
            let a = if upper { exact.ge(m) } else { exact.le(m) };
            if *a.hi() < 1e-200 || rel_width(&a) > 1e-40 {
                continue;
            }
            let b = if upper { ft.ge(m).unwrap() } else { ft.le(m).unwrap() };
            assert!(a.overlaps(&b), "m={m} upper={upper}: lattice {a} vs fourier {b}");
            assert!(rel_width(&b) < 2f64.powi(-78), "m={m} upper={upper}: width {}", rel_width(&b));
            checked += 1;
        }
    }
    assert!(checked > least, "{checked} tails checked");
}

/// A statistic whose Gaussian part is far narrower than the Laplace part's spacing and whose tilt floor
/// puts ~10¹² nodes in a period (one N_Z(0, 10¹⁰) query at weight 1, three DLap(1) statistics at weight
/// 2·10¹⁰): the estimate and the walk decline it at 100,000 live nodes (the walk runs in f64 before any
/// node is evaluated: `FourierTails::trapezoid`).
#[test]
fn the_walk_declines_a_dear_inversion_before_evaluating() {
    let one = LatticeDist::dlap_shift_sum(&q("1"), 1, 1, 128).unwrap();
    let masses: Vec<Interval> = (0..one.len()).map(|i| Interval::new(one.lo[i].clone(), one.hi[i].clone())).collect();
    let ft = FourierTails::new(
        vec![Factor { law: Law::gauss(&q("10000000000")), n: 1, w: 1 }, Factor { law: Law::finite(masses), n: 3, w: 20_000_000_000 }],
        90,
    )
    .unwrap();
    let e = ft.live_estimate().unwrap_err();
    assert!(e.is_declined() && e.message().contains("live nodes"), "{e}");
    // the tail at the centre, where the tilt is at its floor, is declined by its own walk
    let (mean, _) = ft.mean_sd();
    let e = ft.le(mean as i64).unwrap_err();
    assert!(e.is_declined() && e.message().contains("more than 100000 live nodes"), "{e}");
}

/// The work limit refuses a tail once the meter reaches it — served from the cache or not, so the refusal
/// comes at the same tail whatever was asked before — and is lifted when its scope ends.
#[test]
fn a_work_limit_refuses_tails_cached_or_not_within_its_scope() {
    let ft = FourierTails::new(vec![Factor { law: Law::gauss(&q("2.5")), n: 300, w: 1 }], 90).unwrap();
    let (mean, sd) = ft.mean_sd();
    let m = (mean + 3.0 * sd) as i64;
    // one tail's nodes, measured on the meter
    let before = work_meter();
    let first = ft.ge(m).unwrap();
    let nodes = work_meter() - before;
    assert!(nodes > 0, "the tail evaluated no node");
    // a cached tail counts its nodes again
    let before = work_meter();
    assert_eq!(ft.ge(m).unwrap(), first);
    assert_eq!(work_meter() - before, nodes);
    // room for one tail: the first is served, the second (the same, cached) refused
    let start = work_meter();
    let (r, refused) = with_work_limit(start + nodes, || (ft.ge(m), ft.ge(m), ft.ge(m + 1)));
    assert!(refused);
    assert_eq!(r.0.unwrap(), first);
    for e in [r.1.unwrap_err(), r.2.unwrap_err()] {
        assert_eq!(e.kind(), crate::error::ErrorKind::Resource, "{e}");
        assert!(e.message().contains("work limit"), "{e}");
    }
    // room for less than one tail: refused before its nodes are evaluated (the meter does not move), fresh
    // or cached alike
    let fresh = m + 2;
    let before = work_meter();
    let (r, refused) = with_work_limit(before + 1, || (ft.ge(fresh), ft.ge(m)));
    assert!(refused && r.0.is_err() && r.1.is_err(), "{r:?}");
    assert_eq!(work_meter(), before, "a refused tail evaluated nodes");
    assert!(r.0.unwrap_err().message().contains("work limit would be passed"));
    // a scope whose tails all fit says so; outside any scope the tails are served again
    assert!(!with_work_limit(work_meter() + nodes + 1, || ft.ge(m).unwrap()).1);
    assert_eq!(ft.ge(m).unwrap(), first);
}
