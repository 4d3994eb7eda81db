//! Noise calibration: the variance at which the exact guarantee matches a target.
//!
//! [SSW24, §3.2] / Table 1: for each level, the reduced σ² such that the exact
//! ε(δ = 1e-11) equals the Bureau's ε = ρ + 2√(ρ log 1/δ) at the published σ²; §3.3: one common factor on
//! all variances so that the overall guarantee matches (the paper's 8.59%).
//!
//! All variances of the calibrated set are scaled by one factor c (σ_i² → c·σ_i², exact rationals).
//! ε(δ; c) is strictly decreasing in c. The root is located by a secant/bisection search on midpoints,
//! then *certified*: two factors c_lo < c_hi are returned with ε(c_lo) > target > ε(c_hi) proven by the
//! certified accountant, so the true calibrated factor lies in [c_lo, c_hi].

use crate::error::{Fallible, Typed};
use crate::model::GaussGroup;
use crate::num::Interval;
use crate::pld::compose_groups;
use crate::{err, fallible};
use rug::{Float, Rational};

/// A certified bracket [lo, hi] of the calibrated variance factor.
#[derive(Clone, Debug)]
pub struct FactorBracket {
    pub lo: Rational,
    pub hi: Rational,
    /// ε at the two ends (certified intervals), for the record.
    pub eps_at_lo: Interval,
    pub eps_at_hi: Interval,
}

pub fn scale_groups(groups: &[GaussGroup], c: &Rational) -> Vec<GaussGroup> {
    groups.iter().map(|g| GaussGroup { sigma2: Rational::from(&g.sigma2 * c), count: g.count, mu: g.mu }).collect()
}

/// Exact ε(δ) of the groups with all σ² scaled by c: the lattice accountant, or — when its lattice would
/// exceed `FAST_WINDOW` entries (e.g. a redistricting level, whose queries have many budgets) — the
/// certified smoothed inversion with a 1e-10-wide bracket (falling back to the lattice if it declines):
/// the engine choice of the certificates, `account::epsilon_at` — or the lattice Fourier inversion where the
/// accountant itself would choose it (`account::epsilon_for_calibration`: a few groups on a wide lattice).
pub fn eps_scaled(groups: &[GaussGroup], c: &Rational, delta: &Rational, prec: u32) -> Fallible<Interval> {
    use crate::account::{epsilon_for_calibration, FAST_WINDOW};
    // the groups are shifts already: compose them as add/remove queries
    let comp = crate::model::Composition::new(
        scale_groups(groups, c).iter().map(crate::model::Group::from).collect(),
        crate::model::Neighbors::AddRemove,
    )?;
    // (`prec` is a bare precision: 53 the f64 lattice, 106 the double-double one, else MPFR bits)
    Ok(epsilon_for_calibration(&comp, delta, crate::num::Arith::from_legacy_prec(prec), 1e-10, Some(FAST_WINDOW))?.interval())
}

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).expect("finite")
}

/// Find c with ε(δ; c) = target. `search_prec` is used while searching (cheap), `prec` to certify the
/// final bracket, whose relative width is about `rel_width`.
pub fn calibrate_factor(
    groups: &[GaussGroup],
    delta: &Rational,
    target: &Float,
    search_prec: u32,
    prec: u32,
    rel_width: f64,
) -> Fallible<FactorBracket> {
    let g = |c: &Rational, p: u32| eps_scaled(groups, c, delta, p);
    // Start the search at the factor where the Bun–Steinke bound meets the target: the exact ε lies
    // below that bound, so the root is at or below c_BS and usually within a factor 4 of it — a few
    // evaluations instead of doubling from 1 (a target of ε = 1e-3 needs c ≈ 1e7).
    let rho = crate::model::gauss_rho(groups).to_f64();
    let l = (1.0 / delta.to_f64()).ln();
    let e = target.to_f64();
    let rho_t = ((l + e).sqrt() - l.sqrt()).powi(2);
    let c_bs = rho / rho_t;
    // (near 1 the doubling from 1 takes as few steps; keeping it there keeps earlier results identical)
    let start = if c_bs.is_finite() && !(1.0 / 16.0..=16.0).contains(&c_bs) { c_bs } else { 1.0 };
    if start > MAX_FACTOR {
        return fallible!(
            Input,
            "calibration: epsilon = {e} needs the variances multiplied by about {start:.3e} (beyond the supported {MAX_FACTOR:e})"
        );
    }
    // each of the ~30 certified evaluations of a 1e-12-wide factor bracket needs a lattice (the smoothed
    // inversion cannot resolve ε to ε·1e-12): refuse up front when that lattice is impractically large
    let window = crate::pld::compose::estimated_window(&scale_groups(groups, &rat(c_bs.max(1.0))), prec)?;
    if window > CALIBRATION_WINDOW {
        return fallible!(
            Resource,
            "calibration: epsilon = {e} needs the variances multiplied by about {c_bs:.3e}, where each certified evaluation \
             needs a lattice of about {window:.2e} entries (limit {CALIBRATION_WINDOW:e}); ask for a larger target"
        );
    }
    let logscale = target.to_f64() < 1e-3;
    let tr = |x: f64| if logscale { x.max(1e-300).ln() } else { x };
    let t = tr(e);
    let search = |c: f64| -> Fallible<f64> { Ok(tr(g(&rat(c), search_prec)?.mid().to_f64()) - t) };
    let c = find_root_from(&search, rel_width, start)?;
    certify(&g, target, c, prec, rel_width)
}

