//! Privacy profiles δ(ε), ε(δ) and trade-off functions of discrete Gaussian compositions on the lattice.
//!
//! For mechanisms M_i(D) + N_Z(0, σ_i²) on integer queries with sensitivities μ_i, the privacy loss of
//! the composition under the null is L = Σ μ_i X_i/σ_i² − ρ and under the alternative L = Σ μ_i X_i/σ_i² + ρ,
//! with ρ = Σ μ_i²/(2σ_i²) (census-2020-more-private-fdp.txt eq. A.9; the loss of one query is
//! (2μx − μ²)/(2σ²)). When every μ_i/σ_i² is an integer multiple w_i of a common step h, the statistic
//! V = Σ w_i X_i is integer-valued and symmetric and, by Lemma A.9 (Prop. 3.2 of its ref. 60),
//!
//!   δ(ε) = P[V > (ε − ρ)/h] − e^ε · P[V > (ε + ρ)/h]                                   (both terms)
//!
//! For one level (n i.i.d. queries, σ², μ) this is Proposition A.10 / Theorem A.7: V = ΣX_i, h = μ/σ².
//! D := 2ρ/h is an integer (= Σ n_i μ_i w_i), the alternative is V shifted by D, and the likelihood-ratio
//! test that rejects for V ≥ c has errors (α, β) = (P[V ≥ c], P[V ≥ D + 1 − c]): the exact knots of the
//! trade-off function (Theorem A.7 for n = 1 and its n-fold extension A.5/A.6).
//!
//! Between consecutive knots ε_k = hk + ρ the two probabilities are constant, so δ(ε) = A_k − e^ε B_k
//! there and ε(δ) = ln((A_k − δ)/B_k) in closed form on the right segment: no bisection on ε at all.

use crate::num::Interval;
use crate::pld::lattice::{LatticeDist, Survival};
use crate::pld::search;
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// A privacy profile on a loss lattice: L = hV ∓ ρ with V integer, symmetric, law given by `surv`.
#[derive(Clone, Debug)]
pub struct PrivacyProfile {
    pub surv: Survival,
    pub h: Rational,
    pub rho: Rational,
    pub d: i64,
    pub prec: u32,
}

/// δ(ε) with both of its terms.
#[derive(Clone, Debug)]
pub struct DeltaValue {
    pub delta: Interval,
    /// P[L_Q > ε] = P[V > (ε − ρ)/h]
    pub first: Interval,
    /// e^ε P[L_P > ε] = e^ε P[V > (ε + ρ)/h]
    pub second: Interval,
}

/// One knot of the trade-off function: type I error α and type II error β.
#[derive(Clone, Debug)]
pub struct Knot {
    pub c: i64,
    pub alpha: Interval,
    pub beta: Interval,
}

impl PrivacyProfile {
    /// n i.i.d. N_Z(0, σ²) queries with sensitivity μ (add/remove neighbours): V = Σ X_i, h = μ/σ²,
    /// ρ = nμ²/(2σ²), D = nμ.
    pub fn iid_dgauss(sigma2: &Rational, n: u32, mu: u32, prec: u32) -> PrivacyProfile {
        let dist = LatticeDist::iid_dgauss_sum(sigma2, n, prec);
        let h = Rational::from(mu) / sigma2.clone();
        let rho = Rational::from(n) * Rational::from(mu) * Rational::from(mu) / (Rational::from(2u32) * sigma2.clone());
        PrivacyProfile::from_dist(&dist, h, rho)
    }

    /// From the law of V, the step h and ρ (2ρ/h must be an integer).
    pub fn from_dist(dist: &LatticeDist, h: Rational, rho: Rational) -> PrivacyProfile {
        let dq = Rational::from(2u32) * rho.clone() / h.clone();
        assert!(dq.denom() == &Integer::from(1), "2ρ/h is not an integer");
        let d = dq.numer().to_i64().expect("D out of range");
        PrivacyProfile { surv: dist.survival(), h, rho, d, prec: dist.prec }
    }

    fn p(&self) -> u32 {
        self.prec
    }

