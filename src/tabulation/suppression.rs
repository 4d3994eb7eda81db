//! SafeTab-P suppression analysis ([HBC25, §5.3.2]): the data of Figure 1
//! (probability that a group is suppressed) and Figure 2 (bias of the released counts, eq. 13).
//!
//! Setting (§5.3.2): a sub-state group that receives only a total gets the Step-2 count n + X with
//! X ~ N_Z(0, σ²), σ² = s/(2(1−γ)ρ) (Alg. 2 line 18 with ρ_i/s, Alg. 3), and is suppressed when the
//! noisy count is ≤ T, T = min{t : P[X ≤ t] ≥ p} (eq. 12, Table 6; `calib::suppression_threshold`).
//! The paper's text says "less than T" but eq. 13 conditions the release on n + X > T, and only
//! "suppress when ≤ T" gives a zero count the stated suppression probability ≥ p; this module and
//! the pipeline use ≤ T.
//!
//! * Figure 1: P[suppressed | n] = P[n + X ≤ T] = 1 − P[X > T − n] — exact (certified interval).
//! * Figure 2: bias = E[X | n + X > T] = E[X·1{X ≥ m}] / P[X ≥ m], m = T − n + 1 — exact for the
//!   discrete Gaussian (certified interval), next to eq. 13 as printed,
//!   σφ((T−n)/σ)/(1 − Φ((T−n)/σ)). Eq. 13 calls φ, Φ the "standard discrete Gaussian" pdf/cdf, but
//!   its arguments are not integers; the formula is the continuous-Gaussian truncated mean (inverse
//!   Mills ratio), which is how it is evaluated here (φ, Φ of N(0, 1), 128-bit MPFR: a formula
//!   evaluation, not an enclosure). It approximates the discrete bias; the difference is visible
//!   at small T (ρ = 0.543, T = 11).
//!
//! Both figures put n/T on the x axis (and Figure 2 bias/T on the y axis); the paper says they
//! then hold "regardless of the privacy loss". That is exact only for continuous noise; the curves
//! here are computed per ρ of Table 6 (0.008, 0.159, 0.543 with γ = 0.1, p = 0.9999), at the integer
//! true counts n = 0, 1, …, 2T, so the small differences between them are shown, not assumed away.

use crate::error::Fallible;
use crate::fallible;
use crate::noise::DiscreteGaussian;
use crate::num::{parse_rational, Interval};
use crate::tabulation::calib::suppression_threshold;
use rug::float::Constant;
use rug::{Float, Rational};

/// The ρ of the paper's Table 6 (whose T the figures use).
pub const TABLE6_RHOS: [&str; 3] = ["0.008", "0.159", "0.543"];

/// One privacy setting: level budget ρ, Step-2 noise σ² and the threshold T of eq. 12.
#[derive(Clone, Debug)]
pub struct Setting {
    pub rho_text: String,
    pub sigma2: Rational,
    pub t: i64,
    pub dg: DiscreteGaussian,
}

impl Setting {
    /// σ² = s/(2(1−γ)ρ) and T = invcdf(σ, p) (eq. 12).
    pub fn new(rho_text: &str, s: u32, gamma: &Rational, p: &Rational) -> Fallible<Setting> {
        let rho = parse_rational(rho_text).map_err(|e| e.context("rho"))?;
        if rho <= 0 {
            return fallible!(Input, "rho must be positive, got {rho_text}");
        }
        let t = suppression_threshold(&rho, s, gamma, p)?;
        let sigma2 = Rational::from(s) / (Rational::from(2) * (Rational::from(1) - gamma.clone()) * rho);
        let dg = DiscreteGaussian::new(sigma2.clone())?;
        Ok(Setting { rho_text: rho_text.trim().to_string(), sigma2, t, dg })
    }

    /// P[n + X ≤ T]: the group with true count n is suppressed (Figure 1).
    pub fn p_suppressed(&self, n: i64, prec: u32) -> Interval {
        let released = self.dg.tail_gt(&Rational::from(self.t - n), prec);
        Interval::one(prec).sub(&released)
    }

    /// E[X | n + X > T]: the bias of a released count (Figure 2), exact for the discrete Gaussian.
    pub fn bias(&self, n: i64, prec: u32) -> Interval {
        let p = prec + 16;
        let m = self.t - n + 1; // released ⇔ X ≥ T − n + 1
        let num = self.dg.tail_first_moment(m, p);
        let den = self.dg.tail_gt(&Rational::from(m - 1), p); // P[X > m − 1] = P[X ≥ m]
        crate::noise::dgauss::round_to(&num.div(&den), prec)
    }

