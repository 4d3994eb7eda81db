//! The entry points the accountant calls: [`delta_smooth`] (a certified δ(ε) bracket) and
//! [`epsilon_smooth`] (a certified ε(δ) bracket of a requested width: the f64 tier, narrowing the
//! smoothing until the bracket fits, then for widths below [`F64_MIN_WIDTH`] the 20-digit tier of
//! [`super::precise`]), with the searches that turn bounds of δ into certified ends of an ε bracket.

use super::design::{design, eps_estimate_by_bisection, eps_estimate_by_tilt, ln_delta_estimate, saddle_of};
use super::dlap::{check_lap, LapGroup};
use super::quadrature::DeltaBounds;
use super::shape::Shape;
use super::theta::Thetas;
use super::{fl, precise, SmoothParams, SmoothResult, CP, F64_MIN_WIDTH, MIN_WIDTH};
use crate::error::Fallible;
use crate::fallible;
use crate::model::GaussGroup;
use rug::float::Round;
use rug::{Float, Rational};

/// Range of σ²/μ² the double-precision design of the smoothed inversion handles: outside it the
/// cumulants (∝ μ²/σ²) overflow or vanish in f64 and the node search does not terminate in practice.
pub const SIGMA2_RANGE: (f64, f64) = (1e-6, 1e15);

/// Ok when every group's σ²/μ² is in [`SIGMA2_RANGE`]; the method declines otherwise (checked before any
/// table is sized from σ²).
pub fn check_groups(groups: &[GaussGroup]) -> Fallible<()> {
    for g in groups {
        let s = g.sigma2.to_f64() / (g.mu as f64 * g.mu as f64);
        if !(SIGMA2_RANGE.0..=SIGMA2_RANGE.1).contains(&s) {
            return fallible!(
                Declined,
                "the smoothed inversion handles sigma2/sensitivity² in [{:e}, {:e}] (double-precision design), got {s:.3e}; use --method auto",
                SIGMA2_RANGE.0,
                SIGMA2_RANGE.1
            );
        }
    }
    Ok(())
}

/// The tuning a caller may set must keep the bounds valid: the bump factor λ > 1 (β's derivation needs it,
/// docs/smoothed-fourier.md §3: with λ ≤ 1 no β makes v ≤ ψ), the smoothing w > 0, and the tilt c > 0 (the
/// line of the inversion lies in the half-plane Re s > 0 where ψ's Laplace transform is 1/(s(s+1)), §4).
fn check_params(p: &SmoothParams) -> Fallible<()> {
    if !(p.lambda > 1.0 && p.lambda.is_finite()) {
        return fallible!(Input, "the smoothed inversion's bump factor lambda must be finite and above 1, got {}", p.lambda);
    }
    if let Some(w) = p.w.filter(|w| !(*w > 0.0 && w.is_finite())) {
        return fallible!(Input, "the smoothed inversion's smoothing w must be positive and finite, got {w}");
    }
    if let Some(c) = p.c.filter(|c| !(*c > 0.0 && c.is_finite())) {
        return fallible!(Input, "the smoothed inversion's tilt c must be positive and finite, got {c}");
    }
    Ok(())
}

/// Certified bracket of δ(ε) by smoothed inversion.
#[cfg(test)]
pub fn delta_smooth(groups: &[GaussGroup], eps: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    delta_smooth_mixed(groups, &[], eps, p)
}

