//! The shape of a composition: what its groups' Gaussian-shift structure says before any certified
//! evaluation. [`Shape`] holds f64 estimates of ln M(c) and its derivative (parameter choice only: tilt,
//! node step, starting ε); [`Lattice`] the lattice a + sℤ the loss lives on, which makes the
//! characteristic function periodic up to an exact phase (docs/smoothed-fourier.md §4, "Period of the
//! loss lattice").

use super::dlap::{LapGroup, LapShape};
use super::{ball_of, CP};
use crate::model::GaussGroup;
use crate::num::ball::{up, Ball, CBall, ETA, TAU, U};
use crate::num::Interval;
use rug::Rational;

/// The lattice of the loss: one query's L = (μ² − 2μX)/(2σ²) lies in μ²/(2σ²) + (μ/σ²)ℤ, so the
/// composition's in a + sℤ with s = gcd_q μ_q/σ_q² and a = Σ_q n_q μ_q²/(2σ_q²). Hence the characteristic
/// function is periodic up to a phase: with T = 2π/s, M(c + i(t + T)) = e^{iaT} M(c + it), e^{iaT} =
/// e^{2πi·frac(a/s)} exactly (e^{iTsk} = 1 for every integer k).
pub(super) struct Lattice {
    /// s
    pub(super) step: Rational,
    /// frac(a/s) ∈ [0, 1)
    pub(super) phase: Rational,
}

impl Lattice {
    #[cfg(test)]
    pub(super) fn of(groups: &[GaussGroup]) -> Lattice {
        Lattice::of_mixed(groups, &[])
    }

    /// The lattice with discrete Laplace groups too: one DLap query's loss lies in μ/b + (2/b)ℤ
    /// (docs/smoothed-fourier.md §8), so s = gcd(μ_q/σ_q², 2/b_l) and a = Σ n μ²/(2σ²) + Σ n μ/b.
    pub(super) fn of_mixed(groups: &[GaussGroup], lap: &[LapGroup]) -> Lattice {
        let mut slopes: Vec<Rational> = groups.iter().map(|g| Rational::from(g.mu) / g.sigma2.clone()).collect();
        slopes.extend(lap.iter().map(|l| Rational::from(2) / l.scale.clone()));
        let (step, _) = crate::pld::frame::common_step(&slopes);
        // a = Σ n μ²/(2σ²) is the Gaussian groups' zCDP ρ
        let a = lap.iter().fold(crate::model::gauss_rho(groups), |a, l| a + Rational::from(l.count) * l.mu / l.scale.clone());
        let q = a / step.clone();
        let phase = &q - Rational::from(q.floor_ref());
        Lattice { step, phase }
    }

    /// e^{iaTk} = e^{2πi·frac(k·frac(a/s))} as a ball (the fraction's f64 is within 2U of itself).
    pub(super) fn phase_of(&self, k: usize) -> CBall {
        let f = &self.phase * Rational::from(k);
        let f = (&f - Rational::from(f.floor_ref())).to_f64();
        CBall::cis(TAU.mul(Ball::new(f, up(2.0 * U * f + ETA))))
    }

    /// h/(2π) = 1/(m·s) for the step h = T/m fitted to m nodes per period.
    pub(super) fn h_over_tau(&self, m: usize) -> Ball {
        ball_of(&Interval::from_rational(&(Rational::from(1) / (Rational::from(m) * self.step.clone())), CP))
    }
}

/// The groups in double precision, for choosing parameters only (tilt, node spacing, starting ε): the
/// θ-series weights e^{−2π²k²σ²} and D(0) are computed once, not at every one of the thousands of
/// evaluations of ln M(c) a saddle-point search makes.
pub(super) struct Shape {
    parts: Vec<ShapePart>,
    lap: Vec<LapShape>,
    /// Σ n μ²/σ²: the variance of the loss (continuous approximation)
    pub(super) var: f64,
}

