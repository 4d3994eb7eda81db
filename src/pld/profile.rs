//! Privacy profiles δ(ε), ε(δ) and trade-off functions of compositions whose privacy loss lives on a
//! lattice: discrete Gaussian and discrete Laplace noise on integer queries.
//!
//! Under the alternative Q the privacy loss of every shift is an affine function of an integer statistic:
//! for N_Z(0, σ²) and sensitivity μ, L = (μ/σ²)X + μ²/(2σ²) with X ~ N_Z(0, σ²)
//! ([SSW24, eq. A.9]; one query's loss is (2μx ± μ²)/(2σ²)); for DLap(b),
//! L = (2T − μ)/b with T = clamp(X + μ, 0, μ) (`LatticeDist::dlap_shift_sum`). When every slope is an
//! integer multiple w_i of one step h (always, for rationals), the composed loss under Q is
//!
//!   L = hV + c,   V = Σ w_i T_i ∈ ℤ,   c = Σ n_i μ_i²/(2σ_i²) − Σ n_j μ_j/b_j,
//!
//! and D := 2c/h is an integer (each group contributes ±n_i μ_i w_i). For symmetric noise the loss under
//! the null P has the law of −L under Q (y ↦ μ − y exchanges P and Q), so with both tails of V:
//!
//!   δ(ε) = P_Q[L > ε] − e^ε P_P[L > ε] = P[V > (ε − c)/h] − e^ε · P[V < (−ε − c)/h]        (both terms)
//!
//! (Lemma A.9 of the f-DP paper, Prop. 3.2 of its ref. 60). For discrete Gaussians V is symmetric and
//! c = ρ, which gives the paper's P[V > (ε − ρ)/h] − e^ε P[V > (ε + ρ)/h]. The formula holds for every real
//! ε, negative ones included (the trade-off function needs them).
//!
//! Knots: on ε ∈ [c + hk, c + h(k+1)) both probabilities are constant, A_k = P[V ≥ k + 1] and
//! B_k = P[V ≤ −D − k − 1], so δ(ε) = A_k − e^ε B_k and ε(δ) = ln((A_k − δ)/B_k) in closed form on the
//! right segment. The likelihood-ratio test that rejects for L ≥ c + hk has errors
//! α_k = P_P[L ≥ c + hk] = P[V ≤ −D − k] and β_k = P_Q[L < c + hk] = P[V ≤ k − 1]: the vertices of the
//! trade-off function (Theorem A.7 for one query; A.5/A.6 for n), which between vertices is the supporting
//! line f(α) = 1 − δ(t) − e^t α at the loss value t = c + hk (Dong–Roth–Su 2022, Prop. 2.12, the
//! duality f(α) = sup_ε 1 − δ(ε) − e^ε α).

use crate::error::Fallible;
use crate::num::boundary::{gallop_boundary, integer_boundary};
use crate::num::Interval;
use crate::pld::lattice::{LatticeDist, Tails};
use crate::pld::search;
use crate::{err, fallible};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// A privacy profile on a loss lattice: under the alternative L = hV + c with V integer, both tails of V
/// enclosed in `tails`.
#[derive(Clone, Debug)]
pub struct PrivacyProfile {
    tails: Tails,
    h: Rational,
    c: Rational,
    d: i64,
    prec: u32,
}

/// δ(ε) with both of its terms.
#[derive(Clone, Debug)]
pub struct DeltaValue {
    pub delta: Interval,
    /// P_Q[L > ε] = P[V > (ε − c)/h]
    pub first: Interval,
    /// e^ε P_P[L > ε] = e^ε P[V < (−ε − c)/h]
    pub second: Interval,
}

/// One vertex of the trade-off function: the test rejecting for L ≥ c + hk, with its type I error α and
/// type II error β.
#[derive(Clone, Debug)]
pub struct LatticeKnot {
    pub k: i64,
    pub alpha: Interval,
    pub beta: Interval,
}

fn floor_i64(x: &Rational) -> Fallible<i64> {
    Integer::from(x.floor_ref()).to_i64().ok_or_else(|| err!(Declined, "a lattice index is out of range"))
}

impl PrivacyProfile {
    /// n i.i.d. N_Z(0, σ²) queries with sensitivity μ (one shift each): V = Σ X_i, h = μ/σ²,
    /// c = ρ = nμ²/(2σ²), D = nμ. The window is truncated at 2^-(prec + GUARD_BITS) of mass.
    pub fn iid_dgauss(sigma2: &Rational, n: u32, mu: u32, prec: u32) -> PrivacyProfile {
        let dist = LatticeDist::iid_dgauss_sum(sigma2, n, prec);
        let h = Rational::from(mu) / sigma2.clone();
        let rho = crate::model::GaussGroup { sigma2: sigma2.clone(), count: n, mu }.rho();
        PrivacyProfile::from_dist(&dist, h, rho).expect("invariant: one discrete Gaussian group has an integer D")
    }