    /// Eq. 13 as printed, with φ, Φ of the standard normal: σφ(z)/(1 − Φ(z)), z = (T − n)/σ.
    pub fn bias_eq13(&self, n: i64, prec: u32) -> Float {
        let p = prec + 32;
        let sigma = Float::with_val(p, &self.sigma2).sqrt();
        let z = Float::with_val(p, self.t - n) / &sigma;
        let two = Float::with_val(p, 2);
        let pi = Float::with_val(p, Constant::Pi);
        let phi = Float::with_val(p, -Float::with_val(p, &z * &z) / &two).exp() / Float::with_val(p, &two * &pi).sqrt();
        let upper = Float::with_val(p, &z / two.clone().sqrt()).erfc() / &two; // 1 − Φ(z)
        Float::with_val(prec, sigma * phi / upper)
    }
}

/// One point of Figures 1 and 2.
#[derive(Clone, Debug)]
pub struct SuppressionPoint {
    pub n: i64,
    pub p_suppressed: Interval,
    pub bias: Interval,
    pub bias_eq13: Float,
}

/// The figures' data for one setting: integer true counts n = 0..=⌈x_max·T⌉.
pub fn curve(s: &Setting, x_max: f64, prec: u32) -> Vec<SuppressionPoint> {
    let n_max = (x_max * s.t as f64).ceil() as i64;
    (0..=n_max)
        .map(|n| SuppressionPoint { n, p_suppressed: s.p_suppressed(n, prec), bias: s.bias(n, prec), bias_eq13: s.bias_eq13(n, prec) })
        .collect()
}

/// Figures 1 and 2 for the Table 6 settings (s = 9, γ = 0.1, p = 0.9999), n/T ∈ [0, 2].
pub fn table6_curves(prec: u32) -> Fallible<Vec<(Setting, Vec<SuppressionPoint>)>> {
    let gamma = parse_rational("0.1")?;
    let p = parse_rational("0.9999")?;
    TABLE6_RHOS
        .iter()
        .map(|r| {
            let s = Setting::new(r, 9, &gamma, &p)?;
            let c = curve(&s, 2.0, prec);
            Ok((s, c))
        })
        .collect()
}

