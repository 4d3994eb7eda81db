//! The rest of a tilted line bounded point by point (`engines::tilted`, module doc): where a law of the
//! composition has atoms (the Laplace mechanism, randomized response), |M(c + it)| comes back near its sup
//! every period of the atoms, and a bound that only decreases in t must take that height everywhere. The sup
//! bound ρ then sets the reach: e^{−cε} ρ/(π h K) below the tolerance took 54,785 points for 1,000 releases of
//! Laplace(10). Between the returns n factors hold |M| far below ρ, so the rest
//!
//!   e^{−cε} (h/π) Σ_{k > K} |M(c + ikh)| |H(kh)|,   |H(t)| ≤ 1/t²,
//!
//! is bounded here by the sum of the laws' moduli point by point (`noise::mgf_modulus`; a law without one
//! by its decay bound at the start of each chunk, which holds for every later t) over K < k ≤ F, plus the
//! sup bound's e^{−cε} ρ(hF)/(π h F) beyond F = 4·K_sup, a quarter of the tolerance. The planning takes the
//! shortest K whose rest so bounded, in f64, is below the tolerance; the line then certifies the same sum
//! in f64 ball arithmetic (`num::ball`), in chunks of fixed size added in order (the same bound on any number
//! of threads).

use crate::noise::mgf::{Decay, Mgf};
use crate::noise::mgf_modulus::{ln_up, Modulus};
use crate::noise::mgf_plan::PlanDecay;
use crate::num::ball::{Ball, BallSum, PI};
use rayon::prelude::*;
use rug::float::Round;
use rug::Float;

/// Lines the sup bound plans at most this long keep it (the point-by-point sum would save little).
pub(super) const FROM_POINTS: usize = 2048;
/// The point-by-point sum runs to this many times the sup bound's reach.
pub(super) const FAR_FACTOR: usize = 4;
/// Most points of the point-by-point sum.
const MAX_FAR: usize = 1 << 23;
/// Points per chunk of the certified sum (and per evaluation of a decay bound).
const CHUNK: usize = 4096;

/// One law of the composition as the rest sees it: its count, its modulus where it has one, else its decay.
pub(super) struct Factor<'a> {
    pub n: u64,
    pub modulus: Option<Modulus>,
    pub decay: Bound<'a>,
}

/// A decay bound, in f64 for the planning or certified for the line.
pub(super) enum Bound<'a> {
    Plan(PlanDecay),
    Certified(&'a Decay),
}

impl Bound<'_> {
    /// ln sup_{t ≥ t*} |M(c + it)|: approximately (planning) or an upper bound (certified).
    pub(super) fn ln_upper(&self, t: f64) -> f64 {
        match self {
            Bound::Plan(d) => d.ln_upper(t),
            Bound::Certified(d) => d.ln_upper(t).to_f64_round(Round::Up),
        }
    }
}

/// Whether any law of the composition has a modulus (else the sup bound is all there is).
pub(super) fn applies(laws: &[(Mgf, u64)], c: f64) -> bool {
    laws.iter().any(|(m, _)| m.modulus(c).is_some())
}

