//! Certified searches for ε(δ) = min{ε ≥ 0 : δ(ε) ≤ δ} on a privacy profile known only through
//! certified enclosures of δ(·).
//!
//! δ(ε) is continuous and non-increasing in ε (a supremum of affine functions of e^ε that decrease in
//! ε). So a point x with δ(x) > δ *certainly* (the enclosure's lower end above δ) proves ε* > x, and a
//! point y with δ(y) < δ certainly proves ε* < y. Every search here moves its ends only on such certain
//! comparisons, never on midpoints of enclosures: however wide the enclosures are, the bracket it
//! returns holds ε*. Too coarse enclosures give a wide bracket (or a refusal), never a wrong one.
//! (OpenDP's `PrivacyCurve::epsilon` follows the same rule: it returns only end points it has checked.)

use crate::error::Fallible;
use crate::fallible;
use crate::num::boundary::integer_boundary;
use crate::num::Interval;
use rug::{Float, Rational};

/// Knots k0 < … ≤ kmax of a piecewise profile, with certain predicates `above(k)`: δ(ε_k) > δ and
/// `below(k)`: δ(ε_k) < δ (ε_k increasing in k). Returns (a, b): `b` a knot with `below(b)` and
/// `a` (if any) a knot < b with `above(a)`, each found by bisection on its own predicate so that
/// ε* ∈ (ε_a, ε_b) (or [0, ε_b) when a is None). None if `below(kmax)` fails: nothing in the window
/// certifies an upper end.
pub fn knot_bracket(k0: i64, kmax: i64, above: impl Fn(i64) -> bool, below: impl Fn(i64) -> bool) -> Option<(Option<i64>, i64)> {
    if kmax < k0 || !below(kmax) {
        return None;
    }
    // smallest-ish b with below(b): invariant !below(lo) (or lo = k0 − 1), below(hi)
    let (_, b) = integer_boundary(k0 - 1, kmax, &below);
    if b == k0 || !above(k0) {
        return Some((None, b));
    }
    // largest-ish a < b with above(a): invariant above(lo), !above(hi) or hi = b
    let (a, _) = integer_boundary(k0, b, |m| !above(m));
    Some((Some(a), b))
}

/// As [`knot_bracket`], starting from a guess `hint` of the crossing: galloping steps 1, 2, 4, … from the
/// hint to a knot on each side of each predicate's boundary, then bisection between them. The predicates
/// are certain, so a bad hint costs evaluations, never correctness; a good one needs a handful instead
/// of two bisections over the whole window.
pub fn knot_bracket_from(
    k0: i64,
    kmax: i64,
    hint: i64,
    above: impl Fn(i64) -> bool,
    below: impl Fn(i64) -> bool,
) -> Option<(Option<i64>, i64)> {
    bracket_from(k0, kmax, hint, above, below, true)
}

/// As [`knot_bracket_from`], without first asking `above(k0)`: the lower knot is searched down from the
/// upper one at once (None only if no knot down to k0 is above). For predicates that cost most at k0 — the
/// pld grid's tails at ε = 0 sit in the bulk of the law, where an inversion needs the most nodes — and a
/// good hint, the search then never evaluates k0. Where `above(k0)` is false but a later knot's is true
/// (enclosures too wide at k0), it finds that knot: a narrower bracket, as certain.
pub fn knot_bracket_near(
    k0: i64,
    kmax: i64,
    hint: i64,
    above: impl Fn(i64) -> bool,
    below: impl Fn(i64) -> bool,
) -> Option<(Option<i64>, i64)> {
    bracket_from(k0, kmax, hint, above, below, false)
}

