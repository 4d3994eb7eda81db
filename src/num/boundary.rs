//! Integer bisection on a monotone predicate: the one loop behind the certified knot searches
//! (`pld::search::knot_bracket`, `pld::profile`'s trade-off knots), and its galloping form from a guess.

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

/// As [`integer_boundary`] (same contract: p(lo) false and p(hi) true taken as given, neither evaluated),
/// starting from a guess: steps 1, 2, 4, … from `guess` to a point on each side of the boundary, then
/// halving between them. A guess d away from the boundary costs about 2 log2(d) + 2 evaluations, a bad
/// one only evaluations; the pair returned is the same as `integer_boundary`'s for a monotone p.
pub fn gallop_boundary(lo: i64, hi: i64, guess: i64, p: impl Fn(i64) -> bool) -> (i64, i64) {
    if hi.saturating_sub(lo) <= 1 {
        return (lo, hi);
    }
    let g = guess.clamp(lo + 1, hi - 1);
    let mut step = 1i64;
    if p(g) {
        let mut top = g;
        loop {
            let b = top.saturating_sub(step).max(lo);
            if b == lo || !p(b) {
                return integer_boundary(b, top, &p);
            }
            top = b;
            step = step.saturating_mul(2);
        }
    } else {
        let mut bot = g;
        loop {
            let t = bot.saturating_add(step).min(hi);
            if t == hi || p(t) {
                return integer_boundary(bot, t, &p);
            }
            bot = t;
            step = step.saturating_mul(2);
        }
    }
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

    /// The galloping search finds the same pair as the bisection for every turning point and guess, never
    /// evaluates the ends, and needs few evaluations when the guess is near.
    #[test]
    fn galloping_from_a_guess_finds_the_same_pair() {
        for t in -5..=21i64 {
            for guess in [-100, -6, -5, 0, 3, 7, 20, 21, 100] {
                let calls = Cell::new(0);
                let got = gallop_boundary(-6, 21, guess, |k| {
                    assert!(-6 < k && k < 21, "end evaluated: {k}");
                    calls.set(calls.get() + 1);
                    k >= t
                });
                assert_eq!(got, integer_boundary(-6, 21, |k| k >= t), "t {t} guess {guess}");
                assert!(calls.get() <= 10, "t {t} guess {guess}: {} evaluations", calls.get());
            }
        }
        for d in [0i64, 1, 2, 5] {
            let calls = Cell::new(0);
            let t = 1i64 << 40;
            let got = gallop_boundary(-(1 << 61), 1 << 61, t + d, |k| {
                calls.set(calls.get() + 1);
                k >= t
            });
            assert_eq!(got, (t - 1, t));
            assert!(calls.get() <= 8, "guess {d} off: {} evaluations", calls.get());
        }
        assert_eq!(gallop_boundary(3, 4, 0, |_| unreachable!()), (3, 4));
    }
}