    /// From the law of V under the alternative, the step h and the offset c (2c/h must be an integer).
    pub fn from_dist(dist: &LatticeDist, h: Rational, c: Rational) -> Fallible<PrivacyProfile> {
        PrivacyProfile::from_tails(dist.tails(), h, c)
    }

    /// From both tails of V under the alternative (the fixed-precision engines build them directly).
    pub fn from_tails(tails: Tails, h: Rational, c: Rational) -> Fallible<PrivacyProfile> {
        let dq = Rational::from(2u32) * c.clone() / h.clone();
        if dq.denom() != &Integer::from(1) {
            return fallible!(Internal, "2c/h is not an integer");
        }
        let d = dq.numer().to_i64().ok_or_else(|| err!(Declined, "the loss lattice offset is out of range"))?;
        let prec = tails.prec();
        Ok(PrivacyProfile { tails, h, c, d, prec })
    }

    pub fn prec(&self) -> u32 {
        self.prec
    }

    /// The lattice step h of the loss and its offset c under the alternative (ρ for discrete Gaussians).
    pub fn step(&self) -> &Rational {
        &self.h
    }

    pub fn offset(&self) -> &Rational {
        &self.c
    }

    pub fn tails(&self) -> &Tails {
        &self.tails
    }

    /// ε_k = c + hk, the left end of segment k (exact).
    pub fn knot_eps(&self, k: i64) -> Rational {
        (&self.h * Rational::from(k)) + &self.c
    }

    /// Segment containing ε: k = ⌊(ε − c)/h⌋.
    pub fn segment_of(&self, eps: &Rational) -> Fallible<i64> {
        floor_i64(&(Rational::from(eps - &self.c) / &self.h))
    }

    /// (A_k, B_k) = (P[V ≥ k + 1], P[V ≤ −D − k − 1]).
    fn seg_ab(&self, k: i64) -> (Interval, Interval) {
        (self.tails.ge(k.saturating_add(1)), self.tails.le((-self.d).saturating_sub(k).saturating_sub(1)))
    }

    /// δ(ε) for an exact ε (any sign), with both terms.
    pub fn delta(&self, eps: &Rational) -> DeltaValue {
        // an index out of i64 range means a tail of mass 0 in the window: saturate
        let k = self.segment_of(eps).unwrap_or(if *eps > 0 { i64::MAX / 2 } else { i64::MIN / 2 });
        let (a, b) = self.seg_ab(k);
        let e = Interval::from_rational(eps, self.prec).exp();
        let second = e.mul(&b);
        // δ(ε) ≥ 0 always (a supremum over events including the empty one): negative ends are raised to 0
        let (lo, hi) = a.sub(&second).into_parts();
        let at_least_0 = |x: Float| if x < 0 { Float::with_val(self.prec, 0) } else { x };
        let delta = Interval::new(at_least_0(lo), at_least_0(hi));
        DeltaValue { delta, first: a, second }
    }

