//! `tightdp verify`: every published number in `data/published.csv`, recomputed by the library, with a
//! verdict.
//!
//! Row format (CSV with header): `id,paper,location,quantity,inputs,printed,rounding,explanation,alt_inputs`.
//! * `quantity` names a computation (see [`compute`]); `inputs` are `key=value` pairs separated by `;`.
//! * `rounding` says how the paper printed the value: `dpN` (N decimals), `sigN` (N significant digits),
//!   `pctN` (a percentage with N decimals), `upper` (a stated upper bound), `order` (an order of
//!   magnitude, one significant digit), `int` (an integer).
//! * `explanation` (filled once investigated) says why a printed value differs; `alt_inputs` (optional)
//!   are inputs overriding `inputs` under which the printed value *does* reproduce — the explanation as
//!   a computation. Verify recomputes with them and reports whether they reproduce the printed value.
//!
//! Verdicts: `exact` (agrees to all printed digits with correct rounding), `rounded-differently`
//! (agrees under another rounding rule — truncation or rounding up — named in the output), `differs`
//! (does not agree; explained in the data file), `differs: caption` (does not agree under the reading
//! the paper's caption states, but reproduces under the reading in `alt_inputs` — a finding about the
//! paper; the explanation starts with `caption:`), `finding` (the row recomputes, under a reading the
//! paper did not print — e.g. its procedure with an error corrected —, a quantity whose printed value the
//! paper did print, to record what the exact computation gives instead; not a failed reproduction; the
//! explanation starts with `finding:`), `differs-unexplained`, `pending` (the computation
//! belongs to a capability not built yet), and `needs-data` (the value depends on the paper's data —
//! NHGIS / ACS extracts the user must download — which are not in the extracts directory;
//! `crate::accuracy::published`).

use crate::error::Fallible;
use crate::{err, fallible};
use rug::Float;
use std::collections::BTreeMap;
use std::path::Path;

pub const COLUMNS: [&str; 9] = ["id", "paper", "location", "quantity", "inputs", "printed", "rounding", "explanation", "alt_inputs"];

/// One row of the published-numbers file (`data/published.csv`): a printed number, where it is printed
/// and how to recompute it.
#[derive(Clone, Debug)]
pub struct PublishedRow {
    pub line: usize,
    pub id: String,
    pub paper: String,
    pub location: String,
    pub quantity: String,
    pub inputs: BTreeMap<String, String>,
    pub printed: String,
    pub rounding: Rounding,
    pub explanation: String,
    pub alt_inputs: BTreeMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rounding {
    Dp(u32),
    Sig(u32),
    Pct(u32),
    Upper,
    Order,
    Int,
}

impl Rounding {
    pub fn parse(s: &str) -> Fallible<Rounding> {
        let num = |p: &str| s[p.len()..].parse::<u32>().map_err(|_| err!(Input, "unknown rounding '{s}'"));
        match s {
            "upper" => Ok(Rounding::Upper),
            "order" => Ok(Rounding::Order),
            "int" => Ok(Rounding::Int),
            _ if s.starts_with("dp") => Ok(Rounding::Dp(num("dp")?)),
            _ if s.starts_with("sig") => Ok(Rounding::Sig(num("sig")?)),
            _ if s.starts_with("pct") => Ok(Rounding::Pct(num("pct")?)),
            _ => fallible!(Input, "unknown rounding '{s}'"),
        }
    }
}

fn parse_kv(s: &str, line: usize, what: &str) -> Fallible<BTreeMap<String, String>> {
    let mut m = BTreeMap::new();
    for part in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| err!(Input, "line {line}: {what}: expected key=value, got '{part}'"))?;
        m.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(m)
}

/// Parse the published-values file; any malformed row is an error naming its line.
pub fn load(path: &Path, known: &dyn Fn(&str) -> bool) -> Fallible<Vec<PublishedRow>> {
    let text = std::fs::read_to_string(path).map_err(|e| err!(Io, "cannot read '{}': {e}", path.display()))?;
    let mut rd = csv::ReaderBuilder::new().has_headers(true).flexible(true).comment(Some(b'#')).from_reader(text.as_bytes());
    let hdr = rd.headers().map_err(|e| crate::error::Error::from(e).context(format!("{}: bad header", path.display())))?.clone();
    for c in COLUMNS {
        if !hdr.iter().any(|h| h == c) {
            return fallible!(Input, "{}: missing column '{c}'", path.display());
        }
    }
    let idx = |c: &str| hdr.iter().position(|h| h == c).expect("invariant: every column was checked above");
    let mut rows = Vec::new();
    let mut ids = BTreeMap::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| crate::error::Error::from(e).context(format!("{}", path.display())))?;
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        let get = |c: &str| rec.get(idx(c)).unwrap_or("").trim().to_string();
        for c in ["id", "paper", "location", "quantity", "printed", "rounding"] {
            if get(c).is_empty() {
                return fallible!(Input, "{} line {line}: missing field '{c}'", path.display());
            }
        }
        let quantity = get("quantity");
        if !known(&quantity) {
            return fallible!(Input, "{} line {line}: unknown quantity '{quantity}'", path.display());
        }
        let printed = get("printed");
        parse_printed(&printed).map_err(|e| e.context(format!("{} line {line}", path.display())))?;
        let rounding = Rounding::parse(&get("rounding")).map_err(|e| e.context(format!("{} line {line}", path.display())))?;
        let id = get("id");
        if ids.insert(id.clone(), line).is_some() {
            return fallible!(Input, "{} line {line}: duplicate id '{id}'", path.display());
        }
        rows.push(PublishedRow {
            line,
            id,
            paper: get("paper"),
            location: get("location"),
            quantity,
            inputs: parse_kv(&get("inputs"), line, "inputs").map_err(|e| e.context(format!("{}", path.display())))?,
            printed,
            rounding,
            explanation: get("explanation"),
            alt_inputs: parse_kv(&get("alt_inputs"), line, "alt_inputs").map_err(|e| e.context(format!("{}", path.display())))?,
        });
    }
    Ok(rows)
}