/// Planning: the shortest line K (points 0..=K) whose rest, summed point by point to F = 4·`k_sup` plus the
/// sup bound beyond (`ln_sup_far`: ln ρ(hF), summed over the laws), is below e^`ln_tol`, with F; None where
/// that is no shorter than half the sup bound's `k_sup`. `c_eps` is cε at the planning point.
pub(super) fn shorter(factors: &[Factor], h: f64, c_eps: f64, k_sup: usize, ln_sup_far: f64, ln_tol: f64) -> Option<(usize, usize)> {
    let far = k_sup.checked_mul(FAR_FACTOR).filter(|f| *f <= MAX_FAR)?;
    let far_rest = (ln_sup_far - c_eps).exp() / (std::f64::consts::PI * h * far as f64);
    let budget = ln_tol.exp() - far_rest;
    if !(budget > 0.0) {
        return None;
    }
    let mut acc = 0.0;
    let mut decays = vec![0.0; factors.len()];
    let mut block = usize::MAX;
    for k in (1..=far).rev() {
        let t = h * k as f64;
        // (the decay bounds of the laws without a modulus at the start of the block before k's: the
        // certified sum takes them at its chunks' starts, which lie after it)
        if k / CHUNK != block {
            block = k / CHUNK;
            let start = h * (block.saturating_sub(1) * CHUNK).max(1) as f64;
            for (d, f) in decays.iter_mut().zip(factors) {
                *d = if f.modulus.is_some() { 0.0 } else { f.decay.ln_upper(start) };
            }
        }
        let ln_m: f64 = factors.iter().zip(&decays).map(|(f, d)| f.n as f64 * f.modulus.as_ref().map_or(*d, |m| m.ln_f64(t))).sum();
        acc += (ln_m - c_eps).exp() / (std::f64::consts::PI * h * (k as f64) * (k as f64));
        if acc > budget {
            return (k < k_sup / 2).then_some((k, far));
        }
    }
    Some((1, far))
}

/// The certified part of the rest between the line's end and F, without the tilt: an upper bound of
/// ln[(h/π) Σ_{k_max < k ≤ F} |M(c + ikh)|/(kh)²], |M| = Π |M_i|^{n_i} bounded law by law (module doc).
/// `scale` is any value near ln M(c) (the terms are summed relative to it, so that none overflows).
pub(super) fn ln_near(factors: &[Factor], h: f64, k_max: usize, far: usize, scale: f64) -> f64 {
    // (a scale beyond f64's range — some M_i(c) past it — would meet −∞ + ∞ below: +∞, sound and useless)
    if !scale.is_finite() {
        return f64::INFINITY;
    }
    let starts: Vec<usize> = (k_max + 1..=far).step_by(CHUNK).collect();
    // (None: a law without a bound there, so no bound of the rest)
    let chunk = |&k0: &usize| -> Option<BallSum> {
        let k1 = (k0 + CHUNK - 1).min(far);
        let decays: Vec<f64> = factors.iter().map(|f| if f.modulus.is_some() { 0.0 } else { f.decay.ln_upper(h * k0 as f64) }).collect();
        let mut sum = BallSum::default();
        for k in k0..=k1 {
            let kf = k as f64;
            let t = Ball::exact(h).mul(Ball::exact(kf));
            let mut v = Ball::exact(-scale);
            for (f, d) in factors.iter().zip(&decays) {
                let ln_m = f.modulus.as_ref().map_or(*d, |m| m.ln_upper(t));
                if !(ln_m < f64::INFINITY) {
                    return None;
                }
                v = v.add(Ball::exact(f.n as f64).mul(Ball::exact(ln_m)));
            }
            // e^v/(k² h), k² exact below 2^53
            sum.add(v.exp().div(Ball::exact(kf * kf).mul(Ball::exact(h)))?);
        }
        Some(sum)
    };
    let parts: Vec<Option<BallSum>> = starts.par_iter().map(chunk).collect();
    let mut total = BallSum::default();
    for p in &parts {
        match p {
            Some(p) => total.merge(p),
            None => return f64::INFINITY,
        }
    }
    let hi = total.ball().div(PI).map_or(f64::INFINITY, |b| b.hi());
    if !hi.is_finite() {
        return f64::INFINITY;
    }
    // scale + ln(hi), rounded up: ln_up's bound plus the sum's own rounding (one ulp of each)
    let l = ln_up(hi);
    let s = scale + l;
    s + (s.abs() + 1.0) * 4.0 * f64::EPSILON
}

