//! The mixture-of-Gaussians mechanism (dp_accounting's `MixtureOfGaussiansDpEvent`): the output is
//! N(0, σ²) without the record and Σᵢ pᵢ N(cᵢ, σ²) with it, the record's sensitivity a random variable
//! equal to cᵢ ≥ 0 with probability pᵢ. It is the scalar mechanism that dominates a matrix mechanism with
//! amplification [CGST24, Cor. 4.7] (each sensitivity vector replaced by its norm), and the
//! Poisson-subsampled Gaussian is its case c = (0, 1), p = (1 − q, q).
//!
//! With p₀ the probability of sensitivity 0 and y = x/σ² the privacy loss of the `Remove` pair
//! (A = the mixture, B = N(0, σ²)) is
//!
//!   L(y) = ln Σᵢ pᵢ e^{cᵢ y − ηᵢ},    ηᵢ = cᵢ²/(2σ²),                                              (1)
//!
//! a log-sum-exp of lines with slopes cᵢ ≥ 0: increasing in y from ln p₀ (−∞ when p₀ = 0) to +∞. So
//! {L ≥ ℓ} = {y ≥ y*}, with y* the root of L(y*) = ℓ, and in standard units z = x/σ = σy
//!
//!   A[L ≥ ℓ] = Σᵢ pᵢ Φ̄(σy* − cᵢ/σ),    B[L ≥ ℓ] = Φ̄(σy*).                                       (2)
//!
//! The `Add` pair is (B, A), with loss −L(y): {−L ≥ ℓ} = {y ≤ y*(−ℓ)}. L is continuous (no atoms), so
//! the side a boundary point lies on carries no mass. y* is found by Newton's method in MPFR and then
//! enclosed: two rationals y₋ < y₊ with L(y₋) < ℓ < L(y₊) certified by interval arithmetic; the masses
//! (2) are evaluated on the interval [y₋, y₊], which holds y*, and so enclose the true ones.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::special::{normal_cdf, normal_sf};
use crate::num::Interval;
use rug::{Float, Rational};
use std::sync::Arc;

/// The highest precision at which ℓ is compared with the end ln p₀ of the loss before the split fails.
const MAX_COMPARE_PREC: u32 = 4096;
/// Components a mixture may have (each split evaluates all of them a few dozen times).
pub const MAX_COMPONENTS: usize = 1000;

/// The mixture-of-Gaussians mechanism (module doc), in canonical form: positive sensitivities, distinct
/// and increasing, with their probabilities; the rest, p₀ = 1 − Σ pᵢ, at sensitivity 0.
#[derive(Clone, Debug)]
pub struct MixtureOfGaussians {
    sigma2: Rational,
    sens: Vec<Rational>,
    probs: Vec<Rational>,
}

impl MixtureOfGaussians {
    /// σ² > 0 and (cᵢ, pᵢ) with cᵢ ≥ 0, pᵢ ≥ 0, Σ pᵢ ≤ 1 (the rest at sensitivity 0); equal sensitivities
    /// merge, zero ones and zero probabilities drop. At least one positive sensitivity must remain.
    pub fn new(sigma2: Rational, parts: &[(Rational, Rational)]) -> Fallible<MixtureOfGaussians> {
        if sigma2 <= 0 {
            return crate::fallible!(Input, "the Gaussian variance sigma2 must be positive, got {sigma2}");
        }
        if parts.len() > MAX_COMPONENTS {
            return crate::fallible!(Input, "a mixture of at most {MAX_COMPONENTS} sensitivities is supported, got {}", parts.len());
        }
        let mut total = Rational::new();
        let mut merged: Vec<(Rational, Rational)> = Vec::new();
        for (c, p) in parts {
            if *c < 0 || *p < 0 {
                return crate::fallible!(Input, "sensitivities and their probabilities must be non-negative, got {c} with {p}");
            }
            total += p;
            if *c == 0 || *p == 0 {
                continue;
            }
            match merged.iter_mut().find(|(x, _)| x == c) {
                Some((_, q)) => *q += p,
                None => merged.push((c.clone(), p.clone())),
            }
        }
        if total > 1 {
            return crate::fallible!(
                Input,
                "the probabilities of the sensitivities sum to {}, above 1",
                crate::num::format::fmt_rational(&total)
            );
        }
        if merged.is_empty() {
            return crate::fallible!(
                Input,
                "a mixture with no positive sensitivity of positive probability releases nothing about the record"
            );
        }
        merged.sort_by(|a, b| a.0.cmp(&b.0));
        let (sens, probs) = merged.into_iter().unzip();
        Ok(MixtureOfGaussians { sigma2, sens, probs })
    }

