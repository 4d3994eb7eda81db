//! Convolutions of vectors of non-negative enclosures — pmfs on a lattice, or a power series' coefficients —
//! and their n-th powers by repeated squaring, optionally cut at a length (a truncated power series).

use crate::num::Interval;
use rug::float::Round;
use rug::ops::{AddAssignRound, AssignRound, DivAssignRound, MulAssignRound};
use rug::Float;

/// No cut: the whole convolution.
pub const WHOLE: usize = usize::MAX;

/// The convolution of `a` and `b`, its first `keep` entries at most.
pub fn convolve(a: &[Interval], b: &[Interval], keep: usize) -> Vec<Interval> {
    let prec = a[0].prec();
    let mut out = vec![Interval::zero(prec); (a.len() + b.len() - 1).min(keep)];
    for (i, x) in a.iter().enumerate().take(out.len()) {
        if *x.hi() == 0 {
            continue;
        }
        for (j, y) in b.iter().enumerate().take(out.len() - i) {
            out[i + j] = out[i + j].add(&x.mul(y));
        }
    }
    out
}

/// The n-th convolution power of `v`, its first `keep` entries at most: by the recurrence of
/// [`power_short`] for two or three entries (whole powers, the ends positive), else by binary powering.
pub fn power(v: &[Interval], n: u64, keep: usize) -> Vec<Interval> {
    let len = (v.len() as u64 - 1).saturating_mul(n).saturating_add(1);
    if keep as u64 >= len {
        if let Some(out) = power_short(v, n) {
            return out;
        }
    }
    power_by_squaring(v, n, keep)
}

/// The n-th power of P(z) = p₀ + p₁z + p₂z² (or p₀ + p₁z) with p₀, p_d > 0, in O(n) operations on
/// non-negative terms. Q = Pⁿ solves P Q′ = n P′ Q; its coefficient of z^{k−1} gives J. C. P. Miller's
/// recurrence [Knu97, §4.7]
///
///   k p₀ q_k = Σ_{j=1}^{d} ((n + 1) j − k) p_j q_{k−j},   q₀ = p₀ⁿ,
///
/// whose weights are ≥ 0 for k ≤ n + 1: the low half from it, the high half (degree 2) from the same
/// recurrence on the reversed polynomial (q_{dn−k} its k-th coefficient). Sums of non-negative enclosures:
/// no cancellation, the relative width grows by a few roundings per index. None: other lengths, an end
/// not positive.
fn power_short(v: &[Interval], n: u64) -> Option<Vec<Interval>> {
    let d = v.len().checked_sub(1).filter(|d| (1..=2).contains(d))?;
    if *v[0].lo() <= 0 || *v[d].lo() <= 0 || v.iter().any(|x| *x.lo() < 0) || n == 0 {
        return None;
    }
    let len = usize::try_from(n).ok()?.checked_mul(d)?.checked_add(1)?;
    let prec = v.iter().map(Interval::prec).max().unwrap_or(64);
    let from_end = |p: &[Interval], upto: usize| -> Vec<Interval> {
        let ratios: Vec<Interval> = p[1..].iter().map(|x| x.div(&p[0])).collect();
        let mut q = Vec::with_capacity(upto + 1);
        q.push(p[0].pow_u64(n));
        // (every term ≥ 0: the low ends rounded down, the high ends up, in place — a million entries)
        let mut t = Float::new(prec);
        for k in 1..=upto {
            let (mut lo, mut hi) = (Float::with_val(prec, 0), Float::with_val(prec, 0));
            for (j, r) in ratios.iter().enumerate().map(|(i, r)| (i + 1, r)).filter(|&(j, _)| j <= k) {
                let w = (n + 1) * j as u64 - k as u64;
                t.assign_round(r.lo() * q[k - j].lo(), Round::Down);
                t.mul_assign_round(w, Round::Down);
                lo.add_assign_round(&t, Round::Down);
                t.assign_round(r.hi() * q[k - j].hi(), Round::Up);
                t.mul_assign_round(w, Round::Up);
                hi.add_assign_round(&t, Round::Up);
            }
            lo.div_assign_round(k as u64, Round::Down);
            hi.div_assign_round(k as u64, Round::Up);
            q.push(Interval::new(lo, hi));
        }
        q
    };
    if d == 1 {
        return Some(from_end(v, len - 1));
    }
    // degree 2: indices 0..=n from the low end, n+1..=2n from the high end
    let n_us = len / 2;
    let mut low = from_end(v, n_us);
    let rev: Vec<Interval> = v.iter().rev().cloned().collect();
    let high = from_end(&rev, n_us - 1);
    low.extend(high.into_iter().rev());
    Some(low)
}