    /// ε_k = hk + ρ, the left end of segment k (exact).
    pub fn knot_eps(&self, k: i64) -> Rational {
        (&self.h * Rational::from(k)) + &self.rho
    }

    /// Segment containing ε (ε ≥ 0 exact): k = ⌊(ε − ρ)/h⌋.
    pub fn segment_of(&self, eps: &Rational) -> i64 {
        let x = Rational::from(eps - &self.rho) / &self.h;
        let f = Rational::from(x.floor_ref());
        f.numer().to_i64().expect("segment index out of range")
    }

    fn seg_ab(&self, k: i64) -> (Interval, Interval) {
        (self.surv.ge(k + 1), self.surv.ge(k + 1 + self.d))
    }

    /// δ(ε) for an exact ε, with both terms (Lemma A.9).
    pub fn delta(&self, eps: &Rational) -> DeltaValue {
        let k = self.segment_of(eps);
        let (a, b) = self.seg_ab(k);
        let e = Interval::from_rational(eps, self.p()).exp();
        let second = e.mul(&b);
        let mut delta = a.sub(&second);
        if delta.lo < 0 {
            // δ(ε) ≥ 0 always (it is a supremum over events including the empty one).
            delta.lo = Float::with_val(self.p(), 0);
        }
        DeltaValue { delta, first: a, second }
    }

    /// δ at the left knot of segment k, or at ε = 0 if that knot is negative.
    fn delta_at_knot(&self, k: i64) -> Interval {
        let ek = self.knot_eps(k);
        let e = if ek < 0 { Rational::from(0) } else { ek };
        self.delta(&e).delta
    }

    /// The segment index containing ε = 0.
    fn k0(&self) -> i64 {
        self.segment_of(&Rational::from(0))
    }

    /// Smallest ε ≥ 0 with δ(ε) ≤ δ, certified: the returned interval provably contains it, or an error
    /// says why no bracket could be certified. Errors if δ ∉ (0, 1).
    ///
    /// δ(ε) is continuous and non-increasing, so a knot ε_a with δ(ε_a) > δ *certainly* (interval lower end
    /// above δ) proves ε* > ε_a, and a knot ε_b with δ(ε_b) < δ certainly proves ε* < ε_b. Both ends are
    /// found by bisection on these certain predicates — never on midpoints — so whatever the widths of the
    /// enclosures, the bracket [ε_a, ε_b] holds the truth; the closed form on the first and last segment
    /// (`solve_segment`) then narrows it. A wide bracket means the enclosures are too coarse (precision
    /// or truncation depth), and its width says so; it is never wrong.
    pub fn epsilon(&self, delta: &Rational) -> Result<Interval, String> {
        if *delta <= 0 || *delta >= 1 {
            return Err(format!("delta must be in (0, 1), got {}", delta));
        }
        let p = self.p();
        let dl = Interval::from_rational(delta, p);
        let k0 = self.k0();
        let d0 = self.delta(&Rational::from(0)).delta;
        if d0.hi <= dl.lo {
            return Ok(Interval::zero(p));
        }
        // Certain predicates on knots: δ(ε_k) > δ, and δ(ε_k) < δ. Beyond the window's last resolved knot
        // the enclosures only widen, so the upper end must be found within it.
        let kmax = self.surv.max_index() - self.d - 1;
        let (a, b) = search::knot_bracket(k0, kmax, |k| self.delta_at_knot(k).lo > dl.hi, |k| self.delta_at_knot(k).hi < dl.lo)
            .ok_or_else(|| {
                format!(
                    "delta = {} is below what the lattice window resolves (truncation depth {} bits): \
                     no certified upper end for epsilon",
                    crate::num::format::fmt_nearest(&Float::with_val(64, delta), 6),
                    self.window_bits()
                )
            })?;
        if b <= k0 {
            return Ok(Interval::zero(p));
        }
        // ε* ∈ (ε_a, ε_b) (or [0, ε_b)), i.e. in segments a..=b−1; every solution inside segment k lies in
        // solve_segment(k), and a segment with no solution pushes the bound to its far end.
        let first = a.unwrap_or(k0);
        let zero = Rational::from(0);
        let lo_end = match self.solve_segment(first, &dl) {
            Some(iv) => iv.lo,
            None => Interval::from_rational(&self.knot_eps(first + 1).max(zero.clone()), p).lo,
        };
        let lo_end = if a.is_none() { Float::with_val(p, 0) } else { lo_end };
        let last = b - 1;
        let hi_end = match self.solve_segment(last, &dl) {
            Some(iv) => iv.hi,
            None => Interval::from_rational(&self.knot_eps(last).max(zero.clone()), p).hi,
        };
        if lo_end > hi_end {
            return Err("internal error: the certified epsilon bracket is empty".to_string());
        }
        let lo_end = if lo_end < 0 { Float::with_val(p, 0) } else { lo_end };
        Ok(Interval::new(lo_end, hi_end))
    }