struct ShapePart {
    count: f64,
    mu: f64,
    s2: f64,
    /// e^{−2π²k²σ²}, k = 1..=K, without the trailing ones that cannot change D(c) in f64
    e: Vec<f64>,
    /// D(0) = 1 + 2 Σ_k e_k
    d0: f64,
}

impl Shape {
    #[cfg(test)]
    pub(super) fn new(groups: &[GaussGroup]) -> Shape {
        Shape::with_lap(groups, &[])
    }

    /// The shape of Gaussian groups and discrete Laplace groups `lap`.
    pub(super) fn with_lap(groups: &[GaussGroup], lap: &[LapGroup]) -> Shape {
        let parts = groups
            .iter()
            .map(|g| {
                let s2 = g.sigma2.to_f64();
                let a = 2.0 * std::f64::consts::PI.powi(2) * s2;
                let mut e: Vec<f64> = (1..=((200.0 / a).sqrt().ceil() as i64).max(1)).map(|k| (-a * (k * k) as f64).exp()).collect();
                let d0 = e.iter().fold(1.0, |d, &x| d + 2.0 * x);
                // D(c) = 1 + Σ 2e_k cos(…) stays ≥ 1/2 when Σ 2e_k ≤ 1/2; then a term with 2e_k < 2^-55 is
                // below half an ulp of the running sum and adding it changes nothing (nor do the smaller
                // ones after it): those cosines are not needed
                if 2.0 * e.iter().sum::<f64>() <= 0.5 {
                    e.truncate(e.iter().take_while(|&&x| 2.0 * x >= 2f64.powi(-55)).count());
                }
                ShapePart { count: g.count as f64, mu: g.mu as f64, s2, e, d0 }
            })
            .collect();
        let lap: Vec<LapShape> = lap.iter().map(LapShape::new).collect();
        let var = groups.iter().map(|g| g.count as f64 * (g.mu as f64).powi(2) / g.sigma2.to_f64()).sum::<f64>()
            + lap.iter().map(LapShape::var).sum::<f64>();
        Shape { parts, lap, var }
    }

    /// f64 estimates of ln M(c) and of its derivative Σ_q n_q [(1 + 2c)μ²/(2σ²) + D_q′(c)/D_q(c)],
    /// D_q′(c) = −Σ_k 2e_k·2πkμ sin(2πkcμ).
    pub(super) fn ln_mgf_d(&self, c: f64) -> (f64, f64) {
        let (mut k_sum, mut d_sum) = (0.0, 0.0);
        for g in &self.parts {
            let (mut dc, mut ddc) = (1.0, 0.0);
            for (k, &e) in g.e.iter().enumerate() {
                let f = 2.0 * std::f64::consts::PI * (k + 1) as f64 * g.mu;
                let (s, co) = (f * c).sin_cos();
                dc += 2.0 * e * co;
                ddc -= 2.0 * e * f * s;
            }
            k_sum += g.count * ((c + c * c) * g.mu * g.mu / (2.0 * g.s2) + (dc / g.d0).ln());
            d_sum += g.count * ((1.0 + 2.0 * c) * g.mu * g.mu / (2.0 * g.s2) + ddc / dc);
        }
        for l in &self.lap {
            let (k, d) = l.ln_mgf_d(c);
            k_sum += k;
            d_sum += d;
        }
        (k_sum, d_sum)
    }

    /// f64 estimate of ln M(c) = Σ_q n_q [(c + c²)μ²/(2σ²) + ln(D_q(c)/D_q(0))].
    pub(super) fn ln_mgf(&self, c: f64) -> f64 {
        self.parts
            .iter()
            .map(|g| {
                let mut dc = 1.0;
                for (k, &e) in g.e.iter().enumerate() {
                    dc += 2.0 * e * (2.0 * std::f64::consts::PI * (k + 1) as f64 * c * g.mu).cos();
                }
                g.count * ((c + c * c) * g.mu * g.mu / (2.0 * g.s2) + (dc / g.d0).ln())
            })
            .sum::<f64>()
            + self.lap.iter().map(|l| l.ln_mgf_d(c).0).sum::<f64>()
    }
}
