//! The two stages of a calibration: locate the root of a monotone function of the noise factor on
//! uncertified f64 values, then certify a bracket around it with certified brackets of the measure.

use crate::account::Certified;
use crate::err;
use crate::error::Fallible;
use crate::fallible;
use rug::{Float, Rational};

pub(super) fn rat(x: f64) -> Fallible<Rational> {
    Rational::from_f64(x).ok_or_else(|| err!(Internal, "calibration: a non-finite noise factor {x}"))
}

/// Root of a decreasing function by bracketing in factors of 2 from [start/2, start], then Illinois
/// regula falsi until the iterate moves by less than `rel_width`/20 of itself.
pub(super) fn find_root_from(f: &dyn Fn(f64) -> Fallible<f64>, rel_width: f64, start: f64) -> Fallible<f64> {
    let (mut a, mut b) = (start / 2.0, start);
    let mut fa = f(a)?;
    let mut fb = f(b)?;
    let mut guard = 0;
    while fa < 0.0 {
        b = a;
        fb = fa;
        a /= 2.0;
        fa = f(a)?;
        guard += 1;
        if guard > 60 {
            return fallible!(Input, "calibration: target not reachable with smaller noise");
        }
    }
    while fb > 0.0 {
        a = b;
        fa = fb;
        b *= 2.0;
        fb = f(b)?;
        guard += 1;
        if guard > 120 {
            return fallible!(Input, "calibration: target not reachable with larger noise");
        }
    }
    let mut side = 0i32;
    let mut c = (a * fb - b * fa) / (fb - fa);
    let mut prev = f64::NAN;
    for _ in 0..80 {
        c = (a * fb - b * fa) / (fb - fa);
        if (c - prev).abs() <= rel_width * 0.05 * c {
            break;
        }
        prev = c;
        let fc = f(c)?;
        if fc == 0.0 {
            break;
        }
        if fc > 0.0 {
            a = c;
            fa = fc;
            if side == 1 {
                fb /= 2.0;
            }
            side = 1;
        } else {
            b = c;
            fb = fc;
            if side == -1 {
                fa /= 2.0;
            }
            side = -1;
        }
    }
    Ok(c)
}

/// True when the certified brackets prove the target lies strictly between the measure at the two
/// factors: m(lo) > target > m(hi) (every measure calibrated here falls as the noise grows).
pub(super) fn brackets(at_lo: &Certified, at_hi: &Certified, target: &Float) -> bool {
    *at_lo.lo() > *target && *at_hi.hi() < *target
}

/// Widen [c(1 − w), c(1 + w)] (w from `rel_width`/2, ×4 per try) until the certified measure at its two
/// ends brackets the target.
pub(super) fn certify(
    measure: &dyn Fn(&Rational) -> Fallible<Certified>,
    target: &Float,
    c: f64,
    rel_width: f64,
) -> Fallible<(Rational, Rational, Certified, Certified)> {
    if !(c > 0.0 && c.is_finite()) {
        return fallible!(Input, "calibration: the search ended at a noise factor {c:e}, not a positive number");
    }
    let mut w = rel_width / 2.0;
    for _ in 0..40 {
        let clo = rat(c * (1.0 - w))?;
        let chi = rat(c * (1.0 + w))?;
        let elo = measure(&clo)?;
        let ehi = measure(&chi)?;
        if brackets(&elo, &ehi, target) {
            return Ok((clo, chi, elo, ehi));
        }
        w *= 4.0;
    }
    Err(err!(Input, "calibration: could not certify a bracket"))
}

/// Down a lattice k·resolution by factors of 16 from `hi` (which misses the target) to a k that meets it,
/// the bracket (lo, hi) it leaves; refused where k = 1 misses too. `what` names the parameter in the
/// refusal ("q", "epsilon"). The measure must not decrease with k.
pub(super) fn down_to_a_meet(
    mut hi: (rug::Integer, Certified),
    what: &str,
    resolution: &Rational,
    target: &crate::calibrate::target::CalibrationTarget,
    probe: &mut dyn FnMut(&rug::Integer) -> Fallible<(bool, Certified)>,
) -> Fallible<((rug::Integer, Certified), (rug::Integer, Certified))> {
    loop {
        if hi.0 == 1 {
            return fallible!(
                Input,
                "the target {} is missed even at {what} = {} (its certified {} is at least {}): give a finer --resolution",
                target.name(),
                crate::calibrate::target::show(resolution),
                target.name(),
                hi.1.lo_str(8)
            );
        }
        let k = rug::Integer::from(&hi.0 / 16).max(rug::Integer::from(1));
        match probe(&k)? {
            (true, c) => return Ok(((k, c), hi)),
            (false, c) => hi = (k, c),
        }
    }
}

/// The largest k of a lattice meeting the target, from lo (meets it) and hi (misses it), k_lo < k_hi:
/// interpolation on (ln k, ln m), or bisection after two probes in a row moved the same end (each probe is
/// only a decision; the guess never leaves the open bracket, so the search is as sound as bisection). The
/// measure must not decrease with k. Returns the final (lo, hi), one step apart.
pub(super) fn refine_largest(
    mut lo: (rug::Integer, Certified),
    mut hi: (rug::Integer, Certified),
    target: &Rational,
    probe: &mut dyn FnMut(&rug::Integer) -> Fallible<(bool, Certified)>,
) -> Fallible<((rug::Integer, Certified), (rug::Integer, Certified))> {
    // `run`: the side of the last probe (true: it met the target) and how many in a row moved that end
    let mut run: (bool, u32) = (true, 0);
    while rug::Integer::from(&hi.0 - &lo.0) > 1 {
        let mid = match interpolate(&lo, &hi, target) {
            Some(g) if run.1 < 2 => g,
            _ => rug::Integer::from(&lo.0 + &hi.0) / 2,
        };
        let (side, c) = probe(&mid)?;
        if side {
            lo = (mid, c);
        } else {
            hi = (mid, c);
        }
        run = if run.0 == side { (side, run.1 + 1) } else { (side, 1) };
    }
    Ok((lo, hi))
}

/// Where the measure m reaches the target on the line through (ln k, ln m) at the bracket's ends (m at each
/// end the middle of its certified bracket), strictly inside the bracket; None where that is undefined.
fn interpolate(lo: &(rug::Integer, Certified), hi: &(rug::Integer, Certified), target: &Rational) -> Option<rug::Integer> {
    let (ml, mh) = (lo.1.interval().to_f64(), hi.1.interval().to_f64());
    let t = target.to_f64();
    if !(ml > 0.0 && mh > ml && t > ml && t < mh) {
        return None;
    }
    let (kl, kh) = (lo.0.to_f64().ln(), hi.0.to_f64().ln());
    let g = (kl + (kh - kl) * (t.ln() - ml.ln()) / (mh.ln() - ml.ln())).exp();
    let g = rug::Integer::from_f64(g.floor())?;
    Some(Ord::clamp(g, rug::Integer::from(&lo.0 + 1), rug::Integer::from(&hi.0 - 1)))
}