/// [`ln_near`] as a float for the line (rounded up to 64 bits: the f64 value is exact there).
pub(super) fn ln_near_float(factors: &[Factor], h: f64, k_max: usize, far: usize, scale: f64) -> Float {
    Float::with_val(64, ln_near(factors, h, k_max, far, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::loss::Direction;
    use crate::num::Interval;

    fn q(s: &str) -> rug::Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// ln[(h/π) Σ_{K < k ≤ F} Π|M_i(c + ikh)|^{n_i}/(kh)²] directly from the laws' MPFR lines (`Mgf::line`, 128
    /// bits): the sum [`ln_near`] bounds, computed another way (interval lines, not the f64 balls).
    fn direct(laws: &[(Mgf, u64)], c: f64, h: f64, k_max: usize, far: usize) -> f64 {
        let p = 128;
        let (cf, hf) = (Float::with_val(p, c), Float::with_val(p, h));
        let lines: Vec<_> = laws.iter().map(|(m, _)| m.line(Direction::Remove, &cf, &hf, far, 1e-40, p)).collect();
        let mut sum = Interval::zero(p);
        for k in k_max + 1..=far {
            let mut ln_m = Interval::zero(p);
            for ((_, n), line) in laws.iter().zip(&lines) {
                let v = &line[k];
                let abs2 = v.re().mul(v.re()).add(&v.im().mul(v.im()));
                ln_m = ln_m.add(&abs2.ln().mul(&Interval::from_i64(*n as i64, p)).div(&Interval::from_i64(2, p)));
            }
            let kh = Interval::from_float(&hf, p).mul(&Interval::from_i64(k as i64, p));
            sum = sum.add(&ln_m.exp().div(&kh.mul(&kh)));
        }
        sum.mul(&Interval::from_float(&hf, p)).div(&Interval::pi(p)).ln().hi().to_f64()
    }

    /// On laws with a modulus (Laplace, randomized response) the certified sum is never below the direct one,
    /// and within 1e-7 of it in ln (the balls' phases tε₀ at t up to 1,400 carry ~1e-13 each, times n = 300
    /// factors: ~1e-8 measured); with a Gaussian beside them (its decay bound, taken at each chunk's start),
    /// above it.
    #[test]
    fn the_near_rest_bounds_the_direct_sum() {
        let rr = crate::noise::rr::RandomizedResponse::new(q("1/2"), 2).unwrap();
        let cases: Vec<(Vec<(Mgf, u64)>, f64, f64, usize, usize, bool)> = vec![
            (vec![(Mgf::Laplace { eps0: q("1/10") }, 300)], 1.75, 0.15625, 200, 9_000, true),
            (vec![(Mgf::Laplace { eps0: q("1/2") }, 40), (Mgf::RandomizedResponse(rr), 7)], 0.875, 0.25, 50, 6_000, true),
            (vec![(Mgf::Laplace { eps0: q("1/4") }, 100), (Mgf::Gaussian { eta: q("1/200") }, 3)], 1.25, 0.125, 100, 5_000, false),
        ];
        for (laws, c, h, k_max, far, tight) in &cases {
            let cf = Float::with_val(128, *c);
            let decays: Vec<Decay> = laws
                .iter()
                .map(|(m, _)| {
                    let m_c = m.line(Direction::Remove, &cf, &Float::with_val(128, *h), 0, 1e-40, 128)[0].re().hi().clone();
                    m.decay(Direction::Remove, &cf, &m_c, 128)
                })
                .collect();
            let factors: Vec<Factor> =
                laws.iter().zip(&decays).map(|((m, n), d)| Factor { n: *n, modulus: m.modulus(*c), decay: Bound::Certified(d) }).collect();
            let bound = ln_near(&factors, *h, *k_max, *far, 3.0);
            let want = direct(laws, *c, *h, *k_max, *far);
            assert!(bound >= want, "{laws:?}: {bound} below the direct {want}");
            if *tight {
                assert!(bound - want < 1e-7, "{laws:?}: {bound} against the direct {want}");
            }
            // a scale beyond f64's range: no bound (+∞), never NaN
            for scale in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
                assert_eq!(ln_near(&factors, *h, *k_max, *far, scale), f64::INFINITY);
            }
        }
    }
}
