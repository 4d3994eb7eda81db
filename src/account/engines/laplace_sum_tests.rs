//! The exact Laplace sum's tests (moved out of `laplace_sum.rs`, which neared the 800-line limit).

use super::*;
use crate::account::engines::holds;

/// The bracket's relative width in decimal digits (0 for a zero-width or zero bracket); the tests' measure.
fn digits_of(x: &Interval) -> f64 {
    let w = x.width().to_f64();
    let m = x.hi().to_f64().abs();
    if w == 0.0 {
        return f64::INFINITY;
    }
    if m == 0.0 {
        return 0.0;
    }
    -(w / m).log10()
}

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// One release: δ(ε) = 1 − e^{(ε − ε₀)/2} for 0 ≤ ε ≤ ε₀ (`noise::laplace`); two releases:
/// scripts/reference/laplace_composition.txt (mpmath quadrature of the one-release δ over the loss law).
#[test]
fn one_and_two_releases_hold_the_closed_form_and_the_mpmath_integrals() {
    let one = LaplaceSum::new(&q("1/2"), 1).unwrap();
    for (e, want) in [("0.1", "0.181269246922018141330064491381"), ("0", "0.221199216928595131754829733022")] {
        let d = one.delta(&q(e), 200);
        assert!(holds(&d, want) && digits_of(&d) > 40.0, "{e}: {d:?}");
    }
    for (a, e, want) in
        [("1/2", "0.3", "0.17199149458051171463"), ("1/2", "0.7", "0.074738925343062857229"), ("1", "0.5", "0.35049598998110477769")]
    {
        let s = LaplaceSum::new(&q(a), 2).unwrap();
        let d = s.delta(&q(e), 200);
        assert!(holds(&d, want) && digits_of(&d) > 40.0, "a = {a}, eps = {e}: {d:?}");
    }
}

/// The knots' sums run in parallel and are added in the order of k: δ(ε) and the three tails are the same
/// enclosures, to the bit, on one thread and on four.
#[test]
fn the_enclosures_do_not_depend_on_the_number_of_threads() {
    let s = LaplaceSum::new(&q("1/10"), 60).unwrap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (a, b, c) = s.upper_tails(&q("0.75"), 300);
            [s.delta(&q("0.75"), 300), a, b, c].map(|x| (x.lo().clone(), x.hi().clone()))
        })
    };
    let (one, four) = (on(1), on(4));
    assert!(one[0].0 > 0.0 && one == four, "{one:?} against {four:?}");
}

/// scripts/reference/laplace_many.txt: an exact piecewise-polynomial convolution in Python fractions,
/// integrated in mpmath at 80 and 120 digits (no Fourier inversion, no B-spline formula; n = 3 also by
/// nested quadrature), 25 digits. Every row is held at 20 digits or more; the default tier takes the
/// rows up to n = 30, the heavy tier all.
#[test]
fn composed_releases_hold_the_exact_convolution() {
    reference_rows(30);
}

#[test]
#[ignore = "heavy: the n = 100 rows of the exact Laplace sum (~1 s each)"]
fn composed_releases_hold_the_exact_convolution_at_one_hundred() {
    reference_rows(100);
}

fn reference_rows(max_n: u64) {
    let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/laplace_many.txt"));
    let mut seen = 0;
    for f in crate::num::reference::rows(text) {
        let (b, mu, n, x, want) = (q(f[1]), q(f[2]), f[3].parse::<u64>().unwrap(), q(f[4]), f[5]);
        if n > max_n {
            continue;
        }
        let a = mu / b;
        // every row, and the rows the engine keeps (`LaplaceSum::truncated`, the left-out mass ≤ 2^−150)
        for s in [LaplaceSum::new(&a, n).unwrap(), LaplaceSum::truncated(&a, n, 150.0).unwrap()] {
            let prec = s.first_prec(22);
            let got = match f[0] {
                "delta" => s.delta(&x, prec),
                _ => s.epsilon(&x, 22, prec),
            };
            assert!(holds(&got, want) && digits_of(&got) >= 20.0, "{f:?}, {} rows: {got:?} ({:.1} digits)", s.rows, digits_of(&got));
        }
        seen += 1;
    }
    assert!(seen >= 8, "{seen} rows");
}