/// [`delta_smooth`] of discrete Gaussian groups composed with discrete Laplace groups `lap`
/// (docs/smoothed-fourier.md §8).
pub fn delta_smooth_mixed(groups: &[GaussGroup], lap: &[LapGroup], eps: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    check_groups(groups)?;
    check_lap(groups.len(), lap)?;
    check_params(p)?;
    let e_dn = Float::with_val_round(53, eps, Round::Down).0.to_f64();
    let e_up = Float::with_val_round(53, eps, Round::Up).0.to_f64();
    let sh = Shape::with_lap(groups, lap);
    let th = Thetas::with_lap(groups, lap);
    let c = p.c.unwrap_or_else(|| saddle_of(&sh, e_dn));
    let w = p.w.unwrap_or(1e-4);
    let mut ln_dscale = ln_delta_estimate(&sh, e_dn) - 1e3f64.ln();
    for attempt in 1..=4 {
        let (h, n) = design(&sh, c, w, e_dn, ln_dscale)?;
        let eng = DeltaBounds::new(&th, c, w, p.lambda, h, n, None)?;
        let (h, n, period) = eng.nodes();
        let hi = eng.delta_hi(e_dn);
        let lo = eng.delta_lo(e_up);
        let lo = if lo < 0 { Float::with_val(CP, 0) } else { lo };
        // if δ came out far below the design scale, the aliasing tolerance was too loose: redo
        let ln_hi = if hi > 0 { Float::with_val(CP, hi.ln_ref()).to_f64() } else { ln_dscale - 50.0 };
        if ln_hi < ln_dscale - 1e2f64.ln() && attempt < 4 {
            ln_dscale = ln_hi - 1e3f64.ln();
            continue;
        }
        return Ok(SmoothResult {
            lo,
            hi,
            w,
            c,
            h,
            nodes: n + 1,
            live: eng.live(),
            period,
            attempts: attempt,
            precise: false,
            fallback: None,
        });
    }
    unreachable!()
}

/// A certified end of an ε bracket found by the secant method: `gap(x)` = ln(bound at x) − ln δ (None
/// where the bound is not positive) is close to linear in x with slope ≈ −c, so a few secant steps from
/// `x0` find its root r; then points ever further outside it (r + side·m, m = step/1024, 8× larger each
/// time) are tested with `good` (the certificate) and the first that passes is returned. None if the iteration does not settle or
/// no candidate passes (the caller then bisects). ~6 evaluations of the bound instead of ~35.
pub(super) fn verified_crossing(
    gap: impl Fn(f64) -> Option<f64>,
    x0: f64,
    c: f64,
    step: f64,
    side: f64,
    good: impl Fn(f64) -> bool,
) -> Option<f64> {
    let (mut xa, mut fa) = (x0, gap(x0)?);
    let mut xb = xa + fa / c.max(1e-3);
    let mut root = None;
    for _ in 0..12 {
        let fb = gap(xb)?;
        if (xb - xa).abs() <= 0.25 * step {
            root = Some(xb);
            break;
        }
        let slope = (fb - fa) / (xb - xa);
        if !(slope < 0.0 && slope.is_finite()) {
            return None;
        }
        let next = xb - fb / slope;
        if !next.is_finite() || (next - xb).abs() > 50.0 {
            return None;
        }
        (xa, fa, xb) = (xb, fb, next);
    }
    let r = root?;
    // the secant root is accurate far below `step` (to ~1e-13 relative where the bound is smooth): the
    // first candidate is a thousandth of a step outside it, the next ones 8× further out each
    let mut m = (step / 1024.0).max(4.0 * f64::EPSILON * r.abs());
    for _ in 0..8 {
        let x = r + side * m;
        if good(x) {
            return Some(x);
        }
        m *= 8.0;
    }
    None
}

/// Bisection between a point where `good` holds and one where it does not, down to `step`; returns the
/// last point where `good` was verified (each endpoint of an ε bracket is certified by its own test).
fn boundary(mut good_x: f64, mut bad_x: f64, step: f64, good: impl Fn(f64) -> bool) -> f64 {
    while (good_x - bad_x).abs() > step {
        let m = 0.5 * (good_x + bad_x);
        if good(m) {
            good_x = m;
        } else {
            bad_x = m;
        }
    }
    good_x
}

/// Certified bracket of ε(δ) by smoothed inversion, narrowing the smoothing until the bracket is at most
/// `p.width` wide (or the attempts run out; the bracket is certified either way).
pub fn epsilon_smooth(groups: &[GaussGroup], delta: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    epsilon_smooth_mixed(groups, &[], delta, p)
}