/// The n-th convolution power of `v` by binary powering, its first `keep` entries at most.
fn power_by_squaring(v: &[Interval], mut n: u64, keep: usize) -> Vec<Interval> {
    let prec = v[0].prec();
    let mut out = vec![Interval::one(prec)];
    let mut base = v.to_vec();
    while n > 0 {
        if n & 1 == 1 {
            out = convolve(&out, &base, keep);
        }
        n >>= 1;
        if n > 0 {
            base = convolve(&base, &base, keep);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Rational;

    fn ints(v: &[i64]) -> Vec<Interval> {
        v.iter().map(|&x| Interval::from_i64(x, 64)).collect()
    }

    /// (1 + 2x + x²)³ = (1 + x)⁶: the binomial coefficients, whole and cut after x³.
    #[test]
    fn powers_are_the_binomial_coefficients() {
        let whole = power(&ints(&[1, 2, 1]), 3, WHOLE);
        let want = [1, 6, 15, 20, 15, 6, 1];
        assert_eq!(whole.len(), want.len());
        for (w, k) in whole.iter().zip(want) {
            assert!(w.lo() == w.hi() && w.to_f64() == k as f64);
        }
        let cut = power(&ints(&[1, 2, 1]), 3, 4);
        assert_eq!(cut.iter().map(Interval::to_f64).collect::<Vec<_>>(), vec![1.0, 6.0, 15.0, 20.0]);
    }

    /// The n-th power of P(z) in exact rationals, by n products (the reference for the recurrence).
    fn exact_power(p: &[Rational], n: u64) -> Vec<Rational> {
        let mut q = vec![Rational::from(1)];
        for _ in 0..n {
            let mut next = vec![Rational::new(); q.len() + p.len() - 1];
            for (i, a) in q.iter().enumerate() {
                for (j, b) in p.iter().enumerate() {
                    next[i + j] += Rational::from(a * b);
                }
            }
            q = next;
        }
        q
    }

    /// The recurrence for two and three entries holds every coefficient of the exact rational power (a
    /// binomial law, a three-point law with a middle much smaller than its ends, one with the middle
    /// largest), each enclosure narrower than 10^-30 of its value, at n = 1, 2, 3 and 150; and the
    /// squaring path agrees where the recurrence declines (a zero end).
    #[test]
    fn short_powers_hold_the_exact_rational_powers() {
        let cases: [&[(i32, i32)]; 4] = [&[(2, 3), (1, 3)], &[(5, 7), (1, 1000), (2, 7)], &[(1, 10), (7, 10), (2, 10)], &[(1, 2), (1, 2)]];
        for case in cases {
            let exact_p: Vec<Rational> = case.iter().map(|&(a, b)| Rational::from((a, b))).collect();
            let p: Vec<Interval> = exact_p.iter().map(|r| Interval::from_rational(r, 200)).collect();
            for n in [1u64, 2, 3, 150] {
                let got = power_short(&p, n).expect("two or three positive entries");
                let want = exact_power(&exact_p, n);
                assert_eq!(got.len(), want.len());
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    let w_iv = Interval::from_rational(w, 200);
                    assert!(g.lo() <= w_iv.lo() && g.hi() >= w_iv.hi(), "{case:?}^{n}, coefficient {k}: {g:?} misses {w}");
                    assert!(g.log10_rel_width() < -30.0, "{case:?}^{n}, coefficient {k}: {g:?} wide");
                }
                assert_eq!(power(&p, n, WHOLE).len(), want.len());
            }
        }
        let zero_end = [Interval::from_i64(1, 64), Interval::from_i64(1, 64), Interval::zero(64)];
        assert!(power_short(&zero_end, 3).is_none());
        assert_eq!(power(&zero_end, 3, WHOLE).iter().map(Interval::to_f64).collect::<Vec<_>>(), vec![1.0, 3.0, 3.0, 1.0, 0.0, 0.0, 0.0]);
    }
}