    /// From `--mech mog:sigma=S,sens=C1:C2:…,probs=P1:P2:…` (or `sigma2=`): the lists colon-separated,
    /// of one length; the probabilities sum to at most 1, the rest at sensitivity 0. A mixture with one
    /// positive sensitivity c of probability q is the Gaussian of sensitivity c on a Poisson subsample with
    /// probability q (`gauss:…,q=`), and is returned as that law, which has more engines.
    pub fn law_from_params(p: &mut crate::noise::params::Params) -> Fallible<Arc<dyn LossLaw>> {
        let sigma2 = p.variance("sigma (the noise standard deviation)")?;
        let list = |p: &mut crate::noise::params::Params, key: &str| -> Fallible<Vec<Rational>> {
            let v = p.take(key).ok_or_else(|| crate::err!(Input, "mechanism '{}': missing {key} (a list C1:C2:...)", p.spec()))?;
            v.split(':')
                .map(|s| crate::num::parse_rational(s.trim()).map_err(|e| e.context(format!("mechanism '{}': {key}", p.spec()))))
                .collect()
        };
        let sens = list(p, "sens")?;
        let probs = list(p, "probs")?;
        if sens.len() != probs.len() {
            return crate::fallible!(
                Input,
                "mechanism '{}': sens has {} entries and probs {}; give one probability per sensitivity",
                p.spec(),
                sens.len(),
                probs.len()
            );
        }
        let parts: Vec<_> = sens.into_iter().zip(probs).collect();
        let m = MixtureOfGaussians::new(sigma2, &parts).map_err(|e| e.context(format!("mechanism '{}'", p.spec())))?;
        m.simplest()
    }

    /// This law, or where it has one positive sensitivity, the subsampled Gaussian it is.
    fn simplest(self) -> Fallible<Arc<dyn LossLaw>> {
        if self.sens.len() > 1 {
            return Ok(Arc::new(self));
        }
        let g: Arc<dyn LossLaw> = Arc::new(crate::noise::gauss::Gaussian::new(self.sigma2, self.sens[0].clone())?);
        if self.probs[0] == 1 {
            return Ok(g);
        }
        Ok(Arc::new(crate::noise::subsample::PoissonSampled::new(g, self.probs[0].clone())?))
    }

    /// p₀ = 1 − Σ pᵢ, the probability of sensitivity 0.
    fn p0(&self) -> Rational {
        Rational::from(1) - self.probs.iter().sum::<Rational>()
    }

    /// R(y) = ln Σᵢ pᵢ e^{cᵢ y − ηᵢ} over the positive sensitivities, enclosed for y in `y`: L = ln(p₀ + e^R).
    fn r_of(&self, y: &Interval) -> Interval {
        let p = y.prec();
        let mut s = Interval::zero(p);
        for (c, pr) in self.sens.iter().zip(&self.probs) {
            let e = y.mul_rational(c).sub(&Interval::from_rational(&self.eta(c), p)).exp();
            s = s.add(&e.mul_rational(pr));
        }
        s.ln()
    }

    /// ηᵢ = cᵢ²/(2σ²).
    fn eta(&self, c: &Rational) -> Rational {
        Rational::from(c * c) / (Rational::from(2) * self.sigma2.clone())
    }

    /// R(y) and R'(y) at the point y (Newton's step; not certified).
    fn r_and_slope(&self, y: &Float) -> (Float, Float) {
        let p = y.prec();
        // scaled by the largest term, so that no exponential leaves MPFR's range
        let ts: Vec<Float> = self
            .sens
            .iter()
            .zip(&self.probs)
            .map(|(c, pr)| Float::with_val(p, y * c) - self.eta(c) + Float::with_val(p, pr).ln())
            .collect();
        let top = ts.iter().cloned().fold(Float::with_val(p, f64::NEG_INFINITY), |a, b| a.max(&b));
        let (mut s, mut ds) = (Float::with_val(p, 0), Float::with_val(p, 0));
        for (t, c) in ts.iter().zip(&self.sens) {
            let e = Float::with_val(p, t - &top).exp();
            ds += Float::with_val(p, &e * c);
            s += e;
        }
        let slope = Float::with_val(p, &ds / &s);
        (s.ln() + top, slope)
    }

