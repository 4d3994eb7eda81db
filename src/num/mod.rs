//! Numeric foundations: certified intervals over MPFR, exact decimal parsing, directed decimal output.
pub(crate) mod arith;
pub(crate) mod ball;
pub(crate) mod boundary;
pub mod cancel;
pub(crate) mod cinterval;
pub(crate) mod convolve;
pub(crate) mod convolve_f64;
pub(crate) mod dd;
pub(crate) mod fixed_phases;
pub mod format;
pub(crate) mod interval;
pub mod parse;
pub(crate) mod progress;
#[cfg(test)]
pub(crate) mod reference;
pub(crate) mod special;
#[cfg(test)]
pub(crate) mod xorshift;

pub use arith::Arith;
pub use format::{fmt_down, fmt_up};
pub use interval::Interval;
pub use parse::{parse_positive_rational, parse_rational};

/// Default working precision in bits (docs/design.md: default ≥ 256 bits).
pub const DEFAULT_PREC: u32 = 256;

/// Smallest precision accepted on the command line.
pub const MIN_PREC: u32 = 53;
/// Largest precision accepted on the command line.
pub const MAX_PREC: u32 = 65536;

/// The largest g with a, b ∈ gℤ for positive rationals: gcd(a/b, c/d) = gcd(ad, cb)/(bd) — the common
/// lattice step of two laws' loss lattices.
pub fn rational_gcd(x: &rug::Rational, y: &rug::Rational) -> rug::Rational {
    let num = rug::Integer::from(x.numer() * y.denom()).gcd(&rug::Integer::from(y.numer() * x.denom()));
    rug::Rational::from((num, rug::Integer::from(x.denom() * y.denom())))
}

/// Bisection of [a, b] for a decreasing quantity: `above(x)` says it is still above the target at x (then
/// x becomes the new a). Stops at adjacent doubles — re-testing an end point would reproduce its verdict,
/// nothing moves any more — or after `iters` steps; returns the final (a, b).
pub fn bisect_decreasing(mut a: f64, mut b: f64, iters: usize, above: impl Fn(f64) -> bool) -> (f64, f64) {
    for _ in 0..iters {
        let m = 0.5 * (a + b);
        if m == a || m == b {
            break;
        }
        if above(m) {
            a = m;
        } else {
            b = m;
        }
    }
    (a, b)
}

/// log2 of a positive rational without overflow, in f64 (planning only): from the bit lengths of its
/// numerator and denominator and their leading 60 bits.
pub fn log2_of(q: &rug::Rational) -> f64 {
    let n = q.numer();
    let d = q.denom();
    let (nb, db) = (n.significant_bits() as i64, d.significant_bits() as i64);
    let shift = (nb - 60).max(0) - (db - 60).max(0);
    let nf = (n.clone() >> ((nb - 60).max(0) as u32)).to_f64();
    let df = (d.clone() >> ((db - 60).max(0) as u32)).to_f64();
    (nf / df).log2() + shift as f64
}

/// The test multiplier (as FLINT's `flint_test_multiplier()`): the factor on the case counts of the
/// random-input tests, from the environment variable `TIGHTDP_TEST_MULTIPLIER` (1 by default, what a
/// developer runs; 10 in the heavy tier, `./scripts/test.sh --heavy`). Not read outside tests.
pub fn test_multiplier() -> u64 {
    std::env::var("TIGHTDP_TEST_MULTIPLIER").ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|m| *m >= 1).unwrap_or(1)
}

/// `base` cases times the [`test_multiplier`].
pub fn test_cases(base: u64) -> u64 {
    base.saturating_mul(test_multiplier())
}

#[cfg(test)]
mod tests {
    #[test]
    fn rational_gcd_is_the_common_step() {
        let q = |s: &str| super::parse_rational(s).unwrap();
        assert_eq!(super::rational_gcd(&q("1/2"), &q("1/3")), q("1/6"));
        assert_eq!(super::rational_gcd(&q("3/4"), &q("9/8")), q("3/8"));
        assert_eq!(super::rational_gcd(&q("2"), &q("2")), q("2"));
    }
}
