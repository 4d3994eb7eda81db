//! Convolutions of vectors of non-negative enclosures — pmfs on a lattice, or a power series' coefficients —
//! and their n-th powers by repeated squaring, optionally cut at a length (a truncated power series).

use crate::num::Interval;

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

/// The n-th convolution power of `v` (binary powering), its first `keep` entries at most.
pub fn power(v: &[Interval], mut n: u64, keep: usize) -> Vec<Interval> {
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
}
