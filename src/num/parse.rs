//! Exact parsing of decimal strings and fractions into `rug::Rational`.
//!
//! Accepted forms: `3.65`, `-0.5`, `1e-11`, `2.5E3`, `.5`, `104/4099`, `7`, and `a/b` where a and b
//! are themselves decimals (e.g. `0.5/3`). No floating point is involved: `"0.1"` is exactly 1/10.

use crate::error::Fallible;
use crate::{err, fallible};
use rug::ops::Pow;
use rug::{Integer, Rational};

/// Parse a decimal or fraction exactly. Errors name the offending text.
pub fn parse_rational(s: &str) -> Fallible<Rational> {
    let t = s.trim();
    if t.is_empty() {
        return fallible!(Input, "empty number");
    }
    if let Some((a, b)) = t.split_once('/') {
        let num = parse_decimal(a.trim()).map_err(|e| err!(Input, "invalid number '{t}': {e}"))?;
        let den = parse_decimal(b.trim()).map_err(|e| err!(Input, "invalid number '{t}': {e}"))?;
        if den == 0 {
            return fallible!(Input, "invalid number '{t}': zero denominator");
        }
        return Ok(num / den);
    }
    parse_decimal(t).map_err(|e| err!(Input, "invalid number '{t}': {e}"))
}

/// Largest count accepted in a data file (a person or unit count, a cell of a table): 10¹⁵, far above
/// any Census count and small enough that a count plus noise, or a sum of a few counts, stays in i64.
pub const COUNT_FIELD_MAX: i64 = 1_000_000_000_000_000;

/// Parse a non-negative integer count field; the message says whether the text is not an integer, is
/// negative, or is an integer too large to be a count (`what` names the field, e.g. "count").
pub fn parse_count_field(s: &str, what: &str) -> Fallible<i64> {
    let t = s.trim();
    let digits = t.strip_prefix('+').unwrap_or(t);
    let neg = digits.starts_with('-');
    let body = digits.strip_prefix('-').unwrap_or(digits);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return fallible!(Input, "{what} '{t}' is not an integer");
    }
    if neg && body.bytes().any(|b| b != b'0') {
        return fallible!(Input, "{what} {t} is negative");
    }
    match body.parse::<i64>() {
        Ok(v) if v <= COUNT_FIELD_MAX => Ok(v),
        _ => Err(err!(Input, "{what} {t} is too large (at most {COUNT_FIELD_MAX})")),
    }
}

/// Parse and require a strictly positive value.
pub fn parse_positive_rational(s: &str, what: &str) -> Fallible<Rational> {
    let q = parse_rational(s).map_err(|e| err!(Input, "{what}: {e}"))?;
    if q <= 0 {
        return fallible!(Input, "{what} must be positive, got '{}'", s.trim());
    }
    Ok(q)
}

fn parse_decimal(t: &str) -> Fallible<Rational> {
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => {
            let e: i64 = t[i + 1..].parse().map_err(|_| err!(Input, "bad exponent"))?;
            (&t[..i], e)
        }
        None => (t, 0i64),
    };
    if exp.abs() > 100_000 {
        return fallible!(Input, "exponent out of range");
    }
    let (neg, body) = match mant.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, mant.strip_prefix('+').unwrap_or(mant)),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((a, b)) => (a, b),
        None => (body, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return fallible!(Input, "no digits");
    }
    if !int_part.chars().all(|c| c.is_ascii_digit()) || !frac_part.chars().all(|c| c.is_ascii_digit()) {
        return fallible!(Input, "not a decimal number");
    }
    let digits = format!("{int_part}{frac_part}");
    let mut n = Integer::from_str_radix(if digits.is_empty() { "0" } else { &digits }, 10).map_err(|e| err!(Input, "{e}"))?;
    if neg {
        n = -n;
    }
    let scale = exp - frac_part.len() as i64;
    let ten = Integer::from(10);
    let q = if scale >= 0 { Rational::from(n * ten.pow(scale as u32)) } else { Rational::from((n, ten.pow((-scale) as u32))) };
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_fields_say_what_is_wrong() {
        assert_eq!(parse_count_field(" 42 ", "count"), Ok(42));
        assert_eq!(parse_count_field("-0", "count"), Ok(0));
        assert!(parse_count_field("4.2", "count").unwrap_err().message().contains("not an integer"));
        assert!(parse_count_field("", "count").unwrap_err().message().contains("not an integer"));
        assert!(parse_count_field("-3", "count").unwrap_err().message().contains("negative"));
        let e = parse_count_field("18446744073709551615", "count").unwrap_err();
        assert!(e.message().contains("too large"), "{e}");
        assert!(parse_count_field("1000000000000000", "count").is_ok());
        assert!(parse_count_field("1000000000000001", "count").unwrap_err().message().contains("too large"));
        // every refusal of a parser is bad input
        for bad in
            [parse_count_field("x", "count").unwrap_err(), parse_rational("1/0").unwrap_err(), parse_rational("1e999999").unwrap_err()]
        {
            assert_eq!(bad.kind(), crate::error::ErrorKind::Input, "{bad}");
        }
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_rational("3.65").unwrap(), Rational::from((365, 100)));
        assert_eq!(parse_rational("0.1").unwrap(), Rational::from((1, 10)));
        assert_eq!(parse_rational("1e-11").unwrap(), Rational::from((1, 100_000_000_000i64)));
        assert_eq!(parse_rational("-2.5E1").unwrap(), Rational::from(-25));
        assert_eq!(parse_rational(".5").unwrap(), Rational::from((1, 2)));
        assert_eq!(parse_rational("104/4099").unwrap(), Rational::from((104, 4099)));
        assert_eq!(parse_rational(" 7 ").unwrap(), Rational::from(7));
    }

    #[test]
    fn garbage_is_rejected() {
        for bad in ["", "abc", "1.2.3", "NaN", "inf", "1/0", "1e", "--1", "1,5", "."] {
            assert!(parse_rational(bad).is_err(), "accepted {bad:?}");
        }
        assert!(parse_positive_rational("0", "sigma2").is_err());
        assert!(parse_positive_rational("-1", "sigma2").is_err());
    }
}

