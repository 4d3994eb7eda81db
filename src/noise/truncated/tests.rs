use super::*;

fn q(s: &str) -> Rational {
    crate::num::parse_rational(s).unwrap()
}

/// P[Bin(n, q) ≥ k] by the direct sum of exact binomial terms (rationals), beside the enclosure; q = 0 and
/// q = 1 (the ends of a probability's enclosure) included.
#[test]
fn binomial_tails_hold_the_exact_sums() {
    for (n, rate, k) in [
        (50u64, "1/10", 8u64),
        (50, "1/10", 1),
        (50, "1/10", 50),
        (200, "3/7", 90),
        (200, "3/7", 120),
        (30, "1/2", 0),
        (30, "1/2", 31),
        (20, "1", 5),
        (20, "1", 20),
        (20, "0", 3),
    ] {
        let qr = q(rate);
        let mut exact = Rational::new();
        let mut binom = Rational::from(1);
        for j in 0..=n {
            if j > 0 {
                binom = binom * Rational::from(n - j + 1) / Rational::from(j);
            }
            if j >= k {
                let one_minus = Rational::from(1) - qr.clone();
                let pow = |x: &Rational, e: u64| (0..e).fold(Rational::from(1), |acc, _| acc * x);
                let (a, b) = (pow(&qr, j), pow(&one_minus, n - j));
                exact += binom.clone() * a * b;
            }
        }
        let t = binomial_tail(n, &qr, k, 256);
        let e = Float::with_val(256, &exact);
        assert!(t.contains(&e), "n = {n}, q = {rate}, k = {k}: {t:?} does not hold {exact}");
        assert!(t.width().to_f64() <= 1e-70 * e.to_f64().max(1e-300) + 1e-300, "n = {n}, k = {k}: {t:?} too wide");
    }
}

/// The reference rows of one kind.
fn reference(kind: &str) -> Vec<Vec<String>> {
    let text = include_str!("../../../scripts/reference/truncated.txt");
    crate::num::reference::kind_rows(text, kind).into_iter().map(|f| f.into_iter().map(str::to_string).collect()).collect()
}

fn law(spec: &str) -> TruncatedPoissonGaussian {
    let body = spec.split_once(':').unwrap().1;
    let mut p = crate::noise::params::Params::parse(spec, body).unwrap();
    let sigma = p.positive("sigma").unwrap();
    let prob = p.positive("prob").unwrap();
    let batch: u64 = p.take("batch").unwrap().parse().unwrap();
    let records: u64 = p.take("records").unwrap().parse().unwrap();
    TruncatedPoissonGaussian::new(Rational::from(&sigma * &sigma), prob, batch, records).unwrap()
}

/// t and q′ against mpmath's regularized incomplete beta function (`scripts/reference/truncated.py`).
#[test]
fn truncation_probability_and_conditional_rate_hold_the_incomplete_beta() {
    let rows = reference("tails");
    assert_eq!(rows.len(), 2);
    for r in rows {
        let l = law(&r[1]);
        let t = Float::with_val(256, Float::parse(&r[2]).unwrap());
        assert!(l.t.widen(&Float::with_val(64, 1e-34 * t.to_f64())).contains(&t), "{}: t = {:?}", r[1], l.t);
        // q′ rounded up: at or above the reference, by less than 1e-34 relative
        let want = Float::with_val(256, Float::parse(&r[3]).unwrap());
        let got = Float::with_val(256, &l.q_prime);
        let rel = Float::with_val(256, (got.clone() - &want) / &want).to_f64();
        // (rounded up from an enclosure 2^-256 wide: equal to the 35-digit reference to its last digit)
        assert!(rel.abs() < 1e-34, "{}: q' = {got} against {want}", r[1]);
    }
}

/// Both sides of every split add to 1 in both directions, and the law is a certified bound.
#[test]
fn the_mixture_is_a_pair_of_probability_laws() {
    let l = law("truncgauss:sigma=1,prob=1/20,batch=60,records=1000");
    assert!(l.is_bound() && !l.symmetric());
    for d in [Direction::Remove, Direction::Add] {
        for x in ["-3", "-1/2", "0", "1/4", "2"] {
            let s = l.split(d, &q(x), 128).unwrap();
            for t in [s.a_below.add(&s.a_above), s.b_below.add(&s.b_above)] {
                assert!(t.contains(&Float::with_val(128, 1)) && t.width().to_f64() < 1e-30, "{d:?} {x}: {t:?}");
            }
        }
    }
}

/// q within 2^-300 of 1 at 256 bits: 1 − q is taken exactly, so the odds do not divide by an enclosure of
/// 1 − q holding 0 (an internal error of `tightdp shuffle` at small noise). P[Bin(20, q) ≥ 20] = q^20 and
/// P[Bin(20, q) ≥ 5] are enclosed within 2^-240 of 1 (the truth within 2^-295), and the tail at 21 is 0.
#[test]
fn binomial_tails_at_a_probability_next_to_one() {
    let eps = Rational::from((rug::Integer::from(1), rug::Integer::from(1) << 300u32));
    let qr = Rational::from(1) - eps;
    let one = Float::with_val(256, 1);
    for k in [5u64, 20] {
        let t = binomial_tail(20, &qr, k, 256);
        let below = Float::with_val(256, &one - t.lo());
        assert!(
            below < Float::with_val(256, Float::i_exp(1, -240)) && *t.hi() >= Float::with_val(256, Float::i_exp(1, -1)),
            "k = {k}: {t:?}"
        );
    }
    assert_eq!(binomial_tail(20, &qr, 21, 256).hi().to_f64(), 0.0);
}
