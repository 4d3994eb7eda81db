//! Noise calibration: the variance at which the exact guarantee matches a target.
//!
//! census-2020-more-private-fdp.txt §3.2 / Table 1: for each level, the reduced σ² such that the exact
//! ε(δ = 1e-11) equals the Bureau's ε = ρ + 2√(ρ log 1/δ) at the published σ²; §3.3: one common factor on
//! all variances so that the overall guarantee matches (the paper's 8.59%).
//!
//! All variances of the calibrated set are scaled by one factor c (σ_i² → c·σ_i², exact rationals).
//! ε(δ; c) is strictly decreasing in c. The root is located by a secant/bisection search on midpoints,
//! then *certified*: two factors c_lo < c_hi are returned with ε(c_lo) > target > ε(c_hi) proven by the
//! certified accountant, so the true calibrated factor lies in [c_lo, c_hi].

use crate::census::allocation::MechGroup;
use crate::num::Interval;
use crate::pld::compose_groups;
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

pub fn scale_groups(groups: &[MechGroup], c: &Rational) -> Vec<MechGroup> {
    groups.iter().map(|g| MechGroup { sigma2: Rational::from(&g.sigma2 * c), count: g.count, mu: g.mu }).collect()
}

/// Exact ε(δ) of the groups with all σ² scaled by c.
pub fn eps_scaled(groups: &[MechGroup], c: &Rational, delta: &Rational, prec: u32) -> Result<Interval, String> {
    compose_groups(&scale_groups(groups, c), prec)?.epsilon(delta)
}

fn rat(x: f64) -> Rational {
    Rational::from_f64(x).expect("finite")
}

/// Find c with ε(δ; c) = target. `search_prec` is used while searching (cheap), `prec` to certify the
/// final bracket, whose relative width is about `rel_width`.
pub fn calibrate_factor(
    groups: &[MechGroup],
    delta: &Rational,
    target: &Float,
    search_prec: u32,
    prec: u32,
    rel_width: f64,
) -> Result<FactorBracket, String> {
    calibrate_generic(&|c: &Rational, p: u32| eps_scaled(groups, c, delta, p), target, search_prec, prec, rel_width)
}

/// Certified root of g(c) = target for any g strictly decreasing in the variance factor c
/// (g is evaluated as a certified interval at precision p).
pub fn calibrate_generic(
    g: &dyn Fn(&Rational, u32) -> Result<Interval, String>,
    target: &Float,
    search_prec: u32,
    prec: u32,
    rel_width: f64,
) -> Result<FactorBracket, String> {
    // Search on log g when the target is tiny (a δ), on g itself otherwise (an ε).
    let logscale = target.to_f64() < 1e-3;
    let tr = |x: f64| if logscale { x.max(1e-300).ln() } else { x };
    let t = tr(target.to_f64());
    let f = |c: f64, p: u32| -> Result<f64, String> { Ok(tr(g(&rat(c), p)?.mid().to_f64()) - t) };
    // Bracket the root in log c: ε decreases as c grows.
    let (mut a, mut b) = (0.5f64, 1.0f64);
    let mut fa = f(a, search_prec)?;
    let mut fb = f(b, search_prec)?;
    let mut guard = 0;
    while fa < 0.0 {
        a /= 2.0;
        fa = f(a, search_prec)?;
        guard += 1;
        if guard > 60 {
            return Err("calibration: target epsilon not reachable with smaller noise".into());
        }
    }
    while fb > 0.0 {
        b *= 2.0;
        fb = f(b, search_prec)?;
        guard += 1;
        if guard > 120 {
            return Err("calibration: target epsilon not reachable with larger noise".into());
        }
    }
    // Illinois (regula falsi) on [a, b]; stop when the estimate moves by less than the target width.
    let mut side = 0i32;
    let mut c = (a * fb - b * fa) / (fb - fa);
    let mut prev = f64::NAN;
    for _ in 0..60 {
        c = (a * fb - b * fa) / (fb - fa);
        if (c - prev).abs() <= rel_width * 0.05 * c {
            break;
        }
        prev = c;
        let fc = f(c, search_prec)?;
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
    // Certify: widen until ε(c_lo) > target > ε(c_hi) hold for the certified intervals.
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
    Err("calibration: could not certify a bracket".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::zcdp;
    use crate::num::parse_rational;

    /// census-2020-more-private-fdp.txt Table 1, State: Bureau σ² 5.00 → reduced 4.25 (15.08%).
    #[test]
    fn table1_state_level() {
        let s2 = parse_rational("50000/10001").unwrap();
        let groups = vec![MechGroup { sigma2: s2.clone(), count: 10, mu: 1 }];
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
}