/// Largest lattice (entries) a per-level calibration evaluates (~1 s per evaluation at 20 digits).
pub const CALIBRATION_WINDOW: u64 = 1_000_000;

/// Largest variance factor a calibration searches: 1e12 (σ grows by 1e6; the lattice and smoothed
/// engines stay within their ranges).
pub const MAX_FACTOR: f64 = 1e12;

/// Certified root of g(c) = target for any g strictly decreasing in the variance factor c
/// (g is evaluated as a certified interval at precision p); the search also uses g, at `search_prec`.
pub fn calibrate_generic(
    g: &dyn Fn(&Rational, u32) -> Fallible<Interval>,
    target: &Float,
    search_prec: u32,
    prec: u32,
    rel_width: f64,
) -> Fallible<FactorBracket> {
    // Search on log g when the target is tiny (a δ), on g itself otherwise (an ε).
    let logscale = target.to_f64() < 1e-3;
    let tr = |x: f64| if logscale { x.max(1e-300).ln() } else { x };
    let t = tr(target.to_f64());
    let search = |c: f64| -> Fallible<f64> { Ok(tr(g(&rat(c), search_prec)?.mid().to_f64()) - t) };
    let c = find_root(&search, rel_width)?;
    certify(g, target, c, prec, rel_width)
}

/// Search with a fast uncertified function `search(c)` (decreasing in c, zero at the root), then certify
/// with the certified `g` (decreasing in c) against `target`.
pub fn calibrate_with(
    search: &dyn Fn(f64) -> Fallible<f64>,
    g: &dyn Fn(&Rational, u32) -> Fallible<Interval>,
    target: &Float,
    prec: u32,
    rel_width: f64,
) -> Fallible<FactorBracket> {
    calibrate_with_start(search, g, target, prec, rel_width, 1.0)
}

/// [`calibrate_with`], the search bracketing from [start/2, start] (an estimate of the factor) instead of
/// from 1.
pub fn calibrate_with_start(
    search: &dyn Fn(f64) -> Fallible<f64>,
    g: &dyn Fn(&Rational, u32) -> Fallible<Interval>,
    target: &Float,
    prec: u32,
    rel_width: f64,
    start: f64,
) -> Fallible<FactorBracket> {
    let c = find_root_from(search, rel_width, start)?;
    certify(g, target, c, prec, rel_width)
}

/// Root of a decreasing function by bracketing in factors of 2 and Illinois regula falsi.
fn find_root(f: &dyn Fn(f64) -> Fallible<f64>, rel_width: f64) -> Fallible<f64> {
    find_root_from(f, rel_width, 1.0)
}

