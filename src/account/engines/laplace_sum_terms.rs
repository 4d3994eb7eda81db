//! The exact Laplace sum's terms (`laplace_sum.rs`, whose module doc has the formulas): the rows kept and
//! the mass they leave out, the integer weights W_{m,k} of (2), the incomplete gamma series E_m, and interval
//! helpers (moved out of `laplace_sum.rs`, which passed the 800-line limit).

use crate::num::Interval;
use rug::{Float, Integer, Rational};

/// p = ½(1 − e^{−a}), a release's continuous mass under A (and under B), in double precision: it only
/// chooses the rows kept; [`binomial_tail`] bounds what they leave out.
pub(super) fn continuous_mass(a: &Rational) -> f64 {
    -0.5 * (-a.to_f64()).exp_m1()
}

/// The fewest rows M whose left-out mass P[Bin(n, p) > M] has the Chernoff bound exp(−n D((M + 1)/n ‖ p))
/// ≤ 2^−`bits` (n: every row, as for infinite `bits`).
pub(super) fn rows_for(n: usize, p: f64, bits: f64) -> usize {
    if !bits.is_finite() {
        return n;
    }
    let need = bits * std::f64::consts::LN_2;
    let kl = |x: f64| {
        let right = if x < 1.0 { (1.0 - x) * ((1.0 - x) / (1.0 - p)).ln() } else { 0.0 };
        x * (x / p).ln() + right
    };
    (0..n)
        .find(|&m| {
            let x = (m + 1) as f64 / n as f64;
            x > p && n as f64 * kl(x) >= need
        })
        .unwrap_or(n)
}

/// An upper bound of P[Bin(n, p) > rows], p = ½(1 − e^{−a}): the Chernoff bound
/// P[Bin(n, p) ≥ k] ≤ exp(−n D(k/n ‖ p)) for k/n ≥ p [Hoe63, Thm 1], D the Kullback–Leibler divergence of
/// two coin flips, in outward-rounded intervals (0 where every row is kept; 1 where k/n < p).
pub(super) fn binomial_tail(n: usize, a: &Rational, rows: usize) -> Float {
    const BITS: u32 = 128;
    if rows >= n {
        return Float::new(64);
    }
    let k = rows + 1;
    let p = Interval::from_rational(&-a.clone(), BITS).exp_m1().neg().mul_rational(&Rational::from((1, 2)));
    let x = Interval::from_rational(&Rational::from((k, n)), BITS);
    if x.hi() <= p.lo() || !p.is_positive() {
        return Float::with_val(64, 1);
    }
    // D(x ‖ p) = x ln(x/p) + (1 − x) ln((1 − x)/(1 − p)), the second term 0 at x = 1
    let one = Interval::one(BITS);
    let mut d = x.mul(&x.div(&p).ln());
    if k < n {
        let (xc, pc) = (one.sub(&x), one.sub(&p));
        d = d.add(&xc.mul(&xc.div(&pc).ln()));
    }
    let bound = d.mul_u64(n as u64).neg().exp();
    Float::with_val_round(64, bound.hi(), rug::float::Round::Up).0.min(&Float::with_val(64, 1)).clone()
}

/// W_{m,k} of (2) for m = 0..=rows, k = 0..=n.
pub(super) fn weights(n: usize, rows: usize) -> Vec<Vec<Integer>> {
    let mut row: Vec<Integer> = (0..=n).map(|k| Integer::from(Integer::binomial_u(n as u32, k as u32))).collect();
    let mut c = Integer::from(1);
    let mut out = Vec::with_capacity(n + 1);
    for m in 0..=n {
        out.push(row.iter().map(|p| Integer::from(p * &c)).collect());
        if m == rows {
            break;
        }
        // P_{m+1}(z)(1 + z) = P_m(z)(1 − z): p'_k = p_k − p_{k−1} − p'_{k−1}
        let mut next: Vec<Integer> = Vec::with_capacity(n + 1);
        for k in 0..=n {
            let mut v = row[k].clone();
            if k > 0 {
                v -= &row[k - 1];
                v -= &next[k - 1];
            }
            next.push(v);
        }
        row = next;
        c = c * (n - m) as u32 / (m + 1) as u32;
    }
    out
}

/// E_n(β, d) = e^{βd} Σ_{j≥0} (−β)^j d^{n+j}/(n+j)! for β = sign·½, d > 0, with the tail after the last
/// term enclosed: once the ratio |β|d/(n+j+1) of consecutive terms is at most ½, the rest is at most twice
/// the next term in absolute value.
pub(super) fn series(n: usize, sign: i32, d: &Rational, prec: u32) -> Interval {
    let di = Interval::from_rational(d, prec);
    let bd = di.mul_rational(&Rational::from((-sign, 2)));
    let lead = di.pow_u64(n as u64).div(&int(&Integer::from(Integer::factorial(n as u32)), prec));
    let mut term = Interval::one(prec);
    let mut sum = Interval::zero(prec);
    let tiny = Float::with_val(prec, Float::i_exp(1, -(prec as i32) - 8));
    let half_d = d.to_f64() / 2.0;
    for j in 0usize.. {
        sum = sum.add(&term);
        term = term.mul(&bd).div_u64((n + j + 1) as u64);
        let ratio_small = half_d <= 0.5 * (n + j + 2) as f64;
        let mag = abs_hi(&term);
        // (the tail bound holds once the ratio is small; the stop only chooses how much of it to sum)
        if ratio_small && (mag <= Float::with_val(prec, abs_lo(&sum) * &tiny) || j > 4 * (n + prec as usize)) {
            let r = Float::with_val_round(prec, &mag * 2u32, rug::float::Round::Up).0;
            return sum.widen(&r).mul(&lead).mul(&bd.neg().exp());
        }
    }
    unreachable!("the series loop returns")
}

pub(super) fn abs_hi(x: &Interval) -> Float {
    let (a, b) = (Float::with_val(x.prec(), x.lo().abs_ref()), Float::with_val(x.prec(), x.hi().abs_ref()));
    if a > b {
        a
    } else {
        b
    }
}

pub(super) fn abs_lo(x: &Interval) -> Float {
    if x.contains(&Float::with_val(x.prec(), 0)) {
        return Float::with_val(x.prec(), 0);
    }
    let (a, b) = (Float::with_val(x.prec(), x.lo().abs_ref()), Float::with_val(x.prec(), x.hi().abs_ref()));
    if a < b {
        a
    } else {
        b
    }
}

/// An exact integer as an interval (outward rounded where it has more bits than `prec`).
pub(super) fn int(w: &Integer, prec: u32) -> Interval {
    let lo = Float::with_val_round(prec, w, rug::float::Round::Down).0;
    let hi = Float::with_val_round(prec, w, rug::float::Round::Up).0;
    Interval::new(lo, hi)
}