fn bracket_from(
    k0: i64,
    kmax: i64,
    hint: i64,
    above: impl Fn(i64) -> bool,
    below: impl Fn(i64) -> bool,
    probe_k0: bool,
) -> Option<(Option<i64>, i64)> {
    if kmax < k0 {
        return None;
    }
    let hint = hint.clamp(k0, kmax);
    // b: below(b), and !below(b − 1) or b = k0 (up to the bisection's tolerance of undecided knots)
    let b = if below(hint) {
        let (mut hi, mut step) = (hint, 1i64);
        loop {
            let lo = hi.saturating_sub(step).max(k0 - 1);
            if lo < k0 || !below(lo) {
                break integer_boundary(lo, hi, &below).1;
            }
            hi = lo;
            step = step.saturating_mul(2);
        }
    } else {
        let (mut lo, mut step) = (hint, 1i64);
        loop {
            let hi = lo.saturating_add(step).min(kmax);
            if below(hi) {
                break integer_boundary(lo, hi, &below).1;
            }
            if hi == kmax {
                return None;
            }
            lo = hi;
            step = step.saturating_mul(2);
        }
    };
    if b == k0 || (probe_k0 && !above(k0)) {
        return Some((None, b));
    }
    // a < b with above(a), searched down from b
    let (mut hi, mut step) = (b, 1i64);
    loop {
        let lo = hi.saturating_sub(step).max(k0);
        if above(lo) {
            let (a, _) = integer_boundary(lo, hi, |m| !above(m));
            return Some((Some(a), b));
        }
        // (a predicate that changed its answer at k0 — its oracle stopped answering — ends the search)
        if lo == k0 {
            return Some((None, b));
        }
        hi = lo;
        step = step.saturating_mul(2);
    }
}

/// Certified ε(δ) by bisection on exact dyadic rationals, for a profile given only as a certified
/// enclosure `delta_at(ε)` of δ(ε). `eps_hi` is any ε known (or guessed) to satisfy δ(eps_hi) < δ;
/// it is checked, and doubled up to `max_doublings` times if it does not. The two ends are refined
/// separately, each on its own certain predicate, until the bracket is narrower than `rel_tol`
/// relative to its upper end or no test point can be decided.
pub fn bisect_epsilon(
    delta_at: &dyn Fn(&Rational) -> Interval,
    delta: &Rational,
    eps_hi: &Rational,
    rel_tol: f64,
    prec: u32,
) -> Fallible<Interval> {
    let dl = Interval::from_rational(delta, prec);
    let above = |x: &Rational| delta_at(x).lo() > dl.hi();
    let below = |x: &Rational| delta_at(x).hi() < dl.lo();
    let zero = Rational::from(0);
    if delta_at(&zero).hi() <= dl.lo() {
        return Ok(Interval::zero(prec));
    }
    let mut hi = if *eps_hi > 0 { eps_hi.clone() } else { Rational::from(1) };
    let mut n = 0;
    while !below(&hi) {
        hi *= 2u32;
        n += 1;
        if n > 64 {
            return fallible!(Declined, "no certified upper end for epsilon: the enclosures of delta(eps) are too coarse");
        }
    }
    refine_epsilon(&above, &below, zero, hi, rel_tol, prec)
}

/// The certified bracket [lo, hi] of ε* refined by bisection on the certain predicates `above(x)`:
/// δ(x) > δ (so ε* > x) and `below(x)`: δ(x) < δ (ε* < x), given lo = 0 or above(lo), and below(hi). The
/// two ends are refined separately, each on its own predicate, until the bracket is narrower than
/// `rel_tol` relative to its upper end or no test point can be decided; a rejected midpoint only narrows
/// the other end's search, it is never returned.
fn refine_epsilon(
    above: &dyn Fn(&Rational) -> bool,
    below: &dyn Fn(&Rational) -> bool,
    mut lo: Rational,
    mut hi: Rational,
    rel_tol: f64,
    prec: u32,
) -> Fallible<Interval> {
    let tol = |a: &Rational, b: &Rational| {
        let w = Rational::from(b - a);
        w <= Rational::from_f64(rel_tol).unwrap_or_default() * b.clone()
    };
    let (mut ulo, mut uhi) = (lo.clone(), hi.clone());
    for _ in 0..4 * prec {
        if tol(&ulo, &uhi) {
            break;
        }
        let m = Rational::from(&ulo + &uhi) / 2u32;
        if below(&m) {
            uhi = m;
        } else {
            ulo = m;
        }
    }
    hi = uhi;
    {
        let (mut llo, mut lhi) = (lo.clone(), hi.clone());
        for _ in 0..4 * prec {
            if tol(&llo, &lhi) {
                break;
            }
            let m = Rational::from(&llo + &lhi) / 2u32;
            if above(&m) {
                llo = m;
            } else {
                lhi = m;
            }
        }
        lo = llo;
    }
    let lo_f = Interval::from_rational(&lo, prec).into_parts().0;
    let hi_f = Interval::from_rational(&hi, prec).into_parts().1;
    Ok(Interval::new(if lo_f < 0 { Float::with_val(prec, 0) } else { lo_f }, hi_f))
}