    /// R(y) in f64 (planning), without overflow.
    fn r_f64(&self, y: f64) -> f64 {
        let terms: Vec<f64> =
            self.sens.iter().zip(&self.probs).map(|(c, p)| p.to_f64().ln() + c.to_f64() * y - self.eta(c).to_f64()).collect();
        let m = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        m + terms.iter().map(|t| (t - m).exp()).sum::<f64>().ln()
    }

    /// L(y) in f64 (planning): ln(p₀ + e^{R(y)}).
    fn loss_f64(&self, y: f64) -> f64 {
        let (r, p0) = (self.r_f64(y), self.p0().to_f64());
        if p0 <= 0.0 {
            return r;
        }
        let l0 = p0.ln();
        if r > l0 {
            r + (l0 - r).exp().ln_1p()
        } else {
            l0 + (r - l0).exp().ln_1p()
        }
    }

    /// The root of R(y) = r in f64 by bisection (R rises with slope at least the least cᵢ > 0).
    fn root_f64(&self, r: f64) -> f64 {
        let (mut lo, mut hi) = (-1.0f64, 1.0f64);
        while self.r_f64(hi) < r && hi < 1e300 {
            hi *= 2.0;
        }
        while self.r_f64(lo) >= r && lo > -1e300 {
            lo *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.r_f64(mid) >= r {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Where ℓ lies against the lower end ln p₀ of (1): `Some(true)` when ℓ ≤ ln p₀ (every loss is above
    /// ℓ), `Some(false)` when ℓ > ln p₀ (the root exists); decided at rising precision (ln p₀ is
    /// transcendental for rational p₀ ∉ {0, 1}, so the two never tie).
    fn below_end(&self, l: &Rational, prec: u32) -> Fallible<bool> {
        let p0 = self.p0();
        if p0 == 0 {
            return Ok(false);
        }
        let mut p = prec.max(64);
        while p <= MAX_COMPARE_PREC {
            let end = Interval::from_rational(&p0, p).ln();
            let li = Interval::from_rational(l, p);
            if li.hi() <= end.lo() {
                return Ok(true);
            }
            if li.lo() > end.hi() {
                return Ok(false);
            }
            p *= 2;
        }
        crate::fallible!(Internal, "the loss {l} and the end ln p0 of {} undecided at {MAX_COMPARE_PREC} bits", self.spec())
    }

    /// The target r = ln(e^ℓ − p₀) of R (L = ℓ ⟺ R = r) enclosed, for ℓ above ln p₀, and the precision at
    /// which it has `prec` bits: e^ℓ − p₀ loses to cancellation the bits by which it is below 1.
    fn target(&self, l: &Rational, prec: u32) -> Fallible<(Interval, u32)> {
        let p0 = self.p0();
        let mut p = prec;
        loop {
            let g = Interval::from_rational(l, p).exp().sub(&Interval::from_rational(&p0, p));
            if *g.lo() > 0 {
                let lost = (-g.lo().to_f64().log2()).max(0.0).ceil() as u32;
                if p >= prec + lost || p >= MAX_COMPARE_PREC {
                    return Ok((g.ln(), p));
                }
                p = (prec + lost + 16).min(MAX_COMPARE_PREC);
            } else if p >= MAX_COMPARE_PREC {
                return crate::fallible!(Internal, "e^l - p0 of {} at {l} not resolved at {MAX_COMPARE_PREC} bits", self.spec());
            } else {
                p = (2 * p).min(MAX_COMPARE_PREC);
            }
        }
    }

    /// An interval [y₋, y₊] that holds the root y* of L(y*) = ℓ (module doc), for ℓ above ln p₀: Newton's
    /// method on R(y) = r in MPFR (R is convex and rises with slope at least the least cᵢ, so the step is
    /// well conditioned), then two rationals around it with R(y₋) < r < R(y₊) certified.
    fn root(&self, l: &Rational, prec: u32) -> Fallible<Interval> {
        let (r, p) = self.target(l, prec + 32)?;
        let rm = r.mid();
        let mut y = Float::with_val(p, self.root_f64(rm.to_f64()));
        if !y.is_finite() {
            y = Float::with_val(p, 0);
        }
        let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32)));
        for _ in 0..64 {
            let (v, d) = self.r_and_slope(&y);
            if !(d.is_finite() && d > 0 && v.is_finite()) {
                break;
            }
            let step = Float::with_val(p, &v - &rm) / d;
            y -= &step;
            if step.abs() <= Float::with_val(p, 1 + y.clone().abs()) * &tiny {
                break;
            }
        }
        let y = y.to_rational().ok_or_else(|| crate::err!(Internal, "the root of {} at {l} is not finite", self.spec()))?;
        let mut d = (Rational::from(1) + y.clone().abs()) * (Rational::from(1) >> (p - 16));
        for _ in 0..64 {
            let (lo, hi) = (Interval::from_rational(&Rational::from(&y - &d), p), Interval::from_rational(&Rational::from(&y + &d), p));
            if self.r_of(&lo).hi() < r.lo() && self.r_of(&hi).lo() > r.hi() {
                return Ok(Interval::new(lo.lo().clone(), hi.hi().clone()));
            }
            d <<= 8;
        }
        crate::fallible!(Internal, "the root of the loss of {} at {l} was not enclosed", self.spec())
    }

    /// The standard points σy − cᵢ/σ of (2) for y in `y` (the components), and σy (N(0, 1)).
    fn points(&self, y: &Interval) -> (Vec<Interval>, Interval) {
        let p = y.prec();
        let s2 = Interval::from_rational(&self.sigma2, p);
        let sigma = s2.sqrt();
        let x = y.mul(&s2);
        let comps = self.sens.iter().map(|c| x.sub(&Interval::from_rational(c, p)).div(&sigma)).collect();
        (comps, x.div(&sigma))
    }

    /// Σᵢ pᵢ f(zᵢ) + p₀ f(z₀) over the components (f a mass above or below a point).
    fn mix(&self, f: fn(&Interval) -> Interval, comps: &[Interval], z0: &Interval) -> Interval {
        let mut s = f(z0).mul(&Interval::from_rational(&self.p0(), z0.prec()));
        for (z, pr) in comps.iter().zip(&self.probs) {
            s = s.add(&f(z).mul_rational(pr));
        }
        s
    }
}

impl LossLaw for MixtureOfGaussians {
    fn spec(&self) -> String {
        let fr = crate::num::format::fmt_rational;
        let join = |v: &[Rational]| v.iter().map(fr).collect::<Vec<_>>().join(":");
        format!("mog:sigma2={},sens={},probs={}", fr(&self.sigma2), join(&self.sens), join(&self.probs))
    }