/// Random round trips (m·10^e written in plain, scientific and fraction forms) and random strings over the
/// grammar's alphabet, accepted exactly when a separate recognizer of the documented grammar accepts them:
/// `[+|-](digits[.digits] | .digits)[(e|E)[+|-]digits]`, |exponent| ≤ 100000, or `a/b` of two such with b ≠ 0.
#[cfg(test)]
mod random_tests {
    use super::*;
    use crate::num::xorshift::gen::case;

    fn pow10(e: i64) -> Rational {
        let t = Rational::from(Integer::from(10).pow(e.unsigned_abs() as u32));
        if e >= 0 {
            t
        } else {
            t.recip()
        }
    }

    #[test]
    fn decimal_forms_round_trip() {
        for i in 0..crate::num::test_cases(500) {
            let mut g = case(0x9a5, i);
            let nd = 1 + g.below(40) as usize;
            let digits: String = (0..nd).map(|_| char::from(b'0' + g.below(10) as u8)).collect();
            let m = Integer::from_str_radix(&digits, 10).unwrap();
            let neg = g.chance(1, 2);
            let e = g.below(801) as i64 - 400;
            let want = Rational::from(if neg { -m.clone() } else { m.clone() }) * pow10(e);
            let sign = if neg {
                "-"
            } else if g.chance(1, 4) {
                "+"
            } else {
                ""
            };
            // digits with the point k places from the right, times 10^(e + k)
            let k = g.below(nd as u64 + 1) as usize;
            let (a, b) = digits.split_at(nd - k);
            let body = if b.is_empty() { a.to_string() } else { format!("{a}.{b}") };
            let s = match g.below(3) {
                0 => format!("{sign}{body}e{}", e + k as i64),
                1 => format!("{sign}{body}E{:+}", e + k as i64),
                _ => {
                    let den = 1 + g.below(1 << 40);
                    let s = format!(" {sign}{body}e{} / {den} ", e + k as i64);
                    let got = parse_rational(&s).unwrap_or_else(|err| panic!("{s:?}: {err} (case {i})"));
                    assert_eq!(got, want.clone() / den, "{s:?} (case {i})");
                    continue;
                }
            };
            assert_eq!(parse_rational(&s).unwrap_or_else(|err| panic!("{s:?}: {err} (case {i})")), want, "{s:?} (case {i})");
        }
    }

    /// The documented grammar of one decimal, written separately from the parser.
    fn grammar_decimal(t: &str) -> Option<bool> {
        // Some(is_zero) when t is a decimal
        let (mant, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        if let Some(x) = exp {
            let d = x.strip_prefix(['+', '-']).unwrap_or(x);
            if d.is_empty()
                || !d.bytes().all(|b| b.is_ascii_digit())
                || d.trim_start_matches('0').len() > 6
                || d.parse::<i64>().ok()? > 100_000
            {
                return None;
            }
        }
        let body = mant.strip_prefix(['+', '-']).unwrap_or(mant);
        let (a, b) = body.split_once('.').unwrap_or((body, ""));
        if (a.is_empty() && b.is_empty()) || !a.bytes().all(|c| c.is_ascii_digit()) || !b.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(a.bytes().chain(b.bytes()).all(|c| c == b'0'))
    }

    #[test]
    fn random_strings_are_accepted_exactly_by_the_grammar() {
        let alphabet = b"0123456789.eE+-/ x";
        for i in 0..crate::num::test_cases(5_000) {
            let mut g = case(0x9a6, i);
            let n = g.below(9) as usize;
            let s: String = (0..n).map(|_| char::from(alphabet[g.below(alphabet.len() as u64) as usize])).collect();
            let t = s.trim();
            let ok = match t.split_once('/') {
                Some((a, b)) => matches!((grammar_decimal(a.trim()), grammar_decimal(b.trim())), (Some(_), Some(false))),
                None => !t.is_empty() && grammar_decimal(t).is_some(),
            };
            assert_eq!(parse_rational(&s).is_ok(), ok, "{s:?} (case {i}): parser {:?}", parse_rational(&s));
        }
    }
}
