//! Decimal output with directed rounding: lower ends round down, upper ends round up, so a printed
//! bracket still contains the true value.

use rug::float::Round;
use rug::Float;

/// `x` rounded toward −∞ to `digits` significant digits, in plain or scientific decimal notation.
pub fn fmt_down(x: &Float, digits: usize) -> String {
    fmt_dir(x, digits, Round::Down)
}

/// `x` rounded toward +∞ to `digits` significant digits.
pub fn fmt_up(x: &Float, digits: usize) -> String {
    fmt_dir(x, digits, Round::Up)
}

/// `x` rounded to nearest.
pub fn fmt_nearest(x: &Float, digits: usize) -> String {
    fmt_dir(x, digits, Round::Nearest)
}

fn fmt_dir(x: &Float, digits: usize, r: Round) -> String {
    if x.is_zero() {
        return "0".to_string();
    }
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x.is_sign_negative() { "-inf".into() } else { "inf".into() };
    }
    let (neg, ds, exp) = x.to_sign_string_exp_round(10, Some(digits), r);
    let exp = exp.unwrap_or(0) as i64; // value = 0.ds × 10^exp
    let ds = ds.trim_end_matches('0');
    let ds = if ds.is_empty() { "0" } else { ds };
    let sign = if neg { "-" } else { "" };
    let n = ds.len() as i64;
    if (-8..=21).contains(&exp) {
        if exp <= 0 {
            format!("{sign}0.{}{}", "0".repeat((-exp) as usize), ds)
        } else if exp >= n {
            format!("{sign}{}{}", ds, "0".repeat((exp - n) as usize))
        } else {
            format!("{sign}{}.{}", &ds[..exp as usize], &ds[exp as usize..])
        }
    } else {
        let (first, rest) = ds.split_at(1);
        let e = exp - 1;
        if rest.is_empty() {
            format!("{sign}{first}e{e}")
        } else {
            format!("{sign}{first}.{rest}e{e}")
        }
    }
}

/// The significant digits a printed bracket supports: the largest d with (hi − lo) ≤ 10^−d·max(|lo|, |hi|),
/// decided exactly on the decimals as printed (0 for ends that are not finite numbers or that straddle 0).
/// Equal ends support every digit: `u32::MAX`.
pub fn digits_between(lo: &str, hi: &str) -> u32 {
    use rug::ops::Pow;
    // (the relative width does not change when both ends are scaled by one power of ten: the larger exponent
    // is taken out, so ends past the parser's exponent range, such as δ ≈ 1e-579063, are compared too)
    // (an end that does not parse, its exponent included, supports no digits)
    let split = |s: &str| -> Option<(String, i64)> {
        let s = s.trim();
        match s.find(['e', 'E']) {
            Some(i) => Some((s[..i].to_string(), s[i + 1..].parse().ok()?)),
            None => Some((s.to_string(), 0)),
        }
    };
    let (Some((lm, le)), Some((hm, he))) = (split(lo), split(hi)) else {
        return 0;
    };
    let top = le.max(he);
    let (Some(ls), Some(hs)) = (le.checked_sub(top), he.checked_sub(top)) else {
        return 0;
    };
    let (Ok(l), Ok(h)) = (crate::num::parse_rational(&format!("{lm}e{ls}")), crate::num::parse_rational(&format!("{hm}e{hs}"))) else {
        return 0;
    };
    if l == h {
        return u32::MAX;
    }
    let w = rug::Rational::from(&h - &l).abs();
    let m = if l.clone().abs() > h.clone().abs() { l.abs() } else { h.abs() };
    // 10^d ≤ m / w, d as large as possible: a guess from the magnitudes, then corrected exactly
    let ratio = m / w;
    let fits = |d: u32| rug::Integer::from(10).pow(d) <= ratio;
    let guess = Float::with_val(64, &ratio).log10().to_f64().floor().clamp(0.0, 1e6) as u32;
    let mut d = guess.saturating_sub(1);
    if !fits(d) {
        return 0;
    }
    while d < 1_000_000 && fits(d + 1) {
        d += 1;
    }
    d
}