/// [`epsilon_smooth`] of discrete Gaussian groups composed with discrete Laplace groups `lap`
/// (docs/smoothed-fourier.md §8): the Gaussian groups give the decay, the DLap factors multiply the nodes.
pub fn epsilon_smooth_mixed(groups: &[GaussGroup], lap: &[LapGroup], delta: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    // before any table is sized from σ² (a σ² of 1e-30 would ask petabytes)
    check_groups(groups)?;
    check_lap(groups.len(), lap)?;
    if !(p.width >= MIN_WIDTH) {
        return fallible!(Input, "the smoothed inversion's bracket width must be at least {MIN_WIDTH:e}");
    }
    check_params(p)?;
    let (sh, th) = (Shape::with_lap(groups, lap), Thetas::with_lap(groups, lap));
    if p.width >= F64_MIN_WIDTH {
        return epsilon_f64_with(&sh, &th, delta, p);
    }
    // below the f64 tier's floor: its bracket first (certified, ~1e-11 wide, and the tilt and midpoint the
    // 20-digit tier starts from), then the 20-digit tier; if that declines, the f64 bracket stands (an
    // internal error or a cancellation surfaces)
    let first = epsilon_f64_with(&sh, &th, delta, &SmoothParams { width: F64_START_WIDTH, w: None, ..p.clone() })?;
    match precise::epsilon_precise(&th, &sh, delta, p, &first) {
        Ok(r) if r.width() < first.width() => Ok(r),
        Ok(_) => Ok(SmoothResult { fallback: Some("the 20-digit tier came out no narrower".into()), ..first }),
        Err(e) if e.is_declined() => Ok(SmoothResult { fallback: Some(e.to_string()), ..first }),
        Err(e) => Err(e),
    }
}

/// Width of the f64-tier bracket a 20-digit request starts from.
const F64_START_WIDTH: f64 = 1e-10;

/// ε_hi: the smallest x with δ_hi(x) ≤ δ (`dq`; `ld` = ln δ), by the secant method from `eps0`, then
/// verified; by bisection if that fails.
fn eps_hi_of(eng: &DeltaBounds, dq: &Float, ld: f64, eps0: f64, c: f64, step: f64) -> Fallible<f64> {
    let ln_gap = |v: Float| {
        let v = v.to_f64();
        (v > 0.0 && v.is_finite()).then(|| v.ln() - ld)
    };
    Ok(match verified_crossing(|x| ln_gap(eng.delta_hi(x)), eps0, c, step, 1.0, |x| eng.delta_hi(x) <= *dq) {
        Some(x) => x,
        None => {
            let (mut lo_x, mut hi_x) = (eps0 - 0.25, eps0 + 0.25);
            let mut k = 0;
            while eng.delta_hi(hi_x) > *dq {
                hi_x += 0.5 * (1 << k.min(6)) as f64;
                k += 1;
                if k > 60 {
                    return fallible!(Declined, "smoothed inversion: no upper bracket found");
                }
            }
            k = 0;
            while eng.delta_hi(lo_x) <= *dq && lo_x > 0.0 {
                lo_x -= 0.5 * (1 << k.min(6)) as f64;
                k += 1;
            }
            boundary(hi_x, lo_x, step, |x| eng.delta_hi(x) <= *dq)
        }
    })
}

/// ε_lo: the largest x with δ_lo(x) ≥ δ, the same way, from just below `eps_hi`.
fn eps_lo_of(eng: &DeltaBounds, dq: &Float, ld: f64, eps_hi: f64, c: f64, step: f64) -> f64 {
    let ln_gap = |v: Float| {
        let v = v.to_f64();
        (v > 0.0 && v.is_finite()).then(|| v.ln() - ld)
    };
    let start = eps_hi - 10.0 * step - 0.01;
    match verified_crossing(|x| ln_gap(eng.delta_lo(x)), start, c, step, -1.0, |x| eng.delta_lo(x) >= *dq) {
        Some(x) if x <= eps_hi => x,
        _ => {
            let mut lo_x = start;
            let mut k = 0;
            while eng.delta_lo(lo_x) < *dq {
                lo_x -= 0.01 * (1 << k.min(10)) as f64;
                k += 1;
                if k > 60 || lo_x < 0.0 {
                    lo_x = 0.0;
                    break;
                }
            }
            boundary(lo_x, eps_hi, step, |x| eng.delta_lo(x) >= *dq)
        }
    }
}