    /// Bits of mass below which the window was truncated (for messages): −log2(outside).
    pub fn window_bits(&self) -> i64 {
        if self.surv.outside <= 0 {
            return i64::MAX;
        }
        -Float::with_val(64, self.surv.outside.log2_ref()).to_f64().ceil() as i64
    }

    /// Solutions of A_k − e^ε B_k = δ within segment k ∩ [0, ∞), enclosed; None if certainly empty.
    fn solve_segment(&self, k: i64, dl: &Interval) -> Option<Interval> {
        let p = self.p();
        let (a, b) = self.seg_ab(k);
        let start = self.knot_eps(k);
        let start = if start < 0 { Rational::from(0) } else { start };
        let end = self.knot_eps(k + 1);
        if end < start {
            return None;
        }
        let s = Interval::from_rational(&start, p);
        let e = Interval::from_rational(&end, p);
        let num = a.sub(dl);
        if num.hi <= 0 {
            return None;
        }
        let lo = if num.lo <= 0 || b.hi <= 0 {
            s.lo.clone()
        } else {
            let mut x = Float::with_val_round(p, &num.lo / &b.hi, Round::Down).0;
            x.ln_round(Round::Down);
            if x < s.lo {
                s.lo.clone()
            } else {
                x
            }
        };
        let hi = if b.lo <= 0 {
            e.hi.clone()
        } else {
            let mut x = Float::with_val_round(p, &num.hi / &b.lo, Round::Up).0;
            x.ln_round(Round::Up);
            if x > e.hi {
                e.hi.clone()
            } else {
                x
            }
        };
        if lo > hi {
            return None;
        }
        Some(Interval::new(lo, hi))
    }

    /// Exact knots (α, β) of the trade-off function for c in [c_lo, c_hi].
    pub fn knots(&self, c_lo: i64, c_hi: i64) -> Vec<Knot> {
        (c_lo..=c_hi).map(|c| Knot { c, alpha: self.surv.ge(c), beta: self.surv.ge(self.d + 1 - c) }).collect()
    }

    /// All knots with α and β both inside the resolved window, thinned to at most `max_points` for plotting.
    pub fn knots_window(&self) -> (i64, i64) {
        let lo = self.surv.min;
        let hi = self.surv.max_index();
        // β index d + 1 − c must also be resolved: c ≥ d + 1 − hi.
        (lo.max(self.d + 1 - hi), hi.min(self.d + 1 - lo))
    }