    fn symmetric(&self) -> bool {
        false
    }

    fn split(&self, dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let p = prec + 16;
        let (zero, one) = (Interval::zero(p), Interval::one(p));
        // Remove: {L ≥ ℓ} = {y ≥ y*(ℓ)}; Add: {−L ≥ ℓ} = {y ≤ y*(−ℓ)}
        let at = match dir {
            Direction::Remove => l.clone(),
            Direction::Add => -l.clone(),
        };
        if self.below_end(&at, p)? {
            // Remove: every loss is at or above ℓ; Add: no loss is
            let all = Split { a_below: zero.clone(), a_above: one.clone(), b_below: zero.clone(), b_above: one.clone() };
            let none = Split { a_below: one.clone(), a_above: zero.clone(), b_below: one, b_above: zero };
            return Ok(if dir == Direction::Remove { all } else { none });
        }
        let y = self.root(&at, p)?;
        let (comps, z0) = self.points(&y);
        let (mix_above, mix_below) = (self.mix(normal_sf, &comps, &z0), self.mix(normal_cdf, &comps, &z0));
        Ok(match dir {
            Direction::Remove => Split { a_below: mix_below, a_above: mix_above, b_below: normal_cdf(&z0), b_above: normal_sf(&z0) },
            Direction::Add => Split { a_below: normal_sf(&z0), a_above: normal_cdf(&z0), b_below: mix_above, b_above: mix_below },
        })
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, dir: Direction) -> LossRange {
        let p0 = self.p0();
        let end = |sign: i32| match p0 == 0 {
            true => End::Open,
            false => {
                let e = Interval::from_rational(&p0, 128).ln();
                End::Limit(if sign < 0 { e.neg() } else { e })
            }
        };
        match dir {
            Direction::Remove => LossRange { lo: end(1), hi: End::Open },
            Direction::Add => LossRange { lo: End::Open, hi: end(-1) },
        }
    }

    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let sigma = self.sigma2.to_f64().sqrt();
        let s: Vec<(f64, f64)> = self.sens.iter().zip(&self.probs).map(|(c, p)| (c.to_f64() / sigma, p.to_f64())).collect();
        let p0 = self.p0().to_f64();
        // ln of a mass above (sign 1) or below (sign −1) the standard point z, of the mixture or of N(0, 1)
        let ln_mix = |z: f64, sign: f64| {
            let mut t: Vec<f64> = s.iter().map(|(si, pi)| pi.ln() + ln_sf_f64(sign * (z - si))).collect();
            if p0 > 0.0 {
                t.push(p0.ln() + ln_sf_f64(sign * z));
            }
            let m = t.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            m + t.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
        };
        // the mass of A on the wanted side of the standard point z: Remove's A is the mixture, L rises with z
        let tail = |z: f64| match (dir, upper) {
            (Direction::Remove, true) => ln_mix(z, 1.0),
            (Direction::Remove, false) => ln_mix(z, -1.0),
            (Direction::Add, true) => ln_sf_f64(-z),
            (Direction::Add, false) => ln_sf_f64(z),
        };
        let target = ln_p.max(-700.0);
        let bound = 40.0 + 2.0 * s.last().map_or(0.0, |x| x.0);
        let (mut lo, mut hi) = (-bound, bound);
        // the tail at z rises with z for (Remove, below) and (Add, upper), falls otherwise
        let rising = matches!((dir, upper), (Direction::Remove, false) | (Direction::Add, true));
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if (tail(mid) > target) == rising {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let l = self.loss_f64(0.5 * (lo + hi) / sigma);
        if dir == Direction::Remove {
            l
        } else {
            -l
        }
    }