/// The same, bracketing from [start/2, start].
fn find_root_from(f: &dyn Fn(f64) -> Fallible<f64>, rel_width: f64, start: f64) -> Fallible<f64> {
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

/// Widen [c(1−w), c(1+w)] until g(c_lo) > target > g(c_hi) hold for the certified intervals.
fn certify(g: &dyn Fn(&Rational, u32) -> Fallible<Interval>, target: &Float, c: f64, prec: u32, rel_width: f64) -> Fallible<FactorBracket> {
    let mut w = rel_width / 2.0;
    for _ in 0..40 {
        let clo = rat(c * (1.0 - w));
        let chi = rat(c * (1.0 + w));
        let elo = g(&clo, prec)?;
        let ehi = g(&chi, prec)?;
        if elo.lo > *target && ehi.hi < *target {
            return Ok(FactorBracket { lo: clo, hi: chi, eps_at_lo: elo, eps_at_hi: ehi });
        }
        w *= 4.0;
    }
    Err(err!(Input, "calibration: could not certify a bracket"))
}

/// Uniform factor for a composition of many groups: the search runs on the fast Fourier inversion of
/// δ_c(ε_target) (src/fourier/fast.rs, f64, relative accuracy ~1e-13), the bracket is certified by
/// the lattice accountant. With `first_only`, only the first term of (A.9) is matched (the paper's §A.6
/// procedure), at the given ε.
pub fn calibrate_uniform(
    groups: &[GaussGroup],
    delta: &Rational,
    eps_target: &Rational,
    first_only: bool,
    prec: u32,
    rel_width: f64,
) -> Fallible<FactorBracket> {
    use crate::fourier::fast::{delta_fast, FastParams};
    if !first_only && crate::pld::compose::estimated_window(groups, prec)? > crate::pld::compose::MAX_WINDOW {
        return calibrate_uniform_smoothed(groups, delta, eps_target, prec, rel_width);
    }
    let fp = FastParams::default();
    let ld = delta.to_f64().ln();
    let search = |c: f64| -> Fallible<f64> {
        let d = delta_fast(&scale_groups(groups, &rat(c)), eps_target, &fp)?;
        let v = if first_only { d.first.value } else { d.delta };
        Ok(v.max(1e-300).ln() - ld)
    };
    if first_only {
        let g = |c: &Rational, p: u32| -> Fallible<Interval> { Ok(compose_groups(&scale_groups(groups, c), p)?.delta(eps_target).first) };
        calibrate_with(&search, &g, &Float::with_val(prec, delta), prec, rel_width)
    } else {
        let target = Float::with_val(prec, eps_target);
        let g = |c: &Rational, p: u32| eps_scaled(groups, c, delta, p);
        calibrate_with(&search, &g, &target, prec, rel_width)
    }
}

/// Uniform factor for budgets without a practical common lattice (e.g. the 2021 redistricting file):
/// search on the smoothed Fourier inversion at a coarse width, certify with its ε brackets
/// (src/fourier/smooth.rs). The certified factor bracket is as narrow as those 1e-9-wide ε brackets allow.
pub fn calibrate_uniform_smoothed(
    groups: &[GaussGroup],
    delta: &Rational,
    eps_target: &Rational,
    prec: u32,
    rel_width: f64,
) -> Fallible<FactorBracket> {
    use crate::fourier::smooth::{epsilon_smooth, SmoothParams};
    let t = eps_target.to_f64();
    let coarse = SmoothParams { width: 1e-7, ..Default::default() };
    let search = |c: f64| -> Fallible<f64> {
        let e = epsilon_smooth(&scale_groups(groups, &rat(c)), delta, &coarse).map_err(Typed::typed)?;
        Ok(0.5 * (e.lo.to_f64() + e.hi.to_f64()) - t)
    };
    let fine = SmoothParams { width: 1e-9, ..Default::default() };
    let g = |c: &Rational, _p: u32| -> Fallible<Interval> {
        Ok(epsilon_smooth(&scale_groups(groups, c), delta, &fine).map_err(Typed::typed)?.interval())
    };
    calibrate_with(&search, &g, &Float::with_val(prec, eps_target), prec, rel_width.max(1e-10))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::zcdp;
    use crate::num::parse_rational;

    /// [SSW24, Table 1], State: Bureau σ² 5.00 → reduced 4.25 (15.08%).
    #[test]
    fn table1_state_level() {
        let s2 = parse_rational("50000/10001").unwrap();
        let groups = vec![GaussGroup { sigma2: s2.clone(), count: 10, mu: 1 }];
        let delta = parse_rational("1e-11").unwrap();
        let rho = zcdp::rho_of(&s2, 10, 1);
        let target = zcdp::eps_bs(&rho, &delta, 256).mid();
        let br = calibrate_factor(&groups, &delta, &target, 128, 256, 1e-12).unwrap();
        let red_lo = Rational::from(&s2 * &br.lo).to_f64();
        let red_hi = Rational::from(&s2 * &br.hi).to_f64();
        assert!(red_lo < red_hi);
        assert_eq!(format!("{:.2}", red_lo), "4.25");
        let pct = 100.0 * (1.0 - br.lo.to_f64());
        assert_eq!(format!("{:.2}", pct), "15.08");
        // Independent reference: scripts/reference/dg_reference_values.csv, sigma2_red_at_eps_bs for State
        // = 4.24538… (mpmath root finding on the exact-integer convolution).
        assert!((red_lo - 4.24538).abs() < 1e-5);
    }

    /// The smoothed calibration (used for budgets without a lattice) against the lattice calibration on the
    /// DHC 2022-08-25 composition, which has one: the two certified factor brackets must intersect (the
    /// f-DP paper's §3.3 setting; our both-terms reduction is 12.28%, README).
    #[test]
    fn uniform_smoothed_agrees_with_lattice() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations/dhc-2022-08-25.toml");
        let alloc = crate::census::Allocation::from_path(&path).unwrap();
        let groups = alloc.all_mechanisms();
        let delta = parse_rational("1e-10").unwrap();
        let target = zcdp::eps_bs(&alloc.total_rho(), &delta, 256).mid().to_rational().unwrap();
        let lat = calibrate_uniform(&groups, &delta, &target, false, 53, 1e-9).unwrap();
        let smo = calibrate_uniform_smoothed(&groups, &delta, &target, 256, 1e-9).unwrap();
        assert!(
            lat.lo <= smo.hi && smo.lo <= lat.hi,
            "lattice [{}, {}] vs smoothed [{}, {}]",
            lat.lo.to_f64(),
            lat.hi.to_f64(),
            smo.lo.to_f64(),
            smo.hi.to_f64()
        );
        assert_eq!(format!("{:.2}", 100.0 * (1.0 - smo.lo.to_f64())), "12.28");
    }
}