/// A rational for messages: its exact fraction when short, else 6 significant digits.
pub fn fmt_rational(q: &rug::Rational) -> String {
    let s = q.to_string();
    if s.len() <= 24 {
        s
    } else {
        fmt_nearest(&Float::with_val(64, q), 6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ends past the parser's exponent range (|e| ≤ 100000) are compared as any others: δ of 14,070 DP-SGD
    /// steps at ε = 1e5 is near 2.36e-579063, and its 22-digit bracket printed 0 digits.
    #[test]
    fn digits_between_ends_far_below_the_parsers_exponent_range() {
        let lo = "2.357573587015105753180855951047776097001e-579063";
        let hi = "2.357573587015105753181015350521045214239e-579063";
        assert_eq!(digits_between(lo, hi), 22);
        assert_eq!(digits_between("0.2357573587015105753180855951047776097001", "0.2357573587015105753181015350521045214239"), 22);
        // the exponents differ: 9.9e-200001 and 1.0e-200000 are 1/100 apart relative to the larger
        assert_eq!(digits_between("9.9e-200001", "1.0e-200000"), 2);
        assert_eq!(digits_between("0", "1e-579063"), 0);
        assert_eq!(digits_between("1e-600000", "1e-5"), 0);
    }

    /// An end that does not parse supports no digits: before, a bad exponent counted as e0, so "1.5e" and
    /// "1.5ex" against 1.5000001 printed 7 digits.
    #[test]
    fn digits_between_ends_that_do_not_parse() {
        assert_eq!(digits_between("1.5", "1.5000001"), 7);
        assert_eq!(digits_between("1.5e", "1.5000001"), 0);
        assert_eq!(digits_between("1.5ex", "1.5000001"), 0);
        assert_eq!(digits_between("1.5", "1.5000001e"), 0);
        assert_eq!(digits_between("1.5e99999999999999999999", "1.5000001e99999999999999999999"), 0);
        assert_eq!(digits_between("1e-9223372036854775808", "1e9223372036854775807"), 0);
        assert_eq!(digits_between("abc", "1"), 0);
    }

    #[test]
    fn directed_rounding_brackets() {
        let x = Float::with_val(200, 2) / 3u32; // 0.666…
        assert_eq!(fmt_down(&x, 5), "0.66666");
        assert_eq!(fmt_up(&x, 5), "0.66667");
        let y = Float::with_val(200, 1234.5f64);
        assert_eq!(fmt_nearest(&y, 10), "1234.5");
        let z = Float::with_val(200, 1e-12f64);
        assert!(fmt_nearest(&z, 3).starts_with("1e-12") || fmt_nearest(&z, 3).starts_with("9.99"));
        let w = -Float::with_val(200, 10.125f64);
        assert_eq!(fmt_nearest(&w, 8), "-10.125");
    }

    /// Digits supported by printed ends, decided exactly: 0.2211992 vs 0.2211993 are 1e-7 apart, 4.5e-7
    /// relative (6 digits); a width of exactly 10^-d relative supports d digits.
    #[test]
    fn digits_between_printed_ends() {
        assert_eq!(digits_between("0.2211992", "0.2211993"), 6);
        assert_eq!(digits_between("1", "1.00001"), 5);
        assert_eq!(digits_between("0.99999", "1"), 5);
        assert_eq!(digits_between("-2", "-1.98"), 2);
        assert_eq!(digits_between("1e-300", "1.5e-300"), 0);
        assert_eq!(digits_between("-1", "1"), 0);
        assert_eq!(digits_between("0", "1e-20"), 0);
        assert_eq!(digits_between("inf", "inf"), 0);
        assert_eq!(digits_between("3.25", "3.25"), u32::MAX);
    }
}

/// Random floats (exponents up to ±2^16, precisions 2–4000 bits, mantissas with long runs of nines in
/// decimal after rounding) and digit counts 1–60: the directed outputs, parsed back exactly, bracket x and are
/// adjacent n-digit decimals (or equal to x), and the nearest one lies between them.
#[cfg(test)]
mod random_tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::num::xorshift::gen::{case, Range};
    use rug::ops::Pow;

    #[test]
    fn directed_output_brackets_and_is_tight() {
        for i in 0..crate::num::test_cases(300) {
            let mut g = case(0xf0f, i);
            let p = g.prec();
            let x = g.float(p, Range::Moderate) << ((g.below(1 << 17) as i32 - (1 << 16)) * (g.below(2) as i32));
            let n = 1 + g.below(60) as usize;
            let ctx = || format!("case {i}: x = {x:?} ({p} bits), {n} digits");
            let (ds, us, ns) = (fmt_down(&x, n), fmt_up(&x, n), fmt_nearest(&x, n));
            let parse = |s: &str| parse_rational(s).unwrap_or_else(|e| panic!("{e}: {}", ctx()));
            let (d, u, m) = (parse(&ds), parse(&us), parse(&ns));
            let xq = x.to_rational().unwrap();
            assert!(d <= xq && xq <= u && d <= m && m <= u, "{ds} ≤ x ≤ {us} (nearest {ns}) fails: {}", ctx());
            // adjacent n-digit decimals: u − d is one unit in the n-th digit, at most |x|·10^(1−n)
            let unit = xq.clone().abs() / rug::Integer::from(10).pow(n as u32 - 1);
            assert!((d == xq && u == xq) || (d != u && u.clone() - &d <= unit), "{ds}, {us} not tight: {}", ctx());
            for s in [&ds, &us, &ns] {
                let digits = s.trim_start_matches('-').split(['e']).next().unwrap().replace('.', "");
                let sig = digits.trim_matches('0').len();
                assert!(sig <= n.max(1), "{s} has more than {n} significant digits: {}", ctx());
            }
        }
        assert_eq!((fmt_down(&Float::new(8), 5), fmt_up(&Float::with_val(8, f64::NAN), 5)), ("0".to_string(), "NaN".to_string()));
        assert_eq!(fmt_up(&Float::with_val(8, f64::NEG_INFINITY), 5), "-inf");
    }
}