    /// The moment generating function on vertical lines by certified quadrature (`noise::mgf`, the
    /// subsampled Gaussian's rule with the strip |Im x| < π/μ_max), in standard units μᵢ = cᵢ/σ; where
    /// p₀ > 0 (the bounds of the rule's left tail need r ≥ p₀).
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        if self.p0() <= 0 {
            return None;
        }
        let parts = self.sens.iter().zip(&self.probs).map(|(c, p)| (p.clone(), self.eta(c))).collect();
        Some(crate::noise::mgf::Mgf::Mixture { parts })
    }

    /// The mixture is defined under add/remove neighbours (dp_accounting: `ADD_OR_REMOVE_ONE`).
    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        match neighbors {
            Neighbors::AddRemove => Ok(1),
            Neighbors::Replace => crate::fallible!(
                Input,
                "{}: the mixture-of-Gaussians mechanism is defined under add/remove neighbours (as dp_accounting's MixtureOfGaussiansDpEvent); give --neighbors add-remove",
                self.spec()
            ),
        }
    }

    fn scaled(&self, c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        let parts: Vec<_> = self.sens.iter().cloned().zip(self.probs.iter().cloned()).collect();
        Some(MixtureOfGaussians::new(self.sigma2.clone() * c.clone(), &parts).and_then(|m| m.simplest()))
    }
}

/// ln Φ̄(z) in f64 without underflow (planning): MPFR's erfc, whose exponent range holds any f64 z.
fn ln_sf_f64(z: f64) -> f64 {
    let v = Float::with_val(64, z / std::f64::consts::SQRT_2).erfc() / 2u32;
    if v.is_zero() {
        return f64::NEG_INFINITY;
    }
    v.ln().to_f64()
}

#[cfg(test)]
mod tests;