    /// δ at the left knot of segment k, or at ε = 0 if that knot is negative.
    fn delta_at_knot(&self, k: i64) -> Interval {
        let ek = self.knot_eps(k);
        let e = if ek < 0 { Rational::from(0) } else { ek };
        self.delta(&e).delta
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
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Interval> {
        if *delta <= 0 || *delta >= 1 {
            return fallible!(Input, "delta must be in (0, 1), got {}", delta);
        }
        let p = self.prec;
        let dl = Interval::from_rational(delta, p);
        let k0 = self.segment_of(&Rational::from(0))?;
        let d0 = self.delta(&Rational::from(0)).delta;
        if d0.hi() <= dl.lo() {
            return Ok(Interval::zero(p));
        }
        // Certain predicates on knots: δ(ε_k) > δ, and δ(ε_k) < δ. At the window's top knot A_k is only the
        // outside mass; if even there δ is not certainly below δ, the window is too shallow.
        let kmax = self.tails.max_index();
        let above = |k| self.delta_at_knot(k).lo() > dl.hi();
        let below = |k| self.delta_at_knot(k).hi() < dl.lo();
        let hint = self.tails.oracle().and_then(|o| o.hint(delta, &self.h, &self.c, self.d));
        let found = match hint {
            Some(k) => search::knot_bracket_from(k0, kmax, k, above, below),
            None => search::knot_bracket(k0, kmax, above, below),
        };
        let (a, b) = found.ok_or_else(|| {
            let depth = match self.window_bits() {
                b @ 1..=1_000_000_000 => format!(" (truncation depth {b} bits)"),
                _ => String::new(),
            };
            err!(
                Declined,
                "delta = {} is below what the lattice window resolves{depth}: no certified upper end for epsilon",
                crate::num::format::fmt_nearest(&Float::with_val(64, delta), 6),
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
            Some(iv) => iv.into_parts().0,
            None => Interval::from_rational(&self.knot_eps(first + 1).max(zero.clone()), p).into_parts().0,
        };
        let lo_end = if a.is_none() { Float::with_val(p, 0) } else { lo_end };
        let last = b - 1;
        let hi_end = match self.solve_segment(last, &dl) {
            Some(iv) => iv.into_parts().1,
            None => Interval::from_rational(&self.knot_eps(last).max(zero.clone()), p).into_parts().1,
        };
        if lo_end > hi_end {
            return fallible!(Internal, "the certified epsilon bracket is empty");
        }
        let lo_end = if lo_end < 0 { Float::with_val(p, 0) } else { lo_end };
        Ok(Interval::new(lo_end, hi_end))
    }

    /// Bits of mass below which the window was truncated (for messages): −log2(outside).
    pub fn window_bits(&self) -> i64 {
        let o = self.tails.outside();
        if *o <= 0 {
            return i64::MAX;
        }
        -Float::with_val(64, o.log2_ref()).to_f64().ceil() as i64
    }

    /// Solutions of A_k − e^ε B_k = δ within segment k ∩ [0, ∞), enclosed; None if certainly empty.
    fn solve_segment(&self, k: i64, dl: &Interval) -> Option<Interval> {
        let p = self.prec;
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
        if *num.hi() <= 0 {
            return None;
        }
        let lo = if *num.lo() <= 0 || *b.hi() <= 0 {
            s.lo().clone()
        } else {
            let mut x = Float::with_val_round(p, num.lo() / b.hi(), Round::Down).0;
            x.ln_round(Round::Down);
            if x < *s.lo() {
                s.lo().clone()
            } else {
                x
            }
        };
        let hi = if *b.lo() <= 0 {
            e.hi().clone()
        } else {
            let mut x = Float::with_val_round(p, num.hi() / b.lo(), Round::Up).0;
            x.ln_round(Round::Up);
            if x > *e.hi() {
                e.hi().clone()
            } else {
                x
            }
        };
        if lo > hi {
            return None;
        }
        Some(Interval::new(lo, hi))
    }

    /// The vertices (α_k, β_k) of the trade-off function for k in [k_lo, k_hi].
    pub fn knots(&self, k_lo: i64, k_hi: i64) -> Vec<LatticeKnot> {
        (k_lo..=k_hi).map(|k| LatticeKnot { k, alpha: self.alpha_k(k), beta: self.tails.le(k.saturating_sub(1)) }).collect()
    }

    /// α_k = P_P[L ≥ c + hk] = P[V ≤ −D − k].
    fn alpha_k(&self, k: i64) -> Interval {
        self.tails.le((-self.d).saturating_sub(k))
    }

    /// The range of k whose α_k and β_k both lie inside the resolved window.
    pub fn knots_window(&self) -> (i64, i64) {
        let (lo, hi) = (self.tails.min_index(), self.tails.max_index());
        // β_k = P[V ≤ k − 1] resolved for k − 1 in [lo, hi]; α_k = P[V ≤ −D − k] for −D − k in [lo, hi]
        ((lo + 1).max(-self.d - hi), (hi + 1).min(-self.d - lo))
    }

    /// Certified f(α) of the exact trade-off function, for α ∈ [0, 1] exact.
    ///
    /// f(1) = 0 and f(0) = 1 exactly (every loss is finite). Otherwise the vertex segment holding α is found
    /// by certified bisection on α_k (decreasing in k): k is certainly too small when α_{k+1} > α, certainly
    /// too large when α_k < α. On its segment f(α) = 1 − δ(t_k) − e^{t_k} α with t_k = c + hk, and every
    /// other k gives a lower bound of the same form (the duality above), so f(α) lies between the largest
    /// lower end and the largest upper end over the candidates. With more than 64 undecided candidates the
    /// upper end falls back to the bound f(α) ≤ 1 − α.
    pub fn tradeoff(&self, alpha: &Rational) -> Fallible<Interval> {
        let p = self.prec;
        if *alpha < 0 || *alpha > 1 {
            return fallible!(Input, "alpha must be in [0, 1], got {alpha}");
        }
        if *alpha == 1 {
            return Ok(Interval::zero(p));
        }
        if *alpha == 0 {
            return Ok(Interval::one(p));
        }
        let a = Interval::from_rational(alpha, p);
        let (lo_w, hi_w) = (self.tails.min_index(), self.tails.max_index());
        // k from where α_k = 1 (−D − k ≥ hi_w) to where α_k ≈ outside (−D − k < lo_w)
        let (kmin, kmax) = ((-self.d).saturating_sub(hi_w).saturating_sub(1), (-self.d).saturating_sub(lo_w).saturating_add(1));
        let too_small = |k: i64| self.alpha_k(k.saturating_add(1)).lo() > a.hi();
        let too_large = |k: i64| self.alpha_k(k).hi() < a.lo();
        // first k not certainly too small, last k not certainly too large (bisection on certain predicates).
        // On the inversion's tails each probe near V's centre costs ~0.3 s (100,000 × N_Z(0, 1) at α = ½ took
        // 34 probes, 6 s): there the search gallops from the oracle's f64 guess of the knot (α_{k+1} ≤ α,
        // i.e. −D − k − 1 ≤ the α-quantile of V) and `last` from `first`
        let guess = self.tails.oracle().and_then(|o| o.quantile_le(alpha.to_f64())).map(|m| (-self.d).saturating_sub(1).saturating_sub(m));
        let first = {
            let (lo, hi) = match guess {
                Some(g) => gallop_boundary(kmin, kmax + 1, g, |m| !too_small(m)),
                None => integer_boundary(kmin, kmax + 1, |m| !too_small(m)),
            };
            if too_small(lo) {
                hi
            } else {
                lo
            }
        };
        let last = {
            let hi = if !too_large(kmax) {
                kmax
            } else if guess.is_some() {
                gallop_boundary(first - 1, kmax, first, too_large).1 - 1
            } else {
                integer_boundary(first - 1, kmax, too_large).1 - 1
            };
            hi.max(first)
        };
        let one = Interval::one(p);
        // the line at t_k two ways, both exact identities, intersected: 1 − δ(t_k) − e^{t_k} α, and, with
        // δ(t_k) = A_k − e^{t_k} B_k and 1 − A_k = P[V ≤ k], P[V ≤ k] − e^{t_k} (α − B_k), which has no
        // cancellation against 1 when f(α) is tiny (10,000 × N_Z(0, 37.7) at α = 1e-3: f ≈ 4.6e-40, where the
        // first form's 2^-p absolute error left no digit at double-double precision)
        let line = |k: i64| {
            let t = self.knot_eps(k);
            let e = Interval::from_rational(&t, p).exp();
            let old = one.sub(&self.delta(&t).delta).sub(&e.mul(&a));
            let (_, b) = self.seg_ab(k);
            let direct = self.tails.le(k).sub(&e.mul(&a.sub(&b)));
            let (lo, hi) = (old.lo().clone().max(direct.lo()), old.hi().clone().min(direct.hi()));
            if lo > hi {
                return fallible!(Internal, "the two enclosures of the trade-off line at knot {k} are disjoint");
            }
            Ok(Interval::new(lo, hi))
        };
        let trivial_hi = Float::with_val_round(p, 1 - a.lo(), Round::Up).0;
        let n = last.saturating_sub(first).saturating_add(1);
        let (mut lo, mut hi) = (Float::with_val(p, 0), Float::with_val(p, f64::NEG_INFINITY));
        let cands: Vec<i64> = if n <= 64 { (first..=last).collect() } else { vec![first, last] };
        for k in cands {
            let v = line(k)?;
            if *v.lo() > lo {
                lo = v.lo().clone();
            }
            if *v.hi() > hi {
                hi = v.hi().clone();
            }
        }
        if n > 64 || hi > trivial_hi {
            hi = trivial_hi;
        }
        if hi < 0 {
            hi = Float::with_val(p, 0);
        }
        if lo > hi {
            return fallible!(Internal, "the certified f(alpha) bracket is empty");
        }
        Ok(Interval::new(lo, hi))
    }

    /// f(α) as an f64 (for plotting): the midpoint of the certified bracket.
    pub fn tradeoff_f64(&self, alpha: f64) -> f64 {
        let Some(a) = Rational::from_f64(alpha.clamp(0.0, 1.0)) else { return f64::NAN };
        self.tradeoff(&a).map(|i| i.mid().to_f64()).unwrap_or(f64::NAN)
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
            let lo = Rational::from_f64(e.lo().to_f64() - 1e-9).unwrap();
            let hi = Rational::from_f64(e.hi().to_f64() + 1e-9).unwrap();
            let dlo = prof.delta(&lo).delta;
            let dhi = prof.delta(&hi).delta;
            let dd = Float::with_val(256, &dl);
            assert!(*dlo.lo() > dd && *dhi.hi() < dd, "δ={d}");
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
            // α_k = P[V ≤ −D − k] and β_k = P[V ≤ k − 1]: the mirror of k is 1 − D − k
            let mirror = 1 - prof.d - k.k;
            let m = prof.knots(mirror, mirror).pop().unwrap();
            assert!(m.alpha.overlaps(&k.beta) && m.beta.overlaps(&k.alpha));
        }
    }
}