    /// Trade-off function f(α) (f64, for plotting): piecewise-linear interpolation between exact knots.
    pub fn tradeoff_f64(&self, alpha: f64) -> f64 {
        let (lo, hi) = self.knots_window();
        // α(c) = P[V ≥ c] decreases in c; find c with α(c+1) ≤ alpha ≤ α(c).
        let (mut a, mut b) = (lo, hi);
        while b - a > 1 {
            let m = a + (b - a) / 2;
            if self.surv.ge(m).mid().to_f64() >= alpha {
                a = m;
            } else {
                b = m;
            }
        }
        let a0 = self.surv.ge(a).mid().to_f64();
        let a1 = self.surv.ge(a + 1).mid().to_f64();
        let b0 = self.surv.ge(self.d + 1 - a).mid().to_f64();
        let b1 = self.surv.ge(self.d - a).mid().to_f64();
        if (a0 - a1).abs() < f64::MIN_POSITIVE {
            return b0;
        }
        let t = (a0 - alpha) / (a0 - a1);
        b0 + t * (b1 - b0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::DiscreteGaussian;
    use crate::num::parse_rational;

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    /// n = 1: δ(ε) = P[X > εσ²/μ − μ/2] − e^ε P[X > εσ²/μ + μ/2] (Theorem A.7 ⇒ (ε,δ) form),
    /// computed here from the single-variable tails of `DiscreteGaussian`, a different code path.
    #[test]
    fn single_query_matches_theorem_a7_formula() {
        let s2 = q("2.5");
        for mu in [1u32, 2] {
            let prof = PrivacyProfile::iid_dgauss(&s2, 1, mu, 192);
            let dg = DiscreteGaussian { sigma2: s2.clone() };
            for e in ["0", "0.3", "1", "2.75"] {
                let eps = q(e);
                let t1 = Rational::from(&eps * &s2) / Rational::from(mu) - Rational::from((mu, 2));
                let t2 = Rational::from(&eps * &s2) / Rational::from(mu) + Rational::from((mu, 2));
                let a = dg.tail_gt(&t1, 192);
                let b = dg.tail_gt(&t2, 192);
                let ref_delta = a.sub(&Interval::from_rational(&eps, 192).exp().mul(&b));
                let got = prof.delta(&eps).delta;
                assert!(got.overlaps(&ref_delta), "μ={mu} ε={e}: {got} vs {ref_delta}");
            }
        }
    }

    #[test]
    fn epsilon_inverts_delta() {
        let prof = PrivacyProfile::iid_dgauss(&q("5"), 10, 1, 256);
        for d in ["1e-11", "1e-5", "0.01", "0.3"] {
            let dl = q(d);
            let e = prof.epsilon(&dl).unwrap();
            let w = e.width();
            assert!(w < 1e-60, "δ={d}: width {w}");
            // δ(ε) at a rational just below and above the bracket straddles δ.
            let lo = Rational::from_f64(e.lo.to_f64() - 1e-9).unwrap();
            let hi = Rational::from_f64(e.hi.to_f64() + 1e-9).unwrap();
            let dlo = prof.delta(&lo).delta;
            let dhi = prof.delta(&hi).delta;
            let dd = Float::with_val(256, &dl);
            assert!(dlo.lo > dd && dhi.hi < dd, "δ={d}");
        }
    }

    #[test]
    fn delta_at_zero_is_total_variation() {
        // δ(0) is the total variation distance between N_Z(0,σ²) and N_Z(1,σ²): Σ_x (q(x) − p(x))_+,
        // summed here from single pmf values (q(x) > p(x) exactly when x ≥ 1).
        let s2 = q("1");
        let prof = PrivacyProfile::iid_dgauss(&s2, 1, 1, 128);
        let dg = DiscreteGaussian { sigma2: s2 };
        let mut tv = Interval::zero(128);
        for x in -40i64..=40 {
            let pq = dg.pmf(x - 1, 128); // Q = X + 1
            let pp = dg.pmf(x, 128);
            if x >= 1 {
                tv = tv.add(&pq.sub(&pp));
            }
        }
        assert!(prof.delta(&Rational::from(0)).delta.overlaps(&tv));
    }

    #[test]
    fn knots_are_symmetric_for_iid() {
        let prof = PrivacyProfile::iid_dgauss(&q("3"), 2, 1, 128);
        // f is symmetric: the knot set {(α,β)} is closed under swapping (α, β).
        let ks = prof.knots(-3, 6);
        for k in &ks {
            let mirror = prof.d + 1 - k.c;
            let m = prof.knots(mirror, mirror).pop().unwrap();
            assert!(m.alpha.overlaps(&k.beta) && m.beta.overlaps(&k.alpha));
        }
    }
}
