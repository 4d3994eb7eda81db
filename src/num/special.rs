//! Certified special functions: the standard normal distribution function Φ and its complement
//! Φ̄ = 1 − Φ, from MPFR's correctly rounded erfc [MPFR] (each computed directly, so a tail of 10⁻⁴⁰⁰ keeps
//! its relative accuracy), and its inverse by certified bisection.

use crate::num::Interval;
use rug::float::Round;
use rug::Float;

/// erfc at one end, rounded in direction `r` (erfc is decreasing: the caller passes the end that gives
/// the bound it wants).
fn erfc_round(x: &Float, prec: u32, r: Round) -> Float {
    let mut y = Float::with_val(prec, x);
    y.erfc_round(r);
    y
}

/// Φ̄(z) = P[N(0, 1) ≥ z] = erfc(z/√2)/2, decreasing in z. MPFR's erfc is slow beyond z ≈ 4 (over
/// 100 µs at 64 bits for z = 8), so there the Laplace continued fraction of the Mills ratio is used
/// ([AS64, eq. 26.2.14]): Φ̄(x) = φ(x)·R(x), R(x) = 1/(x + 1/(x + 2/(x + 3/(x + …)))), whose successive
/// convergents lie on alternate sides of R(x) (a continued fraction with positive terms), so two of them
/// evaluated in interval arithmetic enclose it.
pub fn normal_sf(z: &Interval) -> Interval {
    let p = z.prec();
    let lo = sf_at(z.hi(), p, false);
    let hi = sf_at(z.lo(), p, true);
    Interval::new(lo.min(&hi), hi)
}

/// Φ̄ at the point x, rounded down (`up` false) or up.
fn sf_at(x: &Float, p: u32, up: bool) -> Float {
    if *x > CF_FROM && cf_terms(x.to_f64(), p + 16) <= CF_MAX_TERMS {
        let v = sf_cf(x, p);
        let (lo, hi) = v.into_parts();
        return if up { hi } else { lo };
    }
    if *x < -CF_FROM && cf_terms(-x.to_f64(), p + 16) <= CF_MAX_TERMS {
        // Φ̄(x) = 1 − Φ̄(−x), the subtrahend tiny
        let v = Interval::one(p).sub(&sf_cf(&Float::with_val(p, -x), p));
        let (lo, hi) = v.into_parts();
        return if up { hi } else { lo };
    }
    // erfc(x/√2)/2: x/√2 enclosed, erfc decreasing
    let t = Interval::from_float(x, p).div(&Interval::from_i64(2, p).sqrt());
    let mut y = if up { erfc_round(t.lo(), p, Round::Up) } else { erfc_round(t.hi(), p, Round::Down) };
    // halving is exact in binary floating point (MPFR's exponent range is far beyond these values)
    y /= 2u32;
    y
}

/// Where the continued fraction may take over from MPFR's erfc.
const CF_FROM: f64 = 4.0;

/// Most terms the continued fraction is used with: beyond, MPFR's erfc (100–500 µs) is the cheaper (a
/// term costs an interval division, ~1 µs at 200 bits).
const CF_MAX_TERMS: u32 = 150;

/// Planning: the terms the continued fraction of the Mills ratio needs at x for 2^-p relative accuracy,
/// fitted to the exact counts (mpmath, x from 4 to 50, p from 100 to 400 bits: within 25% above):
/// 0.136 p²/x² + 0.15 p + 8.
fn cf_terms(x: f64, p: u32) -> u32 {
    let p = p as f64;
    let n = 0.136 * p * p / (x * x) + 0.15 * p + 8.0;
    if n.is_finite() {
        n.min(1e6) as u32
    } else {
        u32::MAX
    }
}

/// Φ̄(x) for x > 4 by the continued fraction (enclosure).
fn sf_cf(x: &Float, p: u32) -> Interval {
    let w = p + 16;
    let xi = Interval::from_float(x, w);
    // φ(x) = e^{−x²/2}/√(2π)
    let two_pi = Interval::pi(w).mul(&Interval::from_i64(2, w));
    let phi = xi.mul(&xi).mul_rational(&rug::Rational::from((-1, 2))).exp().div(&two_pi.sqrt());
    let conv = |n: u32| {
        let mut v = xi.clone();
        for k in (1..=n).rev() {
            v = xi.add(&Interval::from_i64(k as i64, w).div(&v));
        }
        Interval::one(w).div(&v)
    };
    // successive approximants bracket the ratio; start at the fitted count, grow by half if short
    let mut n = cf_terms(x.to_f64(), w).clamp(8, 4096);
    loop {
        let (a, b) = (conv(n), conv(n + 1));
        let r = a.hull(&b);
        let rel = Float::with_val(64, r.width() / r.lo());
        if rel < Float::with_val(64, Float::i_exp(1, -(p as i32))) || n >= 4096 {
            return phi.mul(&r);
        }
        n = (n + n / 2).min(4096);
    }
}

/// Φ̄(z) in f64 (planning only, not certified).
pub fn normal_sf_f64(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    Float::with_val(64, z / std::f64::consts::SQRT_2).erfc().to_f64() / 2.0
}

/// Φ(z) = P[N(0, 1) < z] = Φ̄(−z).
pub fn normal_cdf(z: &Interval) -> Interval {
    normal_sf(&z.neg())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Rational;

    /// Φ̄ at points where mpmath (60 digits, `mp.ncdf(-z)`; scripts/reference/normal_tails.py and its
    /// output normal_tails.txt) gives the values below.
    #[test]
    fn normal_tails_enclose_mpmath_values() {
        let p = 200;
        let cases = [
            ("0", "0.5"),
            ("1", "0.158655253931457051414767454367962077522087033273395609012606"),
            ("10", "7.61985302416052606597334325159930836350403327795696057803536e-24"),
            ("-2", "0.977249868051820792799717362833466562528223776298321566016334"),
            ("40", "3.65589354091502970374898580268828366505394461997737262498776e-350"),
            // both sides of the switch to the continued fraction at z = 4
            ("4.5", "0.0000033976731247300604016874491908715235121047650868486483385539"),
            ("-5", "0.999999713348428120806088326247667125354646145576986388110427"),
            ("4.0000001", "0.0000316712284501000213694163014863222695834443591872403872344523"),
        ];
        for (z, want) in cases {
            let zi = Interval::from_rational(&crate::num::parse_rational(z).unwrap(), p);
            let v = normal_sf(&zi);
            let w = Float::with_val(p, Float::parse(want).unwrap());
            let rel = Float::with_val(p, &w * 1e-55f64).abs();
            assert!(v.widen(&rel).contains(&w), "z={z}: {v} vs {want}");
            assert!(Float::with_val(p, v.width() / &w).to_f64() < 1e-45, "z={z}: width {}", v.width());
        }
        // Φ(z) + Φ̄(z) = 1, Φ(−z) = Φ̄(z)
        let z = Interval::from_rational(&Rational::from((7, 3)), p);
        let s = normal_cdf(&z).add(&normal_sf(&z));
        assert!(s.contains(&Float::with_val(p, 1)));
        assert!(normal_cdf(&z.neg()).overlaps(&normal_sf(&z)));
    }
}
