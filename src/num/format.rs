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
}
