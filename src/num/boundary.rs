//! Integer bisection on a monotone predicate: the one loop behind the certified knot searches
//! (`pld::search::knot_bracket`, `pld::profile`'s trade-off knots).

/// For a predicate that is false up to some integer and true from there on, and lo < hi with p(lo)
/// false and p(hi) true (taken as given: neither end is evaluated), the adjacent pair (a, a + 1) with
/// p(a) false and p(a + 1) true, by halving (p is evaluated only strictly between lo and hi).
pub fn integer_boundary(mut lo: i64, mut hi: i64, p: impl Fn(i64) -> bool) -> (i64, i64) {
    while hi - lo > 1 {
        let m = lo + (hi - lo) / 2;
        if p(m) {
            hi = m;
        } else {
            lo = m;
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Every turning point of a threshold predicate on a range is found, ends never evaluated, and the
    /// count of evaluations is logarithmic, also over a range of 2^62.
    #[test]
    fn finds_every_turning_point() {
        for t in -5..=20i64 {
            let calls = Cell::new(0);
            let (a, b) = integer_boundary(-6, 21, |k| {
                assert!(-6 < k && k < 21, "end evaluated: {k}");
                calls.set(calls.get() + 1);
                k >= t
            });
            assert_eq!((a, b), (t - 1, t));
            assert!(calls.get() <= 5, "{} evaluations", calls.get());
        }
        assert_eq!(integer_boundary(-(1 << 61), 1 << 61, |k| k >= 7), (6, 7));
    }
}