/// The printed value as a number: accepts `11.07`, `8.50%`, `3e-37`, `5.8×10^-34`.
pub fn parse_printed(s: &str) -> Fallible<Float> {
    let t = s.trim().trim_end_matches('%').replace("×10^", "e").replace("x10^", "e");
    let q = crate::num::parse_rational(&t).map_err(|_| err!(Input, "unparseable printed value '{s}'"))?;
    Ok(Float::with_val(256, q))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Nearest,
    Trunc,
    Up,
}

/// Round `v` to the printed resolution, exactly (MPFR value × 10^k rounded to an integer), and return
/// the rounded value as an exact rational.
fn round_exact(v: &Float, r: Rounding, sig_hint: u32, mode: Mode) -> rug::Rational {
    use rug::ops::Pow;
    use rug::{Integer, Rational};
    let prec = v.prec().max(256);
    // number of decimals k such that the printed resolution is 10^-k
    let k: i64 = match r {
        Rounding::Dp(n) | Rounding::Pct(n) => n as i64,
        Rounding::Int => 0,
        _ if v.is_zero() => 0,
        Rounding::Sig(_) | Rounding::Order | Rounding::Upper => {
            let n = match r {
                Rounding::Sig(n) => n,
                Rounding::Order => 1,
                _ => sig_hint.max(1),
            } as i64;
            let e = Float::with_val(64, v.abs_ref()).log10().floor().to_f64() as i64;
            n - 1 - e
        }
    };
    let scale = Rational::from(Integer::from(10).pow(k.unsigned_abs() as u32));
    let scale = if k >= 0 { scale } else { scale.recip() };
    let x = Float::with_val(prec, v * Float::with_val(prec, &scale));
    let xi = match mode {
        Mode::Nearest => x.round(),
        Mode::Trunc => x.trunc(),
        Mode::Up => x.ceil(),
    };
    Rational::from(xi.to_integer().expect("invariant: a finite value")) / scale
}

/// The printed value rounded to its own printed resolution (a decimal prints as itself; a fraction such
/// as 17849145/1041158 is compared at the row's resolution).
fn printed_rounded(p: &Float, r: Rounding, sig_hint: u32) -> rug::Rational {
    round_exact(p, r, sig_hint, Mode::Nearest)
}

fn sig_digits_of(s: &str) -> u32 {
    let m = s.trim().trim_end_matches('%');
    let m = m.split(['e', 'E', '×', 'x']).next().unwrap_or(m);
    m.chars().filter(|c| c.is_ascii_digit()).collect::<String>().trim_start_matches('0').len().max(1) as u32
}

/// Compare a recomputed value with the printed one. Returns (verdict, rule used or note).
pub fn judge(printed: &str, r: Rounding, value: &Float) -> (String, String) {
    let pf = parse_printed(printed).expect("invariant: printed values are parsed when the file is read");
    let hint = sig_digits_of(printed);
    match r {
        Rounding::Upper => {
            if *value <= pf {
                let tight = round_exact(value, r, hint, Mode::Up);
                if tight == printed_rounded(&pf, r, hint) {
                    ("exact".into(), "upper bound, the value rounded up".into())
                } else {
                    ("rounded-differently".into(), format!("a valid upper bound, not the value rounded up ({})", fmt_g(tight.to_f64())))
                }
            } else {
                ("differs".into(), "stated upper bound is violated".into())
            }
        }
        _ => {
            let want = printed_rounded(&pf, r, hint);
            if round_exact(value, r, hint, Mode::Nearest) == want {
                return ("exact".into(), "round to nearest".into());
            }
            for (m, name) in [(Mode::Trunc, "truncated, not rounded"), (Mode::Up, "rounded up")] {
                if round_exact(value, r, hint, m) == want {
                    return ("rounded-differently".into(), name.into());
                }
            }
            ("differs".into(), String::new())
        }
    }
}

fn fmt_g(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e6) {
        format!("{x:.6e}")
    } else {
        format!("{x}")
    }
}

/// Display of a recomputed value with a few more digits than printed.
pub fn show(value: &Float, r: Rounding, printed: &str) -> String {
    let hint = sig_digits_of(printed);
    let x = value.to_f64();
    let digits = match r {
        Rounding::Dp(n) | Rounding::Pct(n) => {
            let int_digits = if x.abs() >= 1.0 { x.abs().log10().floor() as i32 + 1 } else { 0 };
            (int_digits + n as i32 + 4).max(6) as usize
        }
        _ => (hint + 4) as usize,
    };
    crate::num::format::fmt_nearest(value, digits)
}