/// f(α) of one and two releases against the Neyman–Pearson tests in the data space, mpmath at 40 digits
/// (scripts/reference/laplace_tradeoff.txt; the rows marked "atom" have the threshold on an atom of the
/// composed loss, where the test randomises): every bracket holds the reference to 1e-30 and carries 20
/// digits; a deliberately wrong α (α + 1e-12) is told apart.
#[test]
fn tradeoff_holds_the_neyman_pearson_values() {
    let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/laplace_tradeoff.txt"));
    let mut seen = 0;
    for f in crate::num::reference::rows(text) {
        let (n, b, alpha) = (f[0].parse::<u64>().unwrap(), q(f[1]), q(f[2]));
        let s = LaplaceSum::new(&(Rational::from(1) / b), n).unwrap();
        let prec = s.first_prec(22);
        let got = s.tradeoff(&alpha, 21, prec).unwrap().unwrap();
        let want = Float::with_val(prec, Float::parse(f[3]).unwrap());
        let tol = Float::with_val(prec, &want * 1e-30f64);
        assert!(got.lo() <= &Float::with_val(prec, &want + &tol) && &Float::with_val(prec, &want - &tol) <= got.hi(), "{f:?}: {got:?}");
        assert!(digits_of(&got) >= 20.0, "{f:?}: {got:?}");
        let off = s.tradeoff(&(alpha + q("1e-12")), 21, prec).unwrap().unwrap();
        assert!(off.hi() < &Float::with_val(prec, &want - &tol), "{f:?}: alpha + 1e-12 gives {off:?}");
        seen += 1;
    }
    assert_eq!(seen, 18);
}

/// The tails and δ are two evaluations of one law: A[L ≥ ε] − e^ε B[L ≥ ε] from `tails` overlaps `delta`
/// at knots (ε = 0 and ±2ε₀ for six releases, where the atoms enter one tail and not the other) and off
/// them, and the strict tail differs from the other by the atom exactly at the knots only.
#[test]
fn tails_agree_with_delta_on_and_off_the_knots() {
    let s = LaplaceSum::new(&q("1/2"), 6).unwrap();
    let p = 256;
    for e in ["0", "1", "-1", "3/10", "-7/3"] {
        let (a_below, b_ge, b_gt) = s.tails(&q(e), p);
        let d = Interval::one(p).sub(&a_below).sub(&Interval::from_rational(&q(e), p).exp().mul(&b_ge));
        let want = s.delta(&q(e), p);
        assert!(d.lo() <= want.hi() && want.lo() <= d.hi() && digits_of(&d.max(&Interval::zero(p))) > 30.0, "{e}: {d:?} vs {want:?}");
        let knot = ["0", "1", "-1"].contains(&e);
        assert_eq!(b_gt.hi() < b_ge.lo(), knot, "{e}: {b_gt:?} vs {b_ge:?}");
    }
}