/// ε(δ) of a Gaussian loss law with mean η (`noise::gauss::delta`, [BW18, Thm 8]), certified, the bracket's relative width below 10^-digits
/// (0 when δ(0) ≤ δ).
pub fn gaussian_epsilon(eta: &Rational, delta_target: &Rational, digits: u32, prec: u32) -> Fallible<Interval> {
    if !(*delta_target > 0 && *delta_target < 1) {
        return crate::fallible!(Input, "delta must be in (0, 1), got {delta_target}");
    }
    let p = prec.max((digits as f64 * 3.33) as u32 + 64);
    // the Gaussian tail bound ε ≤ η + 2√(η ln(1/δ)) (Bun–Steinke) starts the bracket
    let guess = {
        let e = eta.to_f64();
        let l = -delta_target.to_f64().ln();
        let g = e + 2.0 * (e * l.max(0.0)).sqrt() + 1.0;
        Rational::from_f64(if g.is_finite() { g } else { 1.0 }).unwrap_or_else(|| Rational::from(1))
    };
    let f = |x: &Rational| crate::noise::gauss::delta(eta, x, p);
    let rel = 10f64.powi(-(digits as i32)) / 4.0;
    // first at 64 bits to 1e-14 (each evaluation far cheaper), then at full precision from that certified
    // bracket: the same bracket as bisecting at full precision all the way, in a third of the time
    let p0 = 64;
    let coarse = bisect_epsilon(&|x: &Rational| crate::noise::gauss::delta(eta, x, p0), delta_target, &guess, 1e-14_f64.max(rel), p0)
        .map_err(|e| crate::err!(Declined, "{e}"))?;
    if rel >= 1e-14 {
        return Ok(coarse);
    }
    let dl = Interval::from_rational(delta_target, p);
    let above = |x: &Rational| f(x).lo() > dl.hi();
    let below = |x: &Rational| f(x).hi() < dl.lo();
    let lo = coarse.lo().to_rational().unwrap_or_default();
    let hi = coarse.hi().to_rational().ok_or_else(|| crate::err!(Declined, "no certified upper end for epsilon"))?;
    if !(lo == 0 || above(&lo)) || !below(&hi) {
        // the 64-bit ends are not decided at full precision (cannot happen for exact ends, but cheap to keep)
        return bisect_epsilon(&f, delta_target, &guess, rel, p).map_err(|e| crate::err!(Declined, "{e}"));
    }
    refine_epsilon(&above, &below, lo, hi, rel, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A predicate whose oracle stops answering mid-search (a work limit met: every later knot reads
    /// "undecided") ends the search instead of galloping at k0 forever.
    #[test]
    fn a_predicate_that_stops_answering_ends_the_knot_search() {
        let calls = std::cell::Cell::new(0u32);
        // δ crosses between knots 40 and 41; `above` answers its first question (k0) only
        let above = |k: i64| {
            calls.set(calls.get() + 1);
            calls.get() <= 1 && k <= 40
        };
        let r = knot_bracket_from(0, 1000, 50, above, |k| k > 40);
        assert_eq!(r, Some((None, 41)));
        // answering throughout, the lower knot is found
        assert_eq!(knot_bracket_from(0, 1000, 50, |k| k <= 40, |k| k > 40), Some((Some(40), 41)));
    }

    /// The near search finds the same knots without asking k0 when the hint is good, and None for the
    /// lower knot when no knot down to k0 is above.
    #[test]
    fn the_near_search_spares_k0() {
        let asked = std::cell::RefCell::new(Vec::new());
        let above = |k: i64| {
            asked.borrow_mut().push(k);
            k <= 40
        };
        assert_eq!(knot_bracket_near(0, 1000, 41, above, |k| k > 40), Some((Some(40), 41)));
        assert!(!asked.borrow().contains(&0), "asked {:?}", asked.borrow());
        assert_eq!(knot_bracket_from(0, 1000, 41, |k| k <= 40, |k| k > 40), Some((Some(40), 41)));
        assert_eq!(knot_bracket_near(0, 1000, 50, |_| false, |k| k > 40), Some((None, 41)));
    }

    /// δ(ε) = e^{−ε} (a stand-in profile with a known inverse): ε(δ) = ln(1/δ).
    #[test]
    fn bisection_brackets_a_known_inverse() {
        let p = 128;
        let f = |e: &Rational| Interval::from_rational(e, p).neg().exp();
        for d in ["0.5", "1e-5", "1e-40"] {
            let dq = crate::num::parse_rational(d).unwrap();
            let e = bisect_epsilon(&f, &dq, &Rational::from(1), 1e-30, p).unwrap();
            let truth = Interval::from_rational(&dq, p).ln().neg();
            assert!(e.contains_interval(&truth), "δ={d}: {e} vs {truth}");
            assert!(e.width().to_f64() < 1e-25 * truth.hi().to_f64());
        }
    }

    /// Coarse enclosures (±10% relative) must widen the bracket, never move it off the truth.
    #[test]
    fn coarse_enclosures_give_wide_but_true_brackets() {
        let p = 128;
        let f = |e: &Rational| {
            let v = Interval::from_rational(e, p).neg().exp();
            Interval::new(Float::with_val(p, v.lo() * 0.9f64), Float::with_val(p, v.hi() * 1.1f64))
        };
        let dq = crate::num::parse_rational("1e-5").unwrap();
        let e = bisect_epsilon(&f, &dq, &Rational::from(1), 1e-30, p).unwrap();
        let truth = Interval::from_rational(&dq, p).ln().neg();
        assert!(e.contains_interval(&truth), "{e} vs {truth}");
        assert!(e.width().to_f64() > 0.05);
    }

    /// knot_bracket on a step profile where the enclosures around the crossing are undecided.
    #[test]
    fn knot_bracket_skips_undecided_knots() {
        // δ(ε_k) = 100 − k, δ = 50.5, enclosures ±3 wide: undecided for k in 47..=53
        let d = 50.5;
        let above = |k: i64| (100 - k) as f64 - 3.0 > d;
        let below = |k: i64| (100 - k) as f64 + 3.0 < d;
        let (a, b) = knot_bracket(0, 100, above, below).unwrap();
        let a = a.unwrap();
        assert!(above(a) && below(b) && a < 50 && b > 49, "a={a} b={b}");
        assert!(knot_bracket(0, 40, above, below).is_none());
        // from any hint the galloping search returns a bracket with the same certain properties
        for hint in [0, 10, 47, 50, 53, 90, 100] {
            let (a, b) = knot_bracket_from(0, 100, hint, above, below).unwrap();
            let a = a.unwrap();
            assert!(above(a) && below(b) && a < 50 && b > 49 && b - a <= 10, "hint {hint}: a={a} b={b}");
        }
        assert!(knot_bracket_from(0, 40, 20, above, below).is_none());
    }

    /// ε(δ) of the Gaussian mechanism against scripts/reference/gaussian_closed_forms.txt (mpmath).
    #[test]
    fn gaussian_epsilon_holds_the_mpmath_values() {
        let p = 160;
        let q = |s: &str| crate::num::parse_rational(s).unwrap();
        let holds = |iv: &Interval, want: &str| {
            let w = rug::Float::with_val(256, rug::Float::parse(want).unwrap());
            *iv.lo() <= w && w <= *iv.hi()
        };
        for (s2, mu, d, want) in [
            ("1", "1", "1e-5", "4.377178095681224627650116293242010913153"),
            ("4", "1", "1e-10", "3.099430330243196050640159411073962027492"),
            ("0.25", "2", "1e-3", "19.62412056742272462028846770783148697186"),
        ] {
            let g = crate::noise::gauss::Gaussian::new(q(s2), q(mu)).unwrap();
            let e = gaussian_epsilon(&g.eta(), &q(d), 25, p).unwrap();
            assert!(holds(&e, want), "epsilon σ²={s2} μ={mu} δ={d}: {e} vs {want}");
            assert!(e.width().to_f64() < 1e-25 * e.to_f64(), "{}", e.width());
        }
    }
}