/// The f64 tier of [`epsilon_smooth`] (the tests' entry point).
#[cfg(test)]
pub(super) fn epsilon_f64(groups: &[GaussGroup], delta: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    epsilon_f64_with(&Shape::new(groups), &Thetas::new(groups), delta, p)
}

/// [`epsilon_f64`] on the composition's [`Shape`] and [`Thetas`] (built once when the 20-digit tier follows).
fn epsilon_f64_with(sh: &Shape, th: &Thetas, delta: &Rational, p: &SmoothParams) -> Fallible<SmoothResult> {
    check_groups(th.groups)?;
    let d = delta.to_f64();
    if *delta > 0 && *delta < 1 && !(d >= 1e-300) {
        return fallible!(
            Declined,
            "delta = {} is below the smoothed inversion's double-precision range (1e-300); use --method lattice or auto",
            crate::num::format::fmt_rational(delta)
        );
    }
    if !(d > 0.0 && d < 1.0) {
        return fallible!(Input, "delta must be in (0, 1)");
    }
    // starting point: ε of the saddle-point estimate
    let ld = d.ln();
    let mut eps0 = match eps_estimate_by_tilt(sh, ld) {
        Some(e) => e,
        None => eps_estimate_by_bisection(sh, ld)?,
    };
    let mut c = p.c.unwrap_or_else(|| saddle_of(sh, eps0));
    let lam = p.lambda;
    let mut w = p.w.unwrap_or_else(|| (0.5 * p.width / (4.0 * (c + 1.0) * (1.0 / (2.0 * c) + lam))).sqrt());
    let dq = Float::with_val(CP, delta);
    let mut last: Option<SmoothResult> = None;
    for attempt in 1..=5u32 {
        // a later, narrower attempt that declines (too costly) returns the (certified) bracket already found
        let built = design(sh, c, w, eps0, ld).and_then(|(h, n)| DeltaBounds::new(th, c, w, lam, h, n, Some(p.width)));
        let eng = match (built, last.take()) {
            (Ok(b), _) => b,
            (Err(e), Some(prev)) if e.is_declined() => return Ok(prev),
            (Err(e), _) => return Err(e),
        };
        // bisection resolution: well below the target width, above the f64 spacing at ε
        let (h, n, period) = eng.nodes();
        let step = (p.width * 1e-3).max(16.0 * f64::EPSILON * eps0.abs().max(1.0));
        let eps_hi = eps_hi_of(&eng, &dq, ld, eps0, c, step)?;
        let lo_x = eps_lo_of(&eng, &dq, ld, eps_hi, c, step);
        // ε(δ) ≥ 0: a certified upper end below 0 means δ(0) ≤ δ(eps_hi) ≤ δ (δ is non-increasing), so ε = 0
        let res = SmoothResult {
            lo: fl(lo_x.max(0.0)),
            hi: fl(eps_hi.max(0.0)),
            w,
            c,
            h,
            nodes: n + 1,
            live: eng.live(),
            period,
            attempts: attempt,
            precise: false,
            fallback: None,
        };
        let width = res.width();
        let mid = 0.5 * (lo_x + eps_hi);
        let c_new = p.c.unwrap_or_else(|| saddle_of(sh, mid));
        let recentre = (c_new - c).abs() > 0.2 * c;
        if width <= p.width && !recentre {
            return Ok(res);
        }
        if !recentre && p.w.is_none() {
            w *= (p.width / width).sqrt() * 0.8;
        }
        eps0 = mid;
        c = c_new;
        last = Some(res);
        if p.w.is_some() && !recentre {
            break;
        }
    }
    Ok(last.expect("invariant: the loop runs at least once"))
}