/// Past 300 releases (where ε₀ = 1/10 keeps the tilted engine off): 500 × Laplace(10)'s ε(1e-5) lies
/// between dp_accounting's pessimistic and optimistic PLD values (scripts/reference/laplace_sum_peers.txt),
/// with 20 digits; the default tier's twin is the laplace_many rows (the same Newton search, n ≤ 30).
#[test]
#[ignore = "heavy: 500 releases of the exact Laplace sum (~3 s)"]
fn epsilon_past_three_hundred_releases_lies_between_the_peers_bounds() {
    let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/laplace_sum_peers.txt"));
    let mut seen = 0;
    for f in crate::num::reference::rows(text) {
        let (b, n) = (q(f[0]), f[1].parse::<u64>().unwrap());
        let laws: Vec<(Arc<dyn LossLaw>, u64)> = vec![(Arc::new(crate::noise::laplace::Laplace::new(b, q("1")).unwrap()), n)];
        let c = answer(&laws, Query::Epsilon(&q(f[2])), 20, Trust::Exact).unwrap().unwrap();
        let (pess, opt): (f64, f64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let iv = c.interval();
        assert!(c.meets(20) && iv.lo().to_f64() <= pess && iv.hi().to_f64() >= opt, "{f:?}: {c:?}");
        seen += 1;
    }
    assert_eq!(seen, 1);
}

/// dp_accounting's pessimistic ε of 100 × Laplace(1) at δ = 1e-5 (discretisation 1e-5, 68.252951048582)
/// is not an upper bound: δ_100 there exceeds 1e-5, certified, and holds the exact convolution's value
/// (scripts/reference/laplace_dp_accounting_check.txt, mpmath at 40 digits); its 1e-4 value
/// (68.252951091222) is one.
#[test]
fn dp_accountings_pessimistic_epsilon_of_a_hundred_releases_is_below_the_truth() {
    let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/laplace_dp_accounting_check.txt"));
    let s = LaplaceSum::new(&q("1"), 100).unwrap();
    let p = s.first_prec(30);
    let target = Interval::from_rational(&q("1e-5"), p);
    let mut above = Vec::new();
    for f in crate::num::reference::rows(text) {
        let d = s.delta(&q(f[2]), p);
        assert!(holds(&d, f[3]) && digits_of(&d) > 25.0, "{f:?}: {d:?}");
        above.push(if d.lo() > target.hi() {
            Some(true)
        } else if d.hi() < target.lo() {
            Some(false)
        } else {
            None
        });
    }
    assert_eq!(above, [Some(true), Some(false)]);
}

/// A deliberate error in the law is seen: ε₀ off by one part in 10^15 moves δ_6(1) out of the reference.
#[test]
fn a_wrong_epsilon0_misses_the_reference() {
    // (and a composition whose cancellation would need ~1.5·n·ε₀ = 4.5e8 bits is left to the grid)
    let laws: Vec<(Arc<dyn LossLaw>, u64)> = vec![(Arc::new(crate::noise::laplace::Laplace::new(q("1/1000000"), q("1")).unwrap()), 300)];
    assert!(answer(&laws, Query::Epsilon(&q("1e-5")), 20, Trust::Exact).unwrap().is_none());
    // and so is one of few releases beyond the precision limit (ε₀ = 1e4, n = 3: 45,000 bits ran over
    // 120 s), where ε₀ = 1000 (4,672 bits) is answered here
    let laplace = |scale: &str| -> Arc<dyn LossLaw> { Arc::new(crate::noise::laplace::Laplace::new(q(scale), q("1")).unwrap()) };
    assert!(answer(&[(laplace("1/10000"), 3)], Query::Epsilon(&q("1e-5")), 20, Trust::Exact).unwrap().is_none());
    assert!(answer(&[(laplace("1/1000"), 3)], Query::Delta(&q("2999")), 20, Trust::Exact).unwrap().is_some());
    let s = LaplaceSum::new(&(q("1") + q("1/1000000000000000")), 6).unwrap();
    assert!(!holds(&s.delta(&q("1"), 300), "0.5635747438886490180847427"));
}

/// The bounded-range rows (`LaplaceSum::bounded_range`, the exponential mechanism's dominating pair):
/// δ_n(ε′) against mpmath's quadrature of the n-fold density between the B-spline's knots
/// (`scripts/reference/bounded_range.txt`, "composed"), to 25 digits, and ε(1e-5) of two releases against
/// mpmath's root of it ("epsilon").
#[test]
fn bounded_range_sums_match_the_quadrature_of_their_density() {
    let text = include_str!("../../../scripts/reference/bounded_range.txt");
    let rows = crate::num::reference::kind_rows(text, "composed");
    assert_eq!(rows.len(), 4);
    for r in rows {
        let (eps, n, e1) = (q(r[1]), r[2].parse::<u64>().unwrap(), q(r[3]));
        let want = rug::Float::with_val(256, rug::Float::parse(r[4]).unwrap());
        let d = LaplaceSum::bounded_range(&eps, n).unwrap().delta(&e1, 256);
        let slack = rug::Float::with_val(256, &want * 1e-25);
        assert!(
            *d.lo() <= rug::Float::with_val(256, &want + &slack) && *d.hi() >= rug::Float::with_val(256, &want - &slack),
            "eps = {eps}, n = {n}: {d:?} against {want}"
        );
        assert!(d.width() < 1e-40, "{d:?}");
    }
    let r = &crate::num::reference::kind_rows(text, "epsilon")[0];
    let want = r[4].parse::<f64>().unwrap();
    let e = LaplaceSum::bounded_range(&q("1/2"), 2).unwrap().epsilon(&q("1e-5"), 22, 256);
    assert!((e.to_f64() - want).abs() < 1e-15 && e.width() < 1e-20, "{e:?} against {want}");
}

/// The rows left out (`LaplaceSum::truncated`): 100 releases of ε₀ = 1/10 keep fewer than 50 rows at 2^−98, and the
/// Chernoff bound of the left-out mass lies above the binomial tail summed term by term (in intervals at 256
/// bits, p = ½(1 − e^{−1/10}) from MPFR's expm1); at 2^−20 fewer rows are kept, the bracket of δ_100(1)
/// still holds the reference (scripts/reference/laplace_many.txt) and is wide by the tail, and with the tail
/// dropped from its upper end it misses the reference (the left-out mass is counted, not ignored).
#[test]
fn the_rows_left_out_are_bounded_and_counted() {
    let a = q("1/10");
    let exact_tail = |n: u64, rows: usize| {
        let p = Interval::from_rational(&-a.clone(), 256).exp_m1().neg().mul_rational(&q("1/2"));
        let pc = Interval::one(256).sub(&p);
        let mut t = Interval::zero(256);
        for k in rows as u64 + 1..=n {
            let c = Interval::from_rational(&Rational::from(Integer::binomial_u(n as u32, k as u32)), 256);
            t = t.add(&c.mul(&p.pow_u64(k)).mul(&pc.pow_u64(n - k)));
        }
        t
    };
    let s = LaplaceSum::truncated(&a, 100, 98.0).unwrap();
    assert!(s.rows < 50, "{} rows", s.rows);
    let t = exact_tail(100, s.rows);
    assert!(t.hi().to_f64() > 0.0 && *t.hi() <= s.tail && s.tail.to_f64() <= 2f64.powi(-97), "{t:?} against {}", s.tail);
    let coarse = LaplaceSum::truncated(&a, 100, 20.0).unwrap();
    assert!(coarse.rows < s.rows, "{} rows", coarse.rows);
    assert!(*exact_tail(100, coarse.rows).hi() <= coarse.tail);
    let want = "0.1212517879730129945228510";
    let d = coarse.delta(&q("1"), 256);
    assert!(holds(&d, want) && d.width().to_f64() >= coarse.tail.to_f64() * 0.99, "{d:?}");
    let mut dropped = coarse;
    dropped.tail = Float::new(64);
    assert!(!holds(&dropped.delta(&q("1"), 256), want));
}

/// A δ far below the 2^−64 the first truncation assumes (1,000 releases of ε₀ = 1/100 at ε = 5: about 6e-60)
/// still gets its digits: the raise sizes the left-out mass by the value's lower end, and the bracket
/// overlaps the sum with every row kept. At ε ≥ nε₀ no configuration's loss exceeds ε, so δ is 0 exactly,
/// with rows left out or not.
#[test]
fn a_small_delta_sizes_the_rows_left_out_by_itself() {
    let laws: Vec<(Arc<dyn LossLaw>, u64)> = vec![(Arc::new(crate::noise::laplace::Laplace::new(q("100"), q("1")).unwrap()), 1000)];
    let c = answer(&laws, Query::Delta(&q("5")), 20, Trust::Exact).unwrap().unwrap();
    let full = LaplaceSum::new(&q("1/100"), 1000).unwrap().delta(&q("5"), 400);
    assert!(c.meets(20) && c.interval().overlaps(&full) && full.hi().to_f64() < 1e-50, "{c:?} against {full:?}");
    let s = LaplaceSum::truncated(&q("1/100"), 1000, 20.0).unwrap();
    assert!(s.rows < 1000);
    let d = s.delta(&q("10"), 128);
    assert!(d.lo().is_zero() && d.hi().is_zero(), "{d:?}");
}

/// Several ε₀: δ against mpmath's nested quadrature, one release at a time with its own ε₀ (no B-spline, no
/// truncated powers: `scripts/reference/laplace_mixed.{py,txt}`, the digits on which dps 30 and 40 agree),
/// to every printed digit; and one ε₀ given as a mix is the one-ε₀ sum, enclosure for enclosure.
#[test]
fn several_eps0_hold_the_nested_quadrature() {
    let text = std::fs::read_to_string("scripts/reference/laplace_mixed.txt").unwrap();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let [eps0s, eps, want] = line.split_whitespace().collect::<Vec<_>>()[..] else { panic!("{line}") };
        let mut scales: Vec<(Rational, u64)> = Vec::new();
        for a in eps0s.split(':').map(q) {
            match scales.iter_mut().find(|(b, _)| *b == a) {
                Some((_, n)) => *n += 1,
                None => scales.push((a, 1)),
            }
        }
        let sum = LaplaceSum::mixed(&scales).unwrap();
        let d = sum.delta(&q(eps), 200);
        assert!(holds(&d, want) && digits_of(&d) > 40.0, "{line}: {d:?}");
        rows += 1;
    }
    assert_eq!(rows, 4);
    let (one, mix) = (LaplaceSum::new(&q("2/5"), 7).unwrap(), LaplaceSum::mixed(&[(q("2/5"), 7)]).unwrap());
    for e in ["0", "1/3", "2"] {
        assert_eq!(one.delta(&q(e), 160), mix.delta(&q(e), 160), "{e}");
    }
}