/// CSV of the certified values: one row per (ρ, n).
pub fn render_csv(curves: &[(Setting, Vec<SuppressionPoint>)]) -> String {
    let mut o = String::from(
        "rho,sigma2,T,n,n_over_T,p_suppressed_lo,p_suppressed_hi,bias_lo,bias_hi,bias_over_T_lo,bias_over_T_hi,bias_eq13_continuous,bias_eq13_over_T\n",
    );
    let f = |x: &Float| crate::num::format::fmt_nearest(x, 12);
    for (s, pts) in curves {
        let tt = Float::with_val(64, s.t);
        for pt in pts {
            let bt_lo = Float::with_val_round(pt.bias.lo().prec(), pt.bias.lo() / &tt, rug::float::Round::Down).0;
            let bt_hi = Float::with_val_round(pt.bias.hi().prec(), pt.bias.hi() / &tt, rug::float::Round::Up).0;
            o += &format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                s.rho_text,
                crate::num::format::fmt_rational(&s.sigma2),
                s.t,
                pt.n,
                pt.n as f64 / s.t as f64,
                crate::num::fmt_down(pt.p_suppressed.lo(), 12),
                crate::num::fmt_up(pt.p_suppressed.hi(), 12),
                crate::num::fmt_down(pt.bias.lo(), 12),
                crate::num::fmt_up(pt.bias.hi(), 12),
                crate::num::fmt_down(&bt_lo, 12),
                crate::num::fmt_up(&bt_hi, 12),
                f(&pt.bias_eq13),
                f(&Float::with_val(pt.bias_eq13.prec(), &pt.bias_eq13 / &tt)),
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(rho: &str) -> Setting {
        Setting::new(rho, 9, &parse_rational("0.1").unwrap(), &parse_rational("0.9999").unwrap()).unwrap()
    }

    fn close(got: &Interval, want: f64, rel: f64) -> bool {
        let w = Float::with_val(128, want);
        let tol = Float::with_val(128, want.abs() * rel);
        *got.lo() <= Float::with_val(128, &w + &tol) && *got.hi() >= Float::with_val(128, &w - &tol)
    }

    /// Reference values: scripts/reference/suppression_figures.{py,txt} (mpmath, 50 digits, direct summation
    /// of the discrete Gaussian pmf over |x| ≤ 40σ + 50; T found as the first t with cumulative mass ≥ 0.9999;
    /// eq. 13 with mpmath's npdf/ncdf). Independent of this crate. Printed to 15 digits.
    const REF: [(&str, i64, i64, f64, f64, f64); 15] = [
        // (ρ, T, n, P[suppressed], bias exact, eq. 13)
        ("0.008", 93, 0, 0.999908081094397, 99.4719071665148, 98.9852990265281),
        ("0.008", 93, 47, 0.968566008639766, 56.2518388408683, 55.8071917195814),
        ("0.008", 93, 93, 0.507978845608029, 20.2678828075046, 19.9471140200716),
        ("0.008", 93, 100, 0.397425200704816, 16.0024675293557, 15.7148390828473),
        ("0.008", 93, 186, 0.000107695006601291, 0.0106116690615969, 0.00986104539665763),
        ("0.159", 21, 0, 0.999938250279549, 22.8670404127958, 22.3353393775514),
        ("0.159", 21, 10, 0.979986275247432, 13.5923341890487, 13.1177571761099),
        ("0.159", 21, 21, 0.535570799788317, 4.80421836007634, 4.47431443878207),
        ("0.159", 21, 30, 0.06453494731219, 0.756853870257118, 0.652520878469104),
        ("0.159", 21, 42, 0.000125855051628336, 0.00275859249055621, 0.00201607287952584),
        ("0.543", 11, 0, 0.99992962736844, 12.318704348781, 11.7417927104667),
        ("0.543", 11, 5, 0.984292959239101, 7.64578560882049, 7.14044591389401),
        ("0.543", 11, 11, 0.565734745035977, 2.76229457578162, 2.42116924626068),
        ("0.543", 11, 15, 0.123295179067857, 0.708907939920964, 0.560297236557198),
        ("0.543", 11, 22, 0.000254610942732912, 0.00289425797508695, 0.00169673051804396),
    ];

    #[test]
    fn figures_1_2_match_mpmath() {
        for (rho, t, n, ps, bias, e13) in REF {
            let s = setting(rho);
            assert_eq!(s.t, t, "T at rho {rho} (Table 6)");
            let p = s.p_suppressed(n, 128);
            assert!(close(&p, ps, 1e-13), "rho {rho} n {n}: P[suppressed] {p:?} vs {ps}");
            assert!(p.width() < Float::with_val(128, 1e-30));
            let b = s.bias(n, 128);
            assert!(close(&b, bias, 1e-13), "rho {rho} n {n}: bias {b:?} vs {bias}");
            assert!(b.width() < Float::with_val(128, bias * 1e-25));
            let g = s.bias_eq13(n, 128).to_f64();
            assert!((g - e13).abs() <= e13 * 1e-13, "rho {rho} n {n}: eq. 13 {g} vs {e13}");
        }
    }

    /// Zero counts are suppressed with probability ≥ p by construction of T (eq. 12), and T − 1 would
    /// not do (T is the smallest such threshold): P[X ≤ T − 1] < p.
    #[test]
    fn zero_count_suppression_probability_is_at_least_p() {
        for rho in TABLE6_RHOS {
            let s = setting(rho);
            let p0 = s.p_suppressed(0, 128);
            assert!(*p0.lo() >= Float::with_val(128, 0.9999), "rho {rho}");
            let below = s.p_suppressed(1, 128); // P[1 + X ≤ T] = P[X ≤ T − 1]
            assert!(*below.hi() < Float::with_val(128, 0.9999), "rho {rho}");
        }
    }

    /// Shape: P[suppressed] falls and the bias falls as the true count grows (more room below T is
    /// needed for suppression; less truncation of the noise), and the bias is positive.
    #[test]
    fn curves_are_monotone_and_bias_positive() {
        let curves = table6_curves(96).unwrap();
        assert_eq!(curves.len(), 3);
        for (s, pts) in &curves {
            assert_eq!(pts.len() as i64, 2 * s.t + 1);
            for w in pts.windows(2) {
                assert!(w[1].p_suppressed.hi() < w[0].p_suppressed.lo(), "rho {} n {}", s.rho_text, w[1].n);
                assert!(w[1].bias.hi() < w[0].bias.lo(), "rho {} n {}", s.rho_text, w[1].n);
                assert!(*w[1].bias.lo() > 0);
            }
        }
        let csv = render_csv(&curves);
        assert_eq!(csv.lines().count(), 1 + (2 * 93 + 1) + (2 * 21 + 1) + (2 * 11 + 1));
        assert!(csv.lines().nth(1).unwrap().starts_with("0.008,625,93,0,0,"));
    }

    #[test]
    fn bad_rho_refused() {
        let g = parse_rational("0.1").unwrap();
        let p = parse_rational("0.9999").unwrap();
        assert!(Setting::new("0", 9, &g, &p).is_err());
        assert!(Setting::new("-1", 9, &g, &p).is_err());
        assert!(Setting::new("x", 9, &g, &p).is_err());
    }
}
