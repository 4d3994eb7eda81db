//! A fixed-count floating-point bisection, reproduced bit for bit with far fewer evaluations of its
//! predicate.
//!
//! `naive` is the loop being reproduced: `iters` times `mid = ½(lo + hi)`, `lo = mid` if `below(mid)`
//! else `hi = mid`, then `½(lo + hi)`. When `below` is monotone (true up to some float, false from
//! there on), every comparison the loop makes is decided by where `below` turns false: the first
//! float t of [lo, hi] with `below(t)` false. `bisection` finds t by a search in float order (two
//! evaluations from an exact guess, some 90 at worst) and then needs no more evaluations: either the
//! loop certainly settles within its steps on the pair of adjacent floats around t, whose midpoint it
//! returns, or the steps are replayed with the comparison `mid < t`.

/// The reference loop (the semantics of `bisection`).
pub fn naive(mut lo: f64, mut hi: f64, iters: usize, below: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..iters {
        let mid = 0.5 * (lo + hi);
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Bit for bit what `naive(lo, hi, iters, below)` returns, for a monotone `below` (see the module
/// comment; finite lo ≤ hi, else `naive` itself runs). `guess`: where `below` probably turns false
/// (any value; it only saves evaluations).
pub fn bisection(lo: f64, hi: f64, iters: usize, below: impl Fn(f64) -> bool, guess: f64) -> f64 {
    if !(lo <= hi && lo.is_finite() && hi.is_finite()) || guess.is_nan() {
        return naive(lo, hi, iters, below);
    }
    let t = turning_key(lo, hi, &below, guess);
    settled(lo, hi, iters, t).unwrap_or_else(|| replay(lo, hi, iters, t))
}

/// Floats in order ↔ u64 in order (−0 just below +0; no NaN).
fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn unkey(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// The smallest key in [key(lo), key(hi)] where `below` is false, key(hi) + 1 if none: galloping
/// from the guess (steps of 1, 2, 4, … keys, two evaluations when the guess is right), after 2^24
/// keys over the rest of [lo, hi], then halving the keys between one where it holds and one where it
/// does not.
fn turning_key(lo: f64, hi: f64, below: &impl Fn(f64) -> bool, guess: f64) -> u64 {
    let (klo, khi) = (key(lo), key(hi));
    let below_k = |k: u64| below(unkey(k));
    let far = 1u64 << 24;
    let g = key(guess.clamp(lo, hi));
    if below_k(g) {
        let (mut a, mut step) = (g, 1u64);
        loop {
            let b = if step > far { khi } else { a.saturating_add(step).min(khi) };
            if !below_k(b) {
                return first_false(a, b, &below_k);
            }
            if b == khi {
                return khi + 1;
            }
            (a, step) = (b, step * 2);
        }
    } else {
        let (mut b, mut step) = (g, 1u64);
        loop {
            if b == klo {
                return klo;
            }
            let a = if step > far { klo } else { b.saturating_sub(step).max(klo) };
            if below_k(a) {
                return first_false(a, b, &below_k);
            }
            (b, step) = (a, step * 2);
        }
    }
}

/// The first key in (a, b] where `below` is false, given that it holds at a and not at b.
fn first_false(mut a: u64, mut b: u64, below: &impl Fn(u64) -> bool) -> u64 {
    while b - a > 1 {
        let m = a + (b - a) / 2;
        if below(m) {
            a = m;
        } else {
            b = m;
        }
    }
    b
}

/// The loop's steps with the comparison `mid < t` (in keys), stopping once they no longer move.
fn replay(mut lo: f64, mut hi: f64, iters: usize, t: u64) -> f64 {
    for _ in 0..iters {
        let mid = 0.5 * (lo + hi);
        let (l, h) = if key(mid) < t { (mid, hi) } else { (lo, mid) };
        if l.to_bits() == lo.to_bits() && h.to_bits() == hi.to_bits() {
            break; // a fixed point: every further step is the same
        }
        (lo, hi) = (l, h);
    }
    0.5 * (lo + hi)
}

/// The loop's answer without replaying it, when it certainly settles within `iters` steps; None when
/// that is not certain (the turning point near 0 or very small against the bracket).
///
/// Let τ be the float the interval closes on (t; lo or hi when `below` is false / true throughout).
/// The interval always contains τ and keeps a float where `below` holds (or lo) below t and one where
/// it does not (or hi) at or above it. While a float lies strictly between lo and hi the rounded
/// midpoint does too, so the loop stops moving exactly when lo and hi are adjacent floats, and then
/// they are (pred t, t) — or (lo, succ lo), (pred hi, hi) at the ends, where one more step may close
/// the pair onto lo or hi; in every case the answer is ½(a + b) of that pair (a point the pair's
/// midpoint rounds to). It gets there in time: a step leaves a width at most w/2 + |c|·2^−53 + 2^−1075
/// with |c| ≤ |τ| + w, so after log2(w₀/|τ|) + 52 steps the width is below |τ|·2^−49, which holds at
/// most 33 floats (|τ| ≥ 2^−900: spacing ≥ |τ|·2^−54 there), and each further step drops one.
fn settled(lo: f64, hi: f64, iters: usize, t: u64) -> Option<f64> {
    let (klo, khi) = (key(lo), key(hi));
    let (a, b) = if t <= klo {
        (lo, unkey(klo + 1))
    } else if t > khi {
        (unkey(khi - 1), hi)
    } else {
        (unkey(t - 1), unkey(t))
    };
    let tau = if t <= klo {
        lo
    } else if t > khi {
        hi
    } else {
        b
    };
    let steps = ((hi - lo) / tau.abs()).log2() + 90.0;
    let clear = klo < khi && tau.abs() >= 2f64.powi(-900) && a < b && steps <= iters as f64;
    clear.then_some(0.5 * (a + b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Monotone predicates: true below a threshold (also with plateaus: a coarse step function).
    fn check(lo: f64, hi: f64, iters: usize, thr: f64, guess: f64) {
        let below = |m: f64| m < thr;
        let want = naive(lo, hi, iters, below);
        let got = bisection(lo, hi, iters, below, guess);
        assert_eq!(want.to_bits(), got.to_bits(), "lo {lo:e} hi {hi:e} iters {iters} thr {thr:e} guess {guess:e}: {want:e} vs {got:e}");
    }

    #[test]
    fn reproduces_the_loop_bit_for_bit() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for case in 0..crate::num::test_cases(2_000) as usize {
            let s: f64 = 10f64.powf(rng.gen_range(-3.0..6.0));
            let (lo, hi) = match case % 4 {
                0 => (-s, s),
                1 => (-s * rng.gen_range(0.1..3.0), s),
                2 => (rng.gen_range(0.0..s), s * 2.0),
                _ => (-s * 2.0, -rng.gen_range(0.0..s)),
            };
            // thresholds anywhere, near 0, at the ends and outside, tiny and subnormal
            let thr = match case % 7 {
                0 => rng.gen_range(lo..=hi),
                1 => rng.gen_range(-1e-15..1e-15),
                2 => lo,
                3 => hi,
                4 => [f64::NEG_INFINITY, f64::INFINITY, 0.0, -0.0, 5e-324, -5e-324][rng.gen_range(0..6)],
                5 => rng.gen_range(-1.0..1.0) * 10f64.powi(-rng.gen_range(20..320)),
                _ => lo + (hi - lo) * rng.gen_range(0.0..1.0) * 1e-12,
            };
            let guess = match case % 3 {
                0 => thr,
                1 => rng.gen_range(lo..=hi),
                _ => f64::NEG_INFINITY,
            };
            let iters = [200, 60, 10, 1100][case % 4];
            check(lo, hi, iters, thr, guess);
        }
    }

    #[test]
    fn the_settled_pair_is_where_the_loop_ends() {
        // `settled` on its own (without the replay behind it), where it answers
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut answered = 0;
        let cases = crate::num::test_cases(2_000) as usize;
        for case in 0..cases {
            let s: f64 = 10f64.powf(rng.gen_range(-3.0..6.0));
            let (lo, hi) = if case % 2 == 0 { (-s, s) } else { (-s * rng.gen_range(0.1..3.0), s * rng.gen_range(0.1..3.0)) };
            let thr = match case % 4 {
                0 => rng.gen_range(lo..=hi),
                1 => rng.gen_range(-1.0..1.0) * 10f64.powi(-rng.gen_range(5..40)),
                2 => lo - 1.0,
                _ => hi + 1.0,
            };
            let below = |m: f64| m < thr;
            let t = turning_key(lo, hi, &below, 0.0);
            if let Some(v) = settled(lo, hi, 200, t) {
                answered += 1;
                assert_eq!(v.to_bits(), naive(lo, hi, 200, below).to_bits(), "lo {lo:e} hi {hi:e} thr {thr:e}");
            }
        }
        assert!(4 * answered > 3 * cases, "{answered} of {cases}");
    }

    #[test]
    fn step_functions_and_degenerate_brackets() {
        // a predicate through a coarse monotone function (plateaus), like a sum in floating point
        let f = |m: f64| ((m * 1e3).floor() / 1e3 + 0.1234).max(0.0);
        for target in [0.0, 0.05, 0.1234, 0.5, 3.0, 1e9] {
            for (lo, hi) in [(-10.0, 10.0), (-1.0, 3.0), (2.0, 2.0), (0.0, 0.0)] {
                let below = |m: f64| f(m) < target;
                for guess in [0.0, -0.12, 1e300, f64::INFINITY] {
                    assert_eq!(naive(lo, hi, 200, below).to_bits(), bisection(lo, hi, 200, below, guess).to_bits());
                }
            }
        }
    }
}
